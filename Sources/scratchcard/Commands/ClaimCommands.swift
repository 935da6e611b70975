@preconcurrency import Glibc
import Dealing
import CardRules
import Claims
import Foundation
import ScratchCore
import ScratchStore

/// `scratchcard claim-key new`, `redeem` and `claims`: a promotion's key, and the
/// counter where a claim is checked and paid once.
enum ClaimCommand: Equatable {
    case newKey(path: String)
    case redeem(RedeemOptions)
    case list(store: String?, pool: String?, json: Bool)
}

/// Options of `scratchcard redeem`.
struct RedeemOptions: Equatable {
    /// nil: one code per line from stdin (a barcode scanner types a code and Enter).
    var code: String?
    var key = ""
    var store: String?
    var pool: String?
    var counter = defaultKioskID()
    /// With codes from stdin: a last line of counts and latencies (scripts/redeem-bench.sh).
    var stats = false
}

let claimKeyUsage = """
    usage: scratchcard claim-key new FILE

    Writes a new promotion key to FILE (32 random bytes as hex, mode 0600) and prints its
    fingerprint. An existing file is never overwritten: codes made with it would stop
    redeeming. Give the file to every kiosk and counter of the promotion (--claim-key
    FILE, or "claim-key" in the configuration); keep it secret: whoever has it can make
    valid codes. A key file readable by others, or shorter than 16 bytes, is refused.
    """

let redeemUsage = """
    usage: scratchcard redeem [CODE] --claim-key FILE (--store PATH | --pool CONNINFO)
                              [--counter NAME] [--stats]

    Checks a claim code and marks its claim redeemed, once, in the kiosk's store or the
    shared pool. Lower case, spaces and dashes are accepted; O is read as 0, I and L as 1.
    Without CODE, reads one code per line from stdin (a barcode scanner typing a code and
    Enter) and answers each line as it would be answered alone. --counter NAME names this
    counter in the record (default: the host name). --stats (codes from stdin): a last
    line with the counts by exit status and each answer's latency (p50, p99) and rate.

    exit status (one CODE):
      0  valid: <card> dealt <time> at <kiosk> (deal <id>), redeemed now by <counter>
      3  already redeemed <time> by <counter>
      4  not a valid code (forged, or another promotion's), or its check character does
         not match (a character mistyped, or two swapped): said apart
      5  a valid code whose deal the store or pool does not have (yet)
      2  bad input: not a claim code (its length or a character), a key file missing,
         readable by others or too short, a bad option
      6  the store or pool cannot be reached or used
      7  --store: the claim belongs to a pool (the kiosk deals through one): nothing
         changed; the answer names the pool (no password): redeem it there, with --pool
    With codes from stdin: 0 at the end of the input, 6 when the store or pool fails.
    """

let claimsUsage = """
    usage: scratchcard claims [--store PATH | --pool CONNINFO] [--json]

    Lists the claims of a kiosk's store (default $XDG_STATE_HOME/scratchcard/kiosk.db)
    or of the shared pool: code, card, kiosk, when dealt, and when and by which counter
    it was redeemed, or open; in a pool kiosk's store, a claim the pool holds says so
    (redeemed at the pool only). A zone ticket's claim then lists its picks once the
    ticket has ended: each zone (from 0) in the order picked, with its symbol. --json: one
    object per line with the keys code, card, kiosk, deal, dealt, redeemed, redeemed_by
    (null while open), pool (the pool that holds a store's claim; else null), picks (a
    zone ticket's, [{"zone": 4, "symbol": "..."}, ...]; else null).
    """

func parseClaimKey(_ tokens: ArraySlice<String>) throws(UsageError) -> Command {
    let rest = Array(tokens)
    if rest.contains("-h") || rest.contains("--help") { return .help(claimKeyUsage) }
    guard rest.first == "new" else { throw UsageError(message: "claim-key takes new FILE") }
    guard rest.count == 2, !rest[1].isEmpty, !rest[1].hasPrefix("-") else { throw UsageError(message: "claim-key new takes one FILE") }
    return .claims(.newKey(path: rest[1]))
}

