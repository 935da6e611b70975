@preconcurrency import Glibc
import CardRules
import Foundation
import Synchronization
import ScratchCore
import ScratchImage
import ScratchStore

/// The window's store (ScratchStore's `KioskStore`), kept for the loop by `StoreSide`:
/// the card on show's deal, its strokes on their way to the disk, the stock the dealer
/// draws from.
///
/// - A deal is committed (card, prize, time, a unique id; the card before it ended, in
///   the same transaction) before the card's first pixel is put: at start-up before the
///   window maps, later in `StoreSide.take` before the new canvas replaces the old one.
/// - Strokes are saved in batches (`StrokeBatch`): at each pen-up, and `flushInterval`
///   after the first unsaved record while a pen moves (the loop wakes for it). One commit
///   (one fsync of the WAL) per batch, never one per event, made on the store's own queue
///   (`StoreWriter`) so that the loop never waits for the disk while a pen moves.
/// - The reveal is saved at once, with the strokes before it.
final class StoreKeeper {
    let store: StoreWriter
    /// Nil without a deck: the options' one card, unlimited.
    let book: StockBook?
    /// The card on show's deal; nil while the sold-out card is on show.
    var deal: DealID?
    /// The deal taken up again at start, if the store held one.
    private(set) var resumed: PendingDeal?
    /// A resumed zone card's started zones, in order, as its strokes replayed them.
    private(set) var resumedZoneOrder: [Int] = []
    /// True while the sold-out card is on show.
    var showsSoldOut = false
    /// With `--pool`: the shared pool, this store beside it (StoreKeeper+Pool.swift).
    var pool: PoolLedger?
    /// With `--pool`: "back in a moment" is on show (the pool is out of reach).
    var showsBackSoon = false
    /// SIGHUP brought stock while the sold-out card is on show: deal as soon as a card is made.
    private(set) var restocked = false

    /// The card on show's strokes waiting to be saved.
    private var strokes = StrokeBatch()
    private var reportedFailure = false

    /// The cover of cards without one of their own (`--cover`; nil: the built-in foil).
    let defaultCover: String?

    private init(store: KioskStore, book: StockBook?, defaultCover: String?) {
        self.store = StoreWriter(store)
        self.book = book
        self.defaultCover = defaultCover
    }

    /// The store the options ask for (kiosk mode: always; desktop: with `--store`),
    /// opened for the kiosk. A damaged store is moved aside and a new one started (on
    /// stderr and in `--log`); a newer, locked, unwritable one ends the program, exit 2.
    /// `deck` and `source`: the deck the stock is drawn from, and where its files are read.
    static func open(options: WindowOptions, deck: Deck?, source: CardSource, outcomeLog: OutcomeLog?,
                     claims: ClaimMaker?) throws(ExitError) -> StoreKeeper? {
        guard let path = options.store ?? (options.kiosk || options.pool != nil ? KioskStore.defaultPath(environment: ProcessInfo.processInfo.environment) : nil) else {
            return nil
        }
        let store: KioskStore
        do {
            store = try openMovingAside(path, outcomeLog: outcomeLog)
            if options.verbose { log("store: \(path)") }
            let book = try deck.map { deck throws(StoreError) in StockBook(deck: deck, source: source, dealt: try store.dealtCounts()) }
            store.claimIssuer = claims?.issuer
            let keeper = StoreKeeper(store: store, book: book, defaultCover: options.cover)
            keeper.pool = try openPool(options: options, writer: keeper.store, claims: claims)
            // No pool: claims from before schema 4 are the store's own (a pool's ledger gives them to its pool).
            if keeper.pool == nil { try keeper.store.run { s throws(StoreError) in _ = try s.settleClaims(pool: nil) } }
            return keeper
        } catch {
            throw ExitError(code: 2, message: "\(error)")
        }
    }

    private static func openMovingAside(_ path: String, outcomeLog: OutcomeLog?) throws(StoreError) -> KioskStore {
        do {
            return try KioskStore(path: path, access: .kiosk)
        } catch where error.kind == .corrupt {
            let aside = try KioskStore.moveAside(path)
            let message = "\(error.message): moved aside as \(aside); starting a new store"
            log("\(path): \(message)")
            outcomeLog?.note("{\"notice\":\"store-moved-aside\",\"store\":\(JSONText.quoted(path)),\"moved_to\":\(JSONText.quoted(aside)),"
                             + "\"reason\":\(JSONText.quoted(error.message))}")
            return try KioskStore(path: path, access: .kiosk)
        }
    }

