import Foundation
import ScratchCore
import ScratchStore
import CardRules

/// The window's record of its cards: the store (`StoreKeeper`: deals, stock, strokes,
/// the card on show, the pool), when the window keeps one, and the outcome log (`--log`).
/// The loop hands it what it needs (a made card, the outcome of the card on show, strokes)
/// and it answers what the loop must do: show the card or not, deal again, wait.
///
/// - A deal is committed (the card before it ending in the same transaction) before the
///   new card's first pixel (`take`); the old card's `--log` line follows the commit.
/// - Strokes are kept for the store in batches (`keep`, `flushIfDue`); the reveal is
///   saved at once (`noticed`).
final class StoreSide {
    private let keeper: StoreKeeper?
    private let outcomeLog: OutcomeLog?
    /// The card file's own card options read at start (SIGHUP leaves them: `reloadDeck`).
    private let cardSettings: CardSettings
    /// True when claim cards can be dealt (`--claim-key` was given).
    private let makesClaims: Bool

    /// Opens `--log` and the store the options ask for (StoreKeeper.open), its stock
    /// drawn from the dealer's deck; bad ones end the program, exit 2.
    init(options: WindowOptions, dealer: Dealer) throws(ExitError) {
        do { outcomeLog = try options.log.map { path throws(OutcomeLogError) in try OutcomeLog(path: path) } } catch {
            throw ExitError(code: 2, message: "\(error)")
        }
        cardSettings = dealer.settings
        makesClaims = dealer.claims != nil
        keeper = try StoreKeeper.open(options: options, deck: dealer.deck, source: dealer.source, outcomeLog: outcomeLog,
                                      claims: dealer.claims)
    }

    // MARK: The first card

    /// The dealer draws from the store's stock and pool, when the store keeps them.
    func supply(_ dealer: inout Dealer) {
        dealer.stock = keeper?.book
        dealer.pool = keeper?.pool
    }

    /// The first card, made before the window exists: with a store, the card it holds as
    /// on show, or a deal committed now. Bad input ends the program with exit code 2 (1
    /// when the installation's own card is damaged).
    func firstCard(dealer: Dealer) throws(ExitError) -> DealtCard {
        if let keeper { return try keeper.firstCard(dealer: dealer, outcomeLog: outcomeLog) }
        do { return try dealer.deal() } catch { throw ExitError(code: error.exitCode, message: "\(error)") }
    }

    /// The deal taken up again at start, if the store held one.
    var resumed: PendingDeal? { keeper?.resumed }

    /// The resumed card's mask at `size` (StoreKeeper.resumedMask); nil for a fresh card.
    func resumedMask(size: PixelSize, images: CardImages, filledCover: RGBAImage?, zones: ZoneCard?) -> Mask? {
        keeper?.resumedMask(size: size, images: images, filledCover: filledCover, zones: zones)
    }

    /// A resumed zone card's started zones, in order (StoreKeeper.resumedZoneOrder).
    var resumedZoneOrder: [Int] { keeper?.resumedZoneOrder ?? [] }

    /// When the resumed card was last touched, on the monotonic clock.
    func resumedLastTouch(now: Double) -> Double? { keeper?.resumedLastTouch(now: now) }

    /// The first card's state machine as the store holds it; nil without a store.
    func firstSession(card: DealtCard, revealAt: Double, fraction: Double, now: Double) -> CardSession? {
        keeper?.firstSession(card: card, revealAt: revealAt, fraction: fraction, now: now)
    }

    // MARK: The card on show

    /// The card on show's deal; nil without a store or while a card of no deal is on show.
    var deal: DealID? { keeper?.deal }
    /// True while the sold-out card is on show: no timers deal again (SIGHUP does).
    var showsSoldOut: Bool { keeper?.showsSoldOut ?? false }
    /// SIGHUP brought stock while the sold-out card is on show.
    var restocked: Bool { keeper?.restocked == true }
    /// With `--pool`: the pool is out of reach now (or "back in a moment" is on show).
    var poolOffline: Bool { keeper.map { $0.showsBackSoon || $0.pool.map { !$0.isOnline } == true } ?? false }
    /// True when the window keeps a store (SIGHUP reloads its deck).
    var keepsStore: Bool { keeper != nil }
    /// The store through its writer's queue, for the claim tickets it keeps (ClaimTickets.swift).
    var ticketStore: (any LocalStoreAccess)? { keeper?.store }