func parseRedeem(_ tokens: ArraySlice<String>) throws(UsageError) -> Command {
    var tokens = tokens
    var options = RedeemOptions()
    var key: String?
    while let token = tokens.popFirst() {
        func value() throws(UsageError) -> String {
            guard let next = tokens.popFirst() else { throw UsageError(message: "\(token) needs a value") }
            return next
        }
        switch token {
        case "-h", "--help": return .help(redeemUsage)
        case "--claim-key": key = try nonEmpty(value(), token)
        case "--store": options.store = try nonEmpty(value(), token)
        case "--pool": options.pool = try nonEmpty(value(), token)
        case "--counter": options.counter = try kioskID(value(), token)
        case "--stats": options.stats = true
        default:
            guard !token.hasPrefix("--"), options.code == nil else {
                throw UsageError(message: token.hasPrefix("--") ? "redeem: unknown option '\(token.prefix(40))'" : "redeem takes one CODE (or none: codes from stdin)")
            }
            options.code = token
        }
    }
    guard let key else { throw UsageError(message: "redeem needs --claim-key FILE") }
    guard (options.store == nil) != (options.pool == nil) else { throw UsageError(message: "redeem needs --store PATH or --pool CONNINFO (one of them)") }
    options.key = key
    return .claims(.redeem(options))
}

func parseClaims(_ tokens: ArraySlice<String>, environment: [String: String]) throws(UsageError) -> Command {
    var tokens = tokens
    var store: String?, pool: String?, json = false
    while let token = tokens.popFirst() {
        func value() throws(UsageError) -> String {
            guard let next = tokens.popFirst() else { throw UsageError(message: "\(token) needs a value") }
            return next
        }
        switch token {
        case "-h", "--help": return .help(claimsUsage)
        case "--store": store = try nonEmpty(value(), token)
        case "--pool": pool = try nonEmpty(value(), token)
        case "--json": json = true
        default: throw UsageError(message: "claims: unknown option '\(token.prefix(40))'")
        }
    }
    guard store == nil || pool == nil else { throw UsageError(message: "claims takes --store PATH or --pool CONNINFO, not both") }
    return .claims(.list(store: pool == nil ? store ?? KioskStore.defaultPath(environment: environment) : nil, pool: pool, json: json))
}

/// The key at `path`, or exit 2 with the reason.
func loadClaimKey(_ path: String) throws(ExitError) -> ClaimKey {
    do { return try ClaimKey(contentsOf: path) } catch { throw ExitError(code: 2, message: "--claim-key \(error)") }
}

func runClaims(_ command: ClaimCommand) throws(ExitError) {
    switch command {
    case .newKey(let path):
        do {
            let key = try ClaimKey.createFile(at: path)
            print("claim key written to \(path) (mode 0600), fingerprint \(key.fingerprint); keep it secret")
        } catch {
            throw ExitError(code: 2, message: "claim-key new: \(error)")
        }
    case .redeem(let options):
        try redeemCommand(options)
    case let .list(store, pool, json):
        let records: [ClaimRecord]
        do {
            if let pool {
                records = try PostgresPool(address: poolAddress(pool), kioskID: "claims").claims()
            } else {
                records = try KioskStore(path: store ?? "", access: .read).claims()
            }
        } catch let error as ExitError {
            throw error
        } catch {
            throw ExitError(code: 2, message: "\(error)")
        }
        for record in records {
            let grouped = (try? ClaimCode(parsing: record.code).grouped) ?? record.code
            print(json ? record.json(grouped: grouped) : record.text(grouped: grouped))
            // The text line says so itself; a JSON reader sees null and is told here.
            if json && record.picksUnreadable { log("claims: the picks of deal \(record.deal) cannot be read (a damaged value): listed as null") }
        }
    }
}

/// Where a counter redeems: the kiosk's store or the pool.
private enum ClaimBook {
    case store(KioskStore)
    case pool(PostgresPool)