    /// The card to show first: the one the store holds as on show, taken up again (its
    /// images loaded again), else a new deal, committed. A card that cannot be taken up
    /// (its image gone) ends as abandoned and a new one is dealt.
    func firstCard(dealer: Dealer, outcomeLog: OutcomeLog?) throws(ExitError) -> DealtCard {
        do {
            let pending = try store.pendingDeals()
            // More than one: only the last can be on show; the others end (never happens
            // unless a store was edited by hand).
            for stale in pending.dropLast() { try end(stale, outcomeLog: outcomeLog) }
            if let held = try store.pendingDeal() {
                do {
                    // The deck's entry when it still has the card (a text card is drawn
                    // from it), else the files the deal recorded.
                    let dealtCard: DealtCard
                    if let card = book?.deck.cards.first(where: { $0.id == held.cardID }) {
                        dealtCard = try dealer.dealt(card, deal: held.deal)
                    } else {
                        let images = try CardImages.load(cover: held.cover, prize: held.prize == "built-in" || held.prize.isEmpty ? nil : held.prize,
                                                         source: dealer.source)
                        dealtCard = DealtCard(id: held.cardID, prize: held.prize, images: images)
                    }
                    resumed = held
                    deal = held.deal
                    return dealtCard
                } catch {
                    log("cannot take up the card on show (\(held.cardID)): \(error); it ends as abandoned")
                    try end(held.deal, outcomeLog: outcomeLog)
                }
            }
        } catch {
            throw ExitError(code: 2, message: "\(error)")
        }
        if pool != nil { return try firstPoolCard(dealer: dealer) }
        for _ in 0..<100 {
            let card: DealtCard
            do throws(ImageError) {
                if let book { card = try dealer.deal(from: book) } else { card = try dealer.deal() }
            } catch {
                throw ExitError(code: error.exitCode, message: "\(error)")
            }
            if card.soldOut {
                noteSoldOut()
                return card
            }
            do {
                if let id = try store.deal(deckCard(of: card), shownAt: Date().timeIntervalSince1970, ending: nil, id: card.claimDeal) {
                    deal = id
                    book?.counted(card.id)
                    return card
                }
                book?.replace(dealt: try store.dealtCounts())
            } catch {
                throw ExitError(code: 2, message: "\(error)")
            }
        }
        throw ExitError(code: 2, message: "\(store.path): could not deal a card")
    }

    /// A pending deal that will not be shown ends as abandoned, in the store and the log.
    private func end(_ stale: DealID, outcomeLog: OutcomeLog?) throws(StoreError) {
        let record = OutcomeRecord(shownAt: Date().timeIntervalSince1970, cardID: "", prize: "", outcome: .abandoned, how: nil,
                                   fraction: 0, revealMilliseconds: nil, durationMilliseconds: 0)
        try finishDeal(stale, outcome: record)
    }

    /// The deck entry a dealt card is recorded as (its stock with it); the options'
    /// one card is unlimited. The cover recorded is the one shown (nil: the built-in foil).
    func deckCard(of card: DealtCard) -> DeckCard {
        let cover = card.deckCard?.cover ?? defaultCover
        return DeckCard(id: card.id, prize: card.prize, cover: cover, weight: card.deckCard?.weight ?? 1, stock: card.deckCard?.stock,
                        claim: card.deckCard?.claim ?? false)
    }

    func noteSoldOut() {
        if !showsSoldOut { log("all prizes have been given away: the sold-out card is on show until the deck gains stock (SIGHUP reloads it)") }
        showsSoldOut = true
        showsBackSoon = false
        deal = nil
    }

    /// A new deal is on show (recorded in the store): no sold-out or "back in a moment"
    /// card any more.
    func showing(_ deal: DealID) {
        self.deal = deal
        showsSoldOut = false
        showsBackSoon = false
        restocked = false
    }

    /// SIGHUP brought stock while the sold-out card is on show.
    func noteRestocked() {
        restocked = true
    }

