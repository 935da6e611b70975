import CardRules
import Dispatch
import Foundation
import ScratchCore
import ScratchStore
import Synchronization

/// The kiosk's store behind one serial queue of its own, so that its commits (a deal's
/// or an outcome's sync of the WAL: milliseconds on a real disk, now and then half a
/// second; strokes every 150 ms while a pen moves, synced by the store on a thread of
/// its own: `JournalSync`) never hold up the window's loop. Strokes and the reveal are sent (`later`); deals,
/// outcomes and reads wait for their answer, after everything sent before them: a deal
/// is committed before its card is shown, and the strokes of a card are written before
/// the outcome that ends it. (Strokes that wait behind a slow commit are taken together,
/// so a batch sent after a reveal may be committed before it: both are the same card's.)
///
/// `@unchecked Sendable`: the store (an SQLite connection) is touched only on `queue`,
/// one job at a time; what crosses to it are plain values, and the batches waiting are
/// guarded by a lock.
final class StoreWriter: @unchecked Sendable {
    /// The kiosk's SQLite store today; a shared pool would come in here (PrizeLedger.swift).
    private let store: any PrizeLedger & CardOnShowStore
    private let queue = DispatchQueue(label: "scratchcard.store-writer", qos: .userInitiated)
    let path: String
    /// Said once until a write works again; touched on `queue` only.
    private var reportedFailure = false

    init(_ store: any PrizeLedger & CardOnShowStore) {
        self.store = store
        path = store.path
    }

    /// Runs `body` on the queue after everything sent before, and returns its answer.
    func now<T>(_ body: (any PrizeLedger & CardOnShowStore) throws(StoreError) -> T) throws(StoreError) -> T {
        let result: Result<T, StoreError> = queue.sync { Result { () throws(StoreError) -> T in try body(store) } }
        return try result.get()
    }

    func dealtCounts() throws(StoreError) -> [String: Int] { try now { s throws(StoreError) in try s.dealtCounts() } }
    func pendingDeals() throws(StoreError) -> [DealID] { try now { s throws(StoreError) in try s.pendingDeals() } }
    func pendingDeal() throws(StoreError) -> PendingDeal? { try now { s throws(StoreError) in try s.pendingDeal() } }
    func deal(_ card: DeckCard, shownAt: Double, ending: (deal: DealID, outcome: OutcomeRecord)?,
              id: DealID? = nil) throws(StoreError) -> DealID? {
        try now { s throws(StoreError) in
            // A chosen id (a claim card's, whose code is on its prize) needs the kiosk's store.
            if let id, let kiosk = s as? KioskStore { return try kiosk.deal(card, shownAt: shownAt, ending: ending, id: id) }
            return try s.deal(card, shownAt: shownAt, ending: ending)
        }
    }
    @discardableResult
    func finish(_ deal: DealID, outcome: OutcomeRecord) throws(StoreError) -> Bool {
        try now { s throws(StoreError) in try s.finish(deal, outcome: outcome) }
    }

    /// Sends a batch of strokes to be committed; a failure is said on stderr (once).
    /// Batches sent while a commit is still syncing wait together and go in one commit
    /// after it: a disk that stalls for a second delays the strokes by that second and
    /// one commit, not by a queue of commits that grew meanwhile.
    func saveStrokesLater(_ deal: DealID, lines: String, lastTouch: Double) {
        let first = waiting.withLock { batches -> Bool in
            batches.append(StrokeBatch(deal: deal, lines: lines, lastTouch: lastTouch))
            return batches.count == 1
        }
        if first { queue.async { [self] in saveWaitingStrokes() } }
    }

    /// One batch of strokes on its way to the store.
    private struct StrokeBatch { let deal: DealID, lines: String, lastTouch: Double }
    /// Batches sent and not yet taken by a commit.
    private let waiting = Mutex<[StrokeBatch]>([])

    /// Commits every batch waiting, one transaction per card (there is one card unless a
    /// card ended meanwhile). Runs on `queue`, where it was sent after everything sent
    /// before the first of these batches.
    private func saveWaitingStrokes() {
        let batches = waiting.withLock { batches in
            defer { batches = [] }
            return batches
        }
        var index = batches.startIndex
        while index < batches.endIndex {
            let deal = batches[index].deal
            let run = batches[index...].prefix { $0.deal == deal }
            let lines = run.map(\.lines).joined(), lastTouch = run.last!.lastTouch
            record("save the strokes") { () throws(StoreError) in try store.saveStrokes(deal, lines: lines, lastTouch: lastTouch) }
            index = run.endIndex
        }
    }

    /// Sends the reveal to be committed.
    func saveRevealLater(_ deal: DealID, how: RevealCause, afterMilliseconds: Int, fraction: Double) {
        queue.async { [self] in
            record("save the reveal") { () throws(StoreError) in
                try store.saveReveal(deal, how: how, afterMilliseconds: afterMilliseconds, fraction: fraction)
            }
        }
    }

    private func record(_ what: String, _ write: () throws(StoreError) -> Void) {
        do {
            try write()
            reportedFailure = false
        } catch {
            guard !reportedFailure else { return }
            reportedFailure = true
            log("cannot \(what): \(error); the card on show carries on")
        }
    }
}
