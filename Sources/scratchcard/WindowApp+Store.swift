@preconcurrency import Glibc
import CardRules
import Foundation
import Synchronization
import ScratchCore
import ScratchImage
import ScratchStore

/// What the dealer draws from when a store keeps the stock: the deck (replaced when
/// SIGHUP reloads it) and how many of each card were dealt, shared between the loop
/// (which counts each deal it commits) and the card maker's worker (which draws).
final class StockBook: Sendable {
    private let state: Mutex<(deck: Deck, dealt: [String: Int])>

    init(deck: Deck, dealt: [String: Int]) { state = Mutex((deck, dealt)) }

    var deck: Deck { state.withLock { $0.deck } }

    /// A card by weight among those with stock left; nil when nothing can be dealt.
    func draw() -> DeckCard? {
        state.withLock { $0.deck.draw(left: $0.deck.left(dealt: $0.dealt)) }
    }

    /// True when some card can still be dealt.
    var canDeal: Bool {
        state.withLock { book in
            let left = book.deck.left(dealt: book.dealt)
            return book.deck.cards.contains { $0.weight > 0 && ($0.stock == nil || (left[$0.id] ?? 0) > 0) }
        }
    }

    func counted(_ cardID: String) { state.withLock { $0.dealt[cardID, default: 0] += 1 } }

    func replace(deck: Deck? = nil, dealt: [String: Int]) {
        state.withLock { book in
            if let deck { book.deck = deck }
            book.dealt = dealt
        }
    }
}

extension Dealer {
    /// A card from the stock book, or the sold-out card when nothing is left.
    func deal(from book: StockBook) throws(ImageError) -> DealtCard {
        guard let card = book.draw() else { return try soldOutCard() }
        return try dealt(card)
    }

    /// A deck card made ready as `deal()` makes a drawn one: its images (or text), its
    /// sound, its deck entry (with the stock).
    func dealt(_ card: DeckCard) throws(ImageError) -> DealtCard {
        let images = try CardImages.load(cover: card.cover ?? cover, prize: card.prize,
                                         prompt: card.coverText ?? coverText, text: card.text)
        return DealtCard(id: card.id, prize: card.prize ?? card.text?.title ?? card.id, images: images,
                         revealSound: Self.revealSound(card.sound), celebrate: card.celebrate, deckCard: card)
    }

    /// "All prizes have been given away": `--sold-out IMAGE` as both sides, else a text
    /// card drawn at the window's size (CardArt); nothing to scratch either way.
    func soldOutCard() throws(ImageError) -> DealtCard {
        let images: CardImages
        if let soldOutImage {
            let image = try ImageFile.read(path: soldOutImage)
            images = CardImages(cover: .image(image), prize: .image(image))
        } else {
            let text = CardText(title: "ALL PRIZES HAVE BEEN GIVEN AWAY", subtitle: "Thank you!",
                                colour: RGBA(r: 255, g: 255, b: 255), background: RGBA(r: 40, g: 51, b: 74))
            images = CardImages(cover: .text(text, background: nil), prize: .text(text, background: nil))
        }
        return DealtCard(id: "sold-out", prize: soldOutImage ?? "built-in", images: images, revealSound: nil, celebrate: false,
                         soldOut: true)
    }
}