    /// The state machine of the first card: taken up as it was (shown so long ago,
    /// touched, revealed), the sold-out card as done, else fresh.
    func firstSession(card: DealtCard, revealAt: Double, fraction: Double, now: Double) -> CardSession {
        if card.soldOut { return Self.soldOutSession(revealAt: revealAt, now: now, cardID: card.id) }
        guard let held = resumed else { return CardSession(cardID: card.id, revealAt: revealAt, now: now) }
        let elapsed = Date().timeIntervalSince1970 - held.shownAt
        return CardSession(resuming: held.cardID, revealAt: revealAt, now: now, shownSecondsAgo: elapsed,
                           touched: held.lastTouch != nil, fraction: fraction,
                           reveal: held.reveal.map { ($0.how, Double($0.afterMilliseconds) / 1000, $0.fraction) })
    }

    static func soldOutSession(revealAt: Double, now: Double, cardID: String = "sold-out") -> CardSession {
        CardSession(resuming: cardID, revealAt: revealAt, now: now, shownSecondsAgo: 0, touched: false, fraction: 1,
                    reveal: (.keyboard, 0, 1))
    }

    /// The resumed card's mask at `size`: its saved strokes replayed through the engine
    /// (at the canvas sizes they were made at, then carried to this one as a resize
    /// would), revealed whole if it was revealed. Nil for a fresh card. Strokes that do
    /// not read are reported and dropped (the card is shown as far as they went).
    /// `filledCover` nil: the cover is the built-in foil, opaque (nothing revealed from the start).
    func resumedMask(size: PixelSize, images: CardImages, filledCover: RGBAImage?, zones: ZoneCard? = nil) -> Mask? {
        guard let held = resumed, !held.strokes.isEmpty else { return nil }
        let strokes: StrokeLog
        do { strokes = try StrokeLog(parsing: held.strokes, name: "\(store.path), deal \(held.deal)") } catch {
            log("\(error); the card is shown without them")
            return nil
        }
        // A zone card's strokes (and keys' opens) go through its zones again, as they did
        // in the window: the zones started come back in the order they took ink, which
        // gives each its symbol (the i-th started shows symbols[i]).
        func withZones(_ mask: Mask, _ previous: Mask?) -> Mask {
            guard let zones else { return mask }
            var mask = mask
            mask.setZones(zones.outlines(in: mask.size), touchOrder: previous?.zones?.touchOrder ?? [],
                          touchLimit: zones.pick ?? zones.zones.count)
            return mask
        }
        let mask = strokes.replay(to: size) { canvasSize, previous in
            guard let filledCover else { return withZones(Mask(size: canvasSize, keeping: previous, cover: nil), previous) }
            return withZones(Mask(size: canvasSize, keeping: previous,
                                  cover: canvasSize == size ? filledCover : images.filling(canvasSize).cover), previous)
        }
        resumedZoneOrder = mask.zones?.touchOrder ?? []
        return mask
    }

    /// When the resumed card was last touched, on the monotonic clock.
    func resumedLastTouch(now: Double) -> Double? {
        guard let touched = resumed?.lastTouch else { return nil }
        return now - Swift.max(0, Date().timeIntervalSince1970 - touched)
    }

    // MARK: Strokes

    /// One stroke record of the card on show, on its way to the store.
    func keep(_ record: StrokeLog.Record, canvas: PixelSize, brush: Double, now: Double) {
        guard deal != nil else { return }
        strokes.add(record, canvas: canvas, brush: brush, now: now)
    }

    /// When the strokes waiting must be saved, if any wait.
    var flushDue: Double? { strokes.due }

    func flushIfDue(now: Double) {
        if let due = flushDue, now >= due { flush() }
    }

    /// Saves the strokes waiting, in one transaction.
    func flush() {
        guard !strokes.isEmpty, let deal else { return }
        let lastTouch = strokes.lastTouchWallClock
        store.saveStrokesLater(deal, lines: strokes.take(), lastTouch: lastTouch)
    }

    /// Events of the card on show that the store must know at once: the reveal.
    func noticed(_ events: [CardEvent]) {
        guard let deal else { return }
        for case let .revealed(_, how, fraction, milliseconds) in events {
            flush()
            store.saveRevealLater(deal, how: how, afterMilliseconds: milliseconds, fraction: fraction)
        }
    }

    /// A failed write: said once until writes work again; the card on show carries on.
    func report(_ error: StoreError, doing what: String) {
        guard !reportedFailure else { return }
        reportedFailure = true
        log("cannot \(what): \(error); the card on show carries on")
    }

    /// Strokes waiting are dropped: their card is ending.
    func dropBatch() {
        strokes.drop()
    }
}