    func redeem(_ code: String, counter: String) throws(ExitError) -> Redemption {
        switch self {
        case .store(let store):
            do { return try store.redeem(code: code, counter: counter, now: Date().timeIntervalSince1970) } catch {
                throw ExitError(code: 6, message: "\(error)")
            }
        case .pool(let pool):
            do { return try pool.redeem(code: code, counter: counter) } catch {
                throw ExitError(code: 6, message: error.message)
            }
        }
    }

    var name: String {
        switch self {
        case .store: return "the store"
        case .pool: return "the pool"
        }
    }
}

/// `scratchcard redeem`: one code, or one per line from stdin.
func redeemCommand(_ options: RedeemOptions) throws(ExitError) {
    let key = try loadClaimKey(options.key)
    let book: ClaimBook
    if let pool = options.pool {
        book = .pool(PostgresPool(address: try poolAddress(pool), kioskID: options.counter))
    } else {
        do { book = .store(try KioskStore(path: options.store ?? "", access: .counter)) } catch {
            throw ExitError(code: error.message == "no store there" ? 2 : 6, message: "\(error)")
        }
    }
    if let code = options.code {
        let (line, status) = try answer(code, key: key, book: book, counter: options.counter)
        print(line)
        if status != 0 { exit(status) }
        return
    }
    var latencies: [Double] = []
    var counts: [Int32: Int] = [:]
    let started = monotonicSeconds()
    while let line = readLine() {
        if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
        let before = monotonicSeconds()
        let (text, status) = try answer(line.filter { $0 != "\r" }, key: key, book: book, counter: options.counter)
        latencies.append(monotonicSeconds() - before)
        counts[status, default: 0] += 1
        print(text)
    }
    if options.stats {
        let sorted = latencies.sorted(), elapsed = monotonicSeconds() - started
        func at(_ q: Double) -> String {
            sorted.isEmpty ? "0" : String(format4: sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * q))] * 1000)
        }
        print("redeemed=\(counts[0] ?? 0) already=\(counts[3] ?? 0) invalid=\((counts[4] ?? 0) + (counts[2] ?? 0)) unknown=\(counts[5] ?? 0)"
              + " redeem_ms_p50=\(at(0.5)) redeem_ms_p99=\(at(0.99)) answers_per_s=\(Int((Double(sorted.count) / Swift.max(elapsed, 1e-9)).rounded()))")
    }
}

/// One code's answer and exit status (see `redeemUsage`); a store or pool that fails
/// throws (exit 6).
private func answer(_ text: String, key: ClaimKey, book: ClaimBook, counter: String) throws(ExitError) -> (line: String, status: Int32) {
    let code: ClaimCode
    do { code = try ClaimCode(parsing: text) } catch {
        return ("\(error)", error == .checkMismatch ? 4 : 2)
    }
    do { try key.verify(code) } catch {
        return ("not a valid code", 4)
    }
    switch try book.redeem(code.text, counter: counter) {
    case .redeemed(let claim):
        return ("valid: \(claim.cardID) dealt \(utcTime(claim.dealtAt)) at \(claim.kiosk) (deal \(claim.deal)), redeemed now by \(counter)", 0)
    case .already(let claim):
        return ("already redeemed \(claim.redeemedAt.map(utcTime) ?? "?") by \(claim.redeemedBy ?? "?")", 3)
    case .unknown:
        return ("a valid code, but \(book.name) has no such claim (yet): the kiosk's outcomes may not have reached it; try again later", 5)
    case .belongsToPool(let pool) where pool.isEmpty:
        return ("not redeemed: this claim was dealt before this store knew which book its claims belong to; start the kiosk once"
                + " (it settles that), then redeem it again: with --pool if the kiosk deals through a pool", 7)
    case .belongsToPool(let pool):
        return ("not redeemed here: this claim belongs to the pool at \(pool) (the kiosk deals through it);"
                + " redeem it with --pool, which pays it once", 7)
    }
}
