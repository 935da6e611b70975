// libFuzzer target: a kiosk store file (SQLite) as a kiosk, `stock` and `log-summary`
// meet it after a power cut, a bad disk or an operator's copy. Each input is written to
// a file of its own and opened twice: for reading (`stock`: read, not compared) and as
// the kiosk does (locked, WAL, integrity-checked, migrated). Every refusal must be a
// StoreError naming the file with a message; every store the kiosk opens must read back
// consistently: as many deals counted per
// card as listed one by one, the stock report's counts the same, the card on show the
// last deal without an outcome, and a zone ticket's picks read or counted as unreadable
// (never a stop). The kiosk's open then deals a card and ends it with picks, and the
// store must say so. SQLite itself is not instrumented: the coverage is our wrapper's.
// Built by scripts/fuzz.sh store; see FUZZING.md.
@preconcurrency import Glibc
import CardRules
import ScratchCore

/// The folder every input is written into (made once; the files are removed after each).
/// On /dev/shm when there is one: the kiosk's commits are synced, and a disk's fsync
/// would hold each input up for milliseconds.
let folder: String = {
    var template = Array(((access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/scratchcard-fuzz-store-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { preconditionFailure("mkdtemp failed") }
    return String(cString: made)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = folder + "/kiosk.db"
    for suffix in ["", "-wal", "-shm", "-journal", ".lock"] { unlink(path + suffix) }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(fd >= 0)
    if size > 0 { precondition(write(fd, data, size) == size) }
    close(fd)

    func refused(_ error: StoreError) {
        precondition(error.path == path && !error.message.isEmpty, "a refusal without the file or a message: \(error)")
    }
    do {
        // quick_check only: read, never compared (an index may disagree with its table).
        let store = try KioskStore(path: path, access: .read)
        _ = try store.dealtCounts()
        _ = try store.stockReport(deck: nil)
        _ = try store.pendingDeal()
        let (records, unreadable) = try store.readOutcomes()
        precondition(unreadable <= records.count, "\(unreadable) unreadable picks among \(records.count) records")
    } catch { refused(error) }
    do {
        let store = try KioskStore(path: path, access: .kiosk)
        try checkConsistent(store)
        let card = DeckCard(id: "fuzz", prize: "fuzz.png", weight: 1)
        guard let deal = try store.deal(card, shownAt: 1, ending: nil) else {
            preconditionFailure("a card without stock was refused")
        }
        let pending = try store.pendingDeals()
        precondition(pending.contains(deal), "the new deal is not pending")
        var record = OutcomeRecord(shownAt: 1, cardID: "fuzz", prize: "fuzz.png", outcome: .revealed, how: .threshold,
                                   fraction: 0.6, revealMilliseconds: 10, durationMilliseconds: 20)
        record.picks = [ZonePick(zone: 4, symbol: "☕"), ZonePick(zone: 0, symbol: "fuzz.png")]
        let first = try store.finish(deal, outcome: record), second = try store.finish(deal, outcome: record)
        precondition(first && !second, "the outcome written \(first), written again \(second)")
        let picked = try store.readOutcomes().records.contains { $0.picks == record.picks }
        precondition(picked, "the outcome's picks did not read back")
        let stillPending = try store.pendingDeals().contains(deal)
        precondition(!stillPending, "an ended deal is still pending")
        try checkConsistent(store)
        // Each claim's picks read, or said unreadable.
        for claim in try store.claims() { precondition(!(claim.picksUnreadable && claim.picks != nil), "picks both read and unreadable") }
    } catch { refused(error) }
    return 0
}

/// The store's readings agree with one another.
func checkConsistent(_ store: KioskStore) throws(StoreError) {
    let counts = try store.dealtCounts()
    let deals = try store.dealsWithOutcomeCounts()
    precondition(counts.values.reduce(0, +) == deals.count, "dealt counts \(counts) against \(deals.count) deals")
    var perCard: [String: Int] = [:]
    for deal in deals {
        perCard[deal.card, default: 0] += 1
        precondition(deal.outcomes == 0 || deal.outcomes == 1, "a deal with \(deal.outcomes) outcomes")
    }
    precondition(perCard == counts, "dealt counts \(counts) against the deals \(perCard)")
    let report = try store.stockReport(deck: nil)
    precondition(report.reduce(0) { $0 + $1.dealt } == deals.count, "the stock report's deals differ")
    for line in report {
        precondition(line.revealed + line.abandoned + line.quit <= line.dealt, "more outcomes than deals: \(line)")
    }
    let pending = try store.pendingDeals()
    precondition(pending.count == deals.filter { $0.outcomes == 0 }.count, "pending deals differ")
    let shown = try store.pendingDeal()
    precondition((shown == nil) == pending.isEmpty, "a card on show without a pending deal, or none with one")
    _ = try store.outcomeRecords()
}