    /// One stroke record of the card on show (at `canvas`, with a brush of `brush`
    /// pixels), on its way to the store.
    func keep(_ record: StrokeLog.Record, canvas: PixelSize, brush: Double, now: Double) {
        keeper?.keep(record, canvas: canvas, brush: brush, now: now)
    }

    /// When the strokes waiting must be saved, if any wait.
    var flushDue: Double? { keeper?.flushDue }

    func flushIfDue(now: Double) { keeper?.flushIfDue(now: now) }

    /// Events of the card on show that the store must know at once: the reveal.
    func noticed(_ events: [CardEvent]) { keeper?.noticed(events) }

    // MARK: A new card

    /// What `take` found.
    enum Taken {
        /// Show the made card (after the `sold-out` event, when `announcingSoldOut`);
        /// the next deal waits until `retryDealAt`, if given.
        case show(announcingSoldOut: Bool, retryDealAt: Double?)
        /// Not shown: the stock ran out since the draw; another card must be dealt.
        case dealAgain
        /// Not shown: the card on show stays (the next deal waits until `retryDealAt`).
        case keepCardOnShow(retryDealAt: Double?)
    }

    /// The made card may be shown: with a store, the card on show ends (`ending`, its
    /// outcome; `onShow`, its id) and the new deal is recorded, in one transaction,
    /// before anything of the new card is drawn; the old card's line goes to `--log`
    /// after the commit. Not shown: the stock ran out since the draw (another card is
    /// wanted), or the store failed (the card on show stays and the deal is tried again
    /// in 5 s).
    func take(_ made: CardMaker.Made, ending record: OutcomeRecord, onShow: String, now: Double) -> Taken {
        guard let keeper else {
            appendToLog(record)
            return .show(announcingSoldOut: false, retryDealAt: nil)
        }
        // Drawn from a deck SIGHUP has since replaced (made ahead, or on its way during
        // the reload): its images came from the old file. Nothing changes; a card of the
        // new deck is dealt in its place (a pool's take is given back).
        if let edition = made.card.deckEdition, let book = keeper.book, edition != book.edition.number {
            if let taken = made.card.poolTake { keeper.pool?.release(taken) }
            return .dealAgain
        }
        if let pool = keeper.pool { return takeFromPool(made, ending: record, onShow: onShow, now: now, keeper: keeper, pool: pool) }
        let ending = keeper.deal.map { ($0, record) }
        keeper.dropBatch()
        if made.card.soldOut, let book = keeper.book, book.canDeal {
            return .dealAgain       // made before the deck gained stock: deal again
        }
        do {
            if made.card.soldOut {
                if let (deal, record) = ending, try keeper.store.finish(deal, outcome: record) { appendToLog(record) }
                keeper.noteSoldOut()
                return .show(announcingSoldOut: true, retryDealAt: nil)
            }
            guard let deal = try keeper.store.deal(keeper.deckCard(of: made.card),
                                                   shownAt: Date().timeIntervalSince1970, ending: ending, id: made.card.claimDeal) else {
                keeper.book?.replace(dealt: try keeper.store.dealtCounts())
                return .dealAgain
            }
            keeper.showing(deal)
            keeper.book?.counted(made.card.id)
            if ending != nil { appendToLog(record) }
            return .show(announcingSoldOut: false, retryDealAt: nil)
        } catch {
            keeper.report(error, doing: "record the deal")
            return .keepCardOnShow(retryDealAt: monotonicSeconds() + 5)
        }
    }

