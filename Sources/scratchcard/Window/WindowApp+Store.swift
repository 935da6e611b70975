@preconcurrency import Glibc
import Foundation
import Synchronization
import ScratchCore
import ScratchImage
import ScratchStore

extension WindowApp {
    /// Records a stroke of the card on show for the store.
    func keep(_ record: StrokeLog.Record) {
        storeKeeper?.keep(record, canvas: canvas.size, brush: brush.radius, now: monotonicSeconds())
    }

    /// The made card may be shown: with a store, the card on show ends and the new deal
    /// is recorded, in one transaction, before anything of the new card is drawn; the
    /// old card's line goes to `--log` after the commit. False: not shown (the stock ran
    /// out since the draw: another card is on its way; or the store failed: the card on
    /// show stays and the deal is tried again in 5 s).
    func takeDeal(for made: CardMaker.Made) -> Bool {
        guard let keeper = storeKeeper else {
            logOutcome(quitting: false)
            return true
        }
        if let pool = keeper.pool { return takePoolDeal(for: made, keeper: keeper, pool: pool) }
        let record = session.outcome(prize: card.prize, shownAtWallClock: shownAtWallClock, fraction: canvas.revealedFraction,
                                     now: monotonicSeconds(), endedBy: false)
        let ending = keeper.deal.map { ($0, record) }
        keeper.dropBatch()
        if made.card.soldOut, let book = keeper.book, book.canDeal {
            // Made before the deck gained stock: deal again.
            newCardWanted = true
            cardMaker.startDeal()
            return false
        }
        do {
            if made.card.soldOut {
                if let (deal, record) = ending, try keeper.store.finish(deal, outcome: record) { appendToLog(record) }
                keeper.noteSoldOut()
                emit([.soldOut])
                return true
            }
            guard let deal = try keeper.store.deal(keeper.deckCard(of: made.card),
                                                   shownAt: Date().timeIntervalSince1970, ending: ending) else {
                keeper.book?.replace(dealt: try keeper.store.dealtCounts())
                newCardWanted = true
                cardMaker.startDeal()
                return false
            }
            keeper.deal = deal
            keeper.showsSoldOut = false
            keeper.restocked = false
            keeper.book?.counted(made.card.id)
            if ending != nil { appendToLog(record) }
            return true
        } catch {
            keeper.report(error,
                          doing: "record the deal")
            retryDealAt = monotonicSeconds() + 5
            return false
        }
    }

    /// The state machine of a card just shown.
    func session(for made: CardMaker.Made, now: Double) -> CardSession {
        made.card.soldOut ? StoreKeeper.soldOutSession(revealAt: options.revealAtPercent / 100, now: now, cardID: made.card.id)
            : CardSession(cardID: made.card.id, revealAt: options.revealAtPercent / 100, now: now)
    }

    /// The card on show ends for good (the program is quitting): its outcome, once, in
    /// the store; true when the `--log` line should follow.
    func finishInStore(_ record: OutcomeRecord) -> Bool {
        guard let keeper = storeKeeper else { return true }
        guard let deal = keeper.deal else { return false }
        keeper.flush()
        do { return try keeper.finishDeal(deal, outcome: record) } catch {
            keeper.report(error,
                          doing: "record the outcome")
            return false
        }
    }

    func appendToLog(_ record: OutcomeRecord) {
        guard let outcomeLog else { return }
        do { try outcomeLog.append(record) } catch { log("\(error)") }
    }

    /// SIGHUP with a store: the deck is read again and the counts with it; a kiosk
    /// showing the sold-out card deals at once if the deck gained stock. A deck that does
    /// not load leaves the old one dealing.
    func reloadDeck() {
        guard let keeper = storeKeeper, let book = keeper.book, let path = options.deck else {
            log("SIGHUP: no deck to reload")
            return
        }
        do {
            let deck = try Deck.load(path: path)
            book.replace(deck: deck, dealt: try keeper.store.dealtCounts())
            log("SIGHUP: reloaded the deck \(path) (\(deck.cards.count) cards)")
        } catch {
            log("SIGHUP: the deck did not reload, the old one goes on dealing: \(error)")
            return
        }
        if keeper.showsSoldOut, book.canDeal {
            keeper.restocked = true
            _ = cardMaker.takeSpare()       // a sold-out card made before the reload
            dealNewCard()
        }
    }

    /// True while the sold-out card is on show: no timers deal again (SIGHUP does).
    var showsSoldOut: Bool { storeKeeper?.showsSoldOut ?? false }
}
