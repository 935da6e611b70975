@preconcurrency import Glibc
import Foundation
import ScratchCore
import ScratchImage
import ScratchStore

extension WindowApp {
    /// `takeDeal` with a pool: the taken deal is recorded (the card on show ending in the
    /// same local transaction) before the new card's first pixel. Sold out or back in a
    /// moment again, while the same card is on show: nothing changes on screen, and the
    /// pool is asked again later.
    func takePoolDeal(for made: CardMaker.Made, keeper: StoreKeeper, pool: PoolLedger) -> Bool {
        let now = monotonicSeconds()
        if made.card.soldOut && keeper.deal == nil && made.card.id == card.id {
            retryDealAt = made.card.backSoonUntil ?? now + 30
            return false
        }
        let record = session.outcome(prize: card.prize, shownAtWallClock: shownAtWallClock, fraction: canvas.revealedFraction,
                                     now: now, endedBy: false)
        let ending = keeper.deal.map { ($0, record) }
        if made.card.soldOut {
            keeper.dropBatch()
            if let (deal, record) = ending {
                do { if try pool.finish(deal, outcome: record) { appendToLog(record) } } catch {
                    keeper.report(error, doing: "record the outcome")
                }
            }
            if let until = made.card.backSoonUntil {
                keeper.noteBackSoon()
                retryDealAt = until
            } else {
                keeper.showsBackSoon = false
                keeper.noteSoldOut()
                emit([.soldOut])
                retryDealAt = now + 30
            }
            return true
        }
        guard let taken = made.card.poolTake else { return false }
        keeper.dropBatch()
        do { try pool.record(taken, shownAt: Date().timeIntervalSince1970, ending: ending) } catch {
            keeper.report(error, doing: "record the deal")
            pool.release(taken)
            retryDealAt = now + 5
            return false
        }
        keeper.deal = taken.deal
        keeper.showsSoldOut = false
        keeper.showsBackSoon = false
        keeper.restocked = false
        if ending != nil { appendToLog(record) }
        return true
    }

    /// At the end: what the pool must still be told is sent, for a moment at most (what
    /// is left stays queued in the store and goes at the next start).
    func sendToPoolAtQuit() {
        guard let pool = storeKeeper?.pool else { return }
        let left = pool.drain(timeout: 2).waiting
        if left > 0 { log("\(left) records wait for the pool in the store; they are sent at the next start") }
    }
}