    /// `take` with a pool (`--pool`): the taken deal is recorded (the card on show ending
    /// in the same local transaction) before the new card's first pixel. Sold out or back
    /// in a moment again, while the same card is on show: nothing changes on screen, and
    /// the pool is asked again later.
    private func takeFromPool(_ made: CardMaker.Made, ending record: OutcomeRecord, onShow: String, now: Double,
                              keeper: StoreKeeper, pool: PoolLedger) -> Taken {
        if made.card.soldOut && keeper.deal == nil && made.card.id == onShow {
            return .keepCardOnShow(retryDealAt: made.card.backSoonUntil ?? now + 30)
        }
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
                return .show(announcingSoldOut: false, retryDealAt: until)
            }
            keeper.noteSoldOut()
            return .show(announcingSoldOut: true, retryDealAt: now + 30)
        }
        guard let taken = made.card.poolTake else { return .keepCardOnShow(retryDealAt: nil) }
        keeper.dropBatch()
        do { try pool.record(taken, shownAt: Date().timeIntervalSince1970, ending: ending) } catch {
            keeper.report(error, doing: "record the deal")
            pool.release(taken)
            return .keepCardOnShow(retryDealAt: now + 5)
        }
        keeper.showing(taken.deal)
        if ending != nil { appendToLog(record) }
        return .show(announcingSoldOut: false, retryDealAt: nil)
    }

    // MARK: The end, and SIGHUP

    /// The card on show ends for good (the program is quitting): its outcome, once, in
    /// the store, then its line in `--log`.
    func finish(_ record: OutcomeRecord) {
        if let keeper {
            guard let deal = keeper.deal else { return }
            keeper.flush()
            do {
                guard try keeper.finishDeal(deal, outcome: record) else { return }
            } catch {
                keeper.report(error, doing: "record the outcome")
                return
            }
        }
        appendToLog(record)
    }

    private func appendToLog(_ record: OutcomeRecord) {
        guard let outcomeLog else { return }
        do { try outcomeLog.append(record) } catch { log("\(error)") }
    }

    /// SIGHUP with a store: the deck (`path`; a card file when `asCardFile` or as told
    /// by `LoadedDeck`) is read again whole and checked as at start (its sounds decoded,
    /// its claim cards need `--claim-key`), then it and where its files are read (a card
    /// file's entries as they are now) replace the old ones in the stock book at once,
    /// with the counts: from then on every card is drawn from the new deck and read from
    /// the new file, and a card drawn before is not shown (`take`). A deck that does not
    /// load or check leaves the old deck and the old file dealing. True when a kiosk
    /// showing the sold-out card should deal at once (the deck gained stock).
    ///
    /// A card file's own card options (reveal-at, brush, celebrate) are not applied: the
    /// window keeps those it started with, as it keeps every option of the command line
    /// and the configuration file (SIGHUP reloads the deck, not the options) and as it
    /// does for a dropped card file. The brush sizes the canvases already made, the
    /// scratch sound and the strokes the store keeps; a threshold changed under a card
    /// in play would change its rules. Options take effect at the next start, and a line
    /// says so when the reloaded file's differ from those read at start.
    func reloadDeck(_ path: String?, asCardFile: Bool) -> Bool {
        guard let keeper, let book = keeper.book, let path else {
            log("SIGHUP: no deck to reload")
            return false
        }
        let loaded: LoadedDeck
        do {
            loaded = try LoadedDeck.load(path: path, asCardFile: asCardFile)
            try Dealer.checkSounds(of: loaded.deck, path: path, source: loaded.source)
            if !makesClaims, let problem = ClaimMaker.needsKey(loaded.deck) { throw DeckError(path: path, message: problem) }
            book.reload(deck: loaded.deck, source: loaded.source, dealt: try keeper.store.dealtCounts())
        } catch {
            log("SIGHUP: the deck did not reload, the old one goes on dealing: \(error)")
            return false
        }
        log("SIGHUP: reloaded the deck \(path) (\(loaded.deck.cards.count) cards)")
        if loaded.settings != cardSettings {
            log("SIGHUP: \(path) sets other card options (reveal-at, brush, celebrate) than at start: they take effect at the next start")
        }
        Dealer(deck: loaded.deck, source: loaded.source).lookUpFonts(deckPath: path)
        guard keeper.showsSoldOut, book.canDeal else { return false }
        keeper.noteRestocked()
        return true
    }

    /// At the end: what the pool must still be told is sent, for a moment at most (what
    /// is left stays queued in the store and goes at the next start).
    func sendToPoolAtQuit() {
        guard let pool = keeper?.pool else { return }
        let left = pool.drain(timeout: 2).waiting
        if left > 0 { log("\(left) records wait for the pool in the store; they are sent at the next start") }
    }
}
