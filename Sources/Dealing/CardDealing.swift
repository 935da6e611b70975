import ScratchCore

/// The dealing of the next card: asking the card maker for one (`r`, a kiosk reset, or
/// ahead of time in kiosk mode) and handing it to the loop when it is made. The making
/// itself (deal, decode, scale, convert) happens on the card maker's worker
/// (CardMaker.swift), so the loop goes on reading input and repainting meanwhile: the
/// card on show stays live until the new one replaces it.
public final class CardDealing {
    private let maker: CardMaker
    /// A new card was asked for (`r`, a reset) and is on its way.
    public private(set) var newCardWanted = false
    /// Kiosk mode: the next card was asked for ahead of time, while this one is on show.
    public private(set) var askedForNextCard = false
    /// After a failed deal (or a store that could not record it), the kiosk's resets
    /// wait until then.
    public private(set) var retryDealAt = 0.0

    public init(maker: CardMaker) {
        self.maker = maker
    }

    /// The descriptor the loop polls beside the X connection: readable once a card is made.
    public var wakeDescriptor: Int32 { maker.wakeDescriptor }

    /// True while a card is on its way: it will wake the loop.
    public var isMaking: Bool { maker.isMaking }

    /// `r`, or a kiosk reset: a new card in place of this one. The made card when one
    /// is ready (the loop shows it); otherwise nil, and one is asked for: shown when it
    /// arrives (`r`) or when the loop next finds the reset due (kiosk mode: a touch
    /// meanwhile puts the reset off, and the card made waits as the spare). A second `r`
    /// while one is on its way adds nothing.
    public func newCard() -> CardMaker.Made? {
        guard let made = maker.takeSpare() else {
            dealAgain()
            return nil
        }
        newCardWanted = false
        return made
    }

    /// A new card is wanted and asked for (nothing more if one is on its way already):
    /// the one made could not be shown (the stock ran out since its draw).
    public func dealAgain() {
        newCardWanted = true
        maker.startDeal()
    }

    /// Kiosk mode: the next card, dealt and made ready while the revealed one is on show,
    /// so that the reset itself costs no visible pause. Asked for once per card, even
    /// when it fails.
    public func prepareNextCard() {
        guard !askedForNextCard else { return }
        askedForNextCard = true
        maker.startDeal()
    }

    /// What the store said of a made card (`Ledger.show`): true when it is to be
    /// shown; else another is dealt (the stock ran out since the draw) or the card on
    /// show stays. A time it gave is when the next deal may be tried (kiosk resets wait).
    public func follow(_ taken: Ledger.Shown) -> Bool {
        switch taken {
        case .dealAgain:
            dealAgain()
            return false
        case .keepCardOnShow(let retryAt):
            if let retryAt { retryDealAt = retryAt }
            return false
        case .show(_, let retryAt):
            if let retryAt { retryDealAt = retryAt }
            return true
        }
    }

    /// After each wake: what the card maker finished, if anything. True: a card asked for
    /// with `r` is ready, to be shown now (`newCard`); a kiosk reset's is shown by the
    /// kiosk's timers if the reset is still due. A card that could not be made keeps the
    /// current one, says why and, if a new card was wanted, waits 5 s before the kiosk
    /// tries again rather than at every wake.
    public func collect(kiosk: Bool) -> Bool {
        switch maker.collect() {
        case nil:
            return false
        case .ready:
            guard newCardWanted else { return false }
            if kiosk { newCardWanted = false }
            return !kiosk
        case .failed(let reason):
            log("cannot deal a new card: \(reason)")
            if newCardWanted {
                newCardWanted = false
                retryDealAt = monotonicSeconds() + 5
            }
            return false
        }
    }

    /// A new card is on show: the next one may be asked for ahead of time again.
    public func cardShown() {
        askedForNextCard = false
    }

    /// The window has a new size: a card made for the old size is re-made.
    public func resize(to size: PixelSize) {
        maker.resize(to: size)
        askedForNextCard = false
    }

    /// A dropped card file: the next cards (`r`) are dealt from `dealer`.
    public func replaceDealer(_ dealer: Dealer) {
        maker.replaceDealer(dealer)
    }

    /// A spare card made before SIGHUP reloaded the deck is dropped.
    public func dropSpare() {
        _ = maker.takeSpare()
    }

    /// At the end: a new card asked for and still on its way is waited for. True: it is
    /// ready, for the loop to show (`newCard`), so that the events and the outcome log
    /// tell what the user did (`r`, then `q`). The loop is over: nothing is left to keep
    /// responsive. Call `endWanting` after.
    public func waitForWantedCard() -> Bool {
        guard newCardWanted else { return false }
        switch maker.finishMaking() {
        case .ready?: return true
        case .failed(let reason)?: log("cannot deal a new card: \(reason)")
        case nil: break
        }
        return false
    }

    /// At the end, after `waitForWantedCard`: nothing more is wanted.
    public func endWanting() {
        newCardWanted = false
    }
}