/// The window's side of the store (ScratchStore's `KioskStore`): the card on show's
/// deal, its strokes on their way to the disk, the stock the dealer draws from.
///
/// - A deal is committed (card, prize, time, a unique id; the card before it ended, in
///   the same transaction) before the card's first pixel is put: at start-up before the
///   window maps, later in `show` before the new canvas replaces the old one.
/// - Strokes are saved in batches: at each pen-up, and `flushInterval` after the first
///   unsaved record while a pen moves (the loop wakes for it). One commit (one fsync of
///   the WAL) per batch, never one per event, made on the store's own queue
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
    /// True while the sold-out card is on show.
    var showsSoldOut = false
    /// With `--pool`: the shared pool, this store beside it (WindowApp+Pool.swift).
    var pool: PoolLedger?
    /// With `--pool`: "back in a moment" is on show (the pool is out of reach).
    var showsBackSoon = false
    /// SIGHUP brought stock while the sold-out card is on show: deal as soon as a card is made.
    var restocked = false

    private var batch = ""
    private var batchStarted: Double?
    private var batchCanvas: String?
    private var lastTouchWallClock = 0.0
    private var reportedFailure = false

    /// The longest a stroke waits before it is saved: under the 250 ms promised, with
    /// room for a pacer's slot and the commit's fsync on a busy disk (tens of ms).
    static let flushInterval = 0.15

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
    static func open(options: WindowOptions, deck: Deck?, outcomeLog: OutcomeLog?) throws(ExitError) -> StoreKeeper? {
        guard let path = options.store ?? (options.kiosk || options.pool != nil ? KioskStore.defaultPath(environment: ProcessInfo.processInfo.environment) : nil) else {
            return nil
        }
        let store: KioskStore
        do {
            store = try openMovingAside(path, outcomeLog: outcomeLog)
            if options.verbose { log("store: \(path)") }
            let book = try deck.map { deck throws(StoreError) in StockBook(deck: deck, dealt: try store.dealtCounts()) }
            let keeper = StoreKeeper(store: store, book: book, defaultCover: options.cover)
            keeper.pool = try openPool(options: options, writer: keeper.store)
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
                        dealtCard = try dealer.dealt(card)
                    } else {
                        let images = try CardImages.load(cover: held.cover, prize: held.prize == "built-in" || held.prize.isEmpty ? nil : held.prize)
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
                if let id = try store.deal(deckCard(of: card), shownAt: Date().timeIntervalSince1970, ending: nil) {
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
        return DeckCard(id: card.id, prize: card.prize, cover: cover, weight: card.deckCard?.weight ?? 1, stock: card.deckCard?.stock)
    }

    func noteSoldOut() {
        if !showsSoldOut { log("all prizes have been given away: the sold-out card is on show until the deck gains stock (SIGHUP reloads it)") }
        showsSoldOut = true
        deal = nil
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
    func resumedMask(size: PixelSize, images: CardImages, filledCover: RGBAImage?) -> Mask? {
        guard let held = resumed, !held.strokes.isEmpty else { return nil }
        let strokes: StrokeLog
        do { strokes = try StrokeLog(parsing: held.strokes, name: "\(store.path), deal \(held.deal)") } catch {
            log("\(error); the card is shown without them")
            return nil
        }
        return strokes.replay(to: size) { canvasSize, previous in
            guard let filledCover else { return Mask(size: canvasSize, keeping: previous, cover: nil) }
            return Mask(size: canvasSize, keeping: previous, cover: canvasSize == size ? filledCover : images.filling(canvasSize).cover)
        }
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
        let tag = StrokeLog.line(.canvas(canvas, brush: brush))
        if batchCanvas != tag {
            batch += tag + "\n"
            batchCanvas = tag
        }
        batch += StrokeLog.line(record) + "\n"
        if batchStarted == nil { batchStarted = now }
        lastTouchWallClock = Date().timeIntervalSince1970
        // A pen-up is saved at this wake, after its repaint.
        if case .up = record { batchStarted = now - Self.flushInterval }
    }

    /// When the strokes waiting must be saved, if any wait.
    var flushDue: Double? { batchStarted.map { $0 + Self.flushInterval } }

    func flushIfDue(now: Double) {
        if let due = flushDue, now >= due { flush() }
    }

    /// Saves the strokes waiting, in one transaction.
    func flush() {
        guard !batch.isEmpty, let deal else { return }
        store.saveStrokesLater(deal, lines: batch, lastTouch: lastTouchWallClock)
        batch = ""
        batchStarted = nil
        batchCanvas = nil
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
        batch = ""
        batchStarted = nil
        batchCanvas = nil
    }
}

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
