import Foundation
import ScratchCore

/// The loop's side of dealing: asking the card maker for a card (`r`, a kiosk reset, or
/// ahead of time in kiosk mode), taking it when it is ready and showing it. The making
/// itself (deal, decode, scale, convert) happens on the card maker's worker
/// (CardMaker.swift), so the loop goes on reading input and repainting meanwhile: the
/// card on show stays live until the new one replaces it.
extension WindowApp {
    /// `r`, or a kiosk reset: a new card in place of this one. Shown at once when one is
    /// ready; otherwise asked for, and shown when it arrives (`r`) or when the loop next
    /// finds the reset due (kiosk mode: a touch meanwhile puts the reset off, and the card
    /// made waits as the spare). A second `r` while one is on its way adds nothing.
    func dealNewCard() {
        guard let made = cardMaker.takeSpare() else {
            newCardWanted = true
            cardMaker.startDeal()       // nothing more if one is on its way already
            return
        }
        newCardWanted = false
        show(made)
    }

    /// Kiosk mode: the next card, dealt and made ready while the revealed one is on show,
    /// so that the reset itself costs no visible pause. Asked for once per card, even
    /// when it fails.
    func prepareNextCard() {
        guard !triedNextCard else { return }
        triedNextCard = true
        cardMaker.startDeal()
    }

    /// After each wake: what the card maker finished, if anything. A card asked for with
    /// `r` is shown now; a kiosk reset's is shown by `runTimers` if the reset is still
    /// due. A card that could not be made keeps the current one, says why and, if a new
    /// card was wanted, waits 5 s before the kiosk tries again rather than at every wake.
    func collectMadeCard() {
        switch cardMaker.collect() {
        case nil:
            break
        case .ready:
            guard newCardWanted else { return }
            if options.kiosk { newCardWanted = false } else { dealNewCard() }
        case .failed(let reason):
            log("cannot deal a new card: \(reason)")
            if newCardWanted {
                newCardWanted = false
                retryDealAt = monotonicSeconds() + 5
            }
        }
    }

    /// At the end: a new card asked for and still on its way is waited for and shown,
    /// so that the events and the outcome log tell what the user did (`r`, then `q`).
    /// The loop is over: nothing is left to keep responsive.
    func finishNewCard() {
        guard newCardWanted else { return }
        switch cardMaker.finishMaking() {
        case .ready?: dealNewCard()
        case .failed(let reason)?: log("cannot deal a new card: \(reason)")
        case nil: break
        }
        newCardWanted = false
    }

    /// The made card replaces the one on show: the old one's record goes to the outcome
    /// log (before `new-card` is written), the new one starts fresh.
    func show(_ made: CardMaker.Made) {
        // With a store: the old card's outcome and the new deal, committed before the
        // first pixel of the new card (WindowApp+Store.swift).
        guard takeDeal(for: made) else { return }
        triedNextCard = false
        canvas = made.canvas
        card = made.card
        session = session(for: made, now: monotonicSeconds())
        startZones()
        shownAtWallClock = Date().timeIntervalSince1970
        shimmerCentre = nil
        endCelebration()
        if !recording.isEmpty, recording.last != .up { record(.up) }
        exposed = PixelRect(size: canvas.size)
        emit([.newCard(cardID: made.card.id, deal: storeKeeper?.deal)])
    }
}
