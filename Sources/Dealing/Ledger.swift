@preconcurrency import Glibc
import CardRules
import Foundation
import ScratchCore
import ScratchImage
import ScratchStore

/// The record of every card a window deals: the one place a card's money path goes
/// through, one entry point per transition.
///
/// - **deal** (`Dealer.deal`, on the card maker's worker): drawn from the stock book, or
///   taken from the pool (network calls there, never on the window's loop).
/// - **show** (`show`, on the loop, and `firstCard` at start: the same commit): the deal
///   is committed (the card before it ending in the same transaction) before the card's
///   first pixel is put; a card of a replaced edition, or one the stock ran out of since
///   its draw, is not shown.
/// - **reveal** (`noticed`): saved at once, with the strokes before it; a claim's ticket
///   is printed (`ClaimTickets`). Strokes go to the store in batches (`keep`).
/// - **abandon / quit** (`show`'s `ending`, `end`): the card on show's outcome, once.
/// - **void** (`void`): a dealt card that will not be shown (a pool's take is given back).
/// - **claim**: a claim card's code is made for its deal (`ClaimMaker`) and recorded in
///   the deal's own transaction.
///
/// Without a store (a desktop card) only the outcome log (`--log`) is kept.
public final class Ledger {
    private let outcomeLog: OutcomeLog?
    /// The store's side: nil without a store.
    private let store: StoreWriter?
    /// Nil without a deck: the options' one card, unlimited.
    let book: StockBook?
    /// With `--pool`: the shared pool, the store beside it (Ledger+Pool.swift).
    private var pool: PoolLedger?
    /// `--print-claims`: a ticket for each claim revealed.
    private let tickets: ClaimTickets?
    /// The cover of cards without one of their own (`--cover`; nil: the built-in foil).
    private let defaultCover: String?
    /// The card file's own card options read at start (SIGHUP leaves them: `reloadDeck`).
    private let cardSettings: CardSettings
    /// True when claim cards can be dealt (`--claim-key` was given).
    private let makesClaims: Bool

    /// The card on show's deal; nil without a store or while a card of no deal is on show.
    public private(set) var deal: DealID?
    /// The deal taken up again at start, if the store held one.
    public private(set) var resumed: PendingDeal?
    /// A resumed zone card's started zones, in order, as its strokes replayed them.
    public private(set) var resumedZoneOrder: [Int] = []
    /// True while the sold-out card is on show: no timers deal again (SIGHUP does).
    public private(set) var showsSoldOut = false
    /// With `--pool`: "back in a moment" is on show (the pool is out of reach).
    private var showsBackSoon = false
    /// SIGHUP brought stock while the sold-out card is on show: deal as soon as a card is made.
    public private(set) var restocked = false

    /// The card on show's strokes waiting to be saved.
    private var strokes = StrokeBatch()
    private var reportedFailure = false

    /// What the ledger reads of the options.
    public struct Options: Sendable {
        /// The store's path (kiosk mode, `--pool` or `--store`); nil: none.
        public var store: String?
        /// `--log PATH`: the outcome log.
        public var outcomeLog: String?
        /// `--pool CONNINFO`.
        public var pool: String?
        /// The kiosk's name in the pool and on tickets.
        public var kioskID: String
        /// `--cover`: what a card without a cover of its own was shown under.
        public var defaultCover: String?
        /// `--print-claims PRINTER`.
        public var printClaims: String?
        public var verbose = false

        public init(store: String?, outcomeLog: String?, pool: String?, kioskID: String, defaultCover: String?,
                    printClaims: String?, verbose: Bool) {
            self.store = store
            self.outcomeLog = outcomeLog
            self.pool = pool
            self.kioskID = kioskID
            self.defaultCover = defaultCover
            self.printClaims = printClaims
            self.verbose = verbose
        }
    }

    /// Opens `--log` and the store the options ask for, its stock drawn from the dealer's
    /// deck, and the pool; bad ones throw (exit 2). A damaged store is moved aside and a
    /// new one started (on stderr and in `--log`).
    public init(options: Options, dealer: Dealer) throws(DealingError) {
        do { outcomeLog = try options.outcomeLog.map { path throws(OutcomeLogError) in try OutcomeLog(path: path) } } catch {
            throw .input("\(error)")
        }
        cardSettings = dealer.settings
        makesClaims = dealer.claims != nil
        defaultCover = options.defaultCover
        guard let path = options.store else {
            store = nil
            book = nil
            tickets = options.printClaims.map { ClaimTickets(destination: $0, kiosk: options.kioskID, store: nil) }
            return
        }
        let writer: StoreWriter
        do {
            let kioskStore = try Self.openMovingAside(path, outcomeLog: outcomeLog)
            if options.verbose { log("store: \(path)") }
            book = try dealer.deck.map { deck throws(StoreError) in
                StockBook(deck: deck, source: dealer.source, dealt: try kioskStore.dealtCounts())
            }
            kioskStore.claimIssuer = dealer.claims?.issuer
            writer = StoreWriter(kioskStore)
            store = writer
            pool = try Self.openPool(options, hasDeck: dealer.deck != nil, writer: writer, claims: dealer.claims)
            // No pool: claims from before schema 4 are the store's own (a pool's ledger gives them to its pool).
            if pool == nil { try writer.run { s throws(StoreError) in _ = try s.settleClaims(pool: nil) } }
        } catch {
            throw .input("\(error)")
        }
        tickets = options.printClaims.map { ClaimTickets(destination: $0, kiosk: options.kioskID, store: writer) }
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

    /// The dealer draws from the store's stock and the pool, when the ledger keeps them.
    public func supply(_ dealer: inout Dealer) {
        dealer.stock = book
        dealer.pool = pool
    }

    /// True when the window keeps a store (SIGHUP reloads its deck).
    public var keepsStore: Bool { store != nil }
    /// With `--pool`: the pool is out of reach now (or "back in a moment" is on show).
    public var poolOffline: Bool { showsBackSoon || pool.map { !$0.isOnline } == true }

    // MARK: Deal and show

    /// The first card, made before the window exists: the card the store holds as on
    /// show, taken up again, else a card dealt and committed as `show` commits every
    /// other. Bad input throws (an image: the caller decides whose fault it is).
    public func firstCard(dealer: Dealer) throws(DealingError) -> DealtCard {
        if let held = try takeUpCardOnShow(dealer: dealer) { return held }
        for _ in 0..<100 {
            let card: DealtCard
            do { card = try dealer.deal() } catch { throw .image(error) }
            do {
                switch try commit(card, ending: nil, onShow: nil, now: monotonicSeconds()) {
                case .show: return card
                case .dealAgain, .keepCardOnShow: continue
                }
            } catch {
                throw .input("\(error)")
            }
        }
        throw .input("\(store?.path ?? "the store"): could not deal a card")
    }

    /// What `show` found.
    public enum Shown: Equatable {
        /// Show the card (after the `sold-out` event, when `announcingSoldOut`); the next
        /// deal waits until `retryDealAt`, if given.
        case show(announcingSoldOut: Bool, retryDealAt: Double?)
        /// Not shown: the stock ran out since the draw, or its edition was replaced;
        /// another card must be dealt.
        case dealAgain
        /// Not shown: the card on show stays (the next deal waits until `retryDealAt`).
        case keepCardOnShow(retryDealAt: Double?)
    }

    /// The dealt card may be shown: the card on show ends (`ending`, its outcome;
    /// `onShow`, its id) and the new deal is recorded, in one transaction, before
    /// anything of the new card is drawn; the old card's line goes to `--log` after the
    /// commit. A store that fails keeps the card on show, and the deal is tried again in 5 s.
    public func show(_ card: DealtCard, ending record: OutcomeRecord, onShow: String, now: Double) -> Shown {
        do { return try commit(card, ending: record, onShow: onShow, now: now) } catch {
            report(error, doing: "record the deal")
            return .keepCardOnShow(retryDealAt: now + 5)
        }
    }

    /// The one commit of a card to show, at start and after.
    private func commit(_ card: DealtCard, ending record: OutcomeRecord?, onShow: String?, now: Double) throws(StoreError) -> Shown {
        guard let store else {
            if let record { appendToLog(record) }
            return .show(announcingSoldOut: false, retryDealAt: nil)
        }
        // Drawn from a deck SIGHUP has since replaced (made ahead, or on its way during
        // the reload): its images came from the old file. Nothing changes; a card of the
        // new deck is dealt in its place (a pool's take is given back).
        if let edition = card.edition, let book, edition != book.edition.number {
            void(card)
            return .dealAgain
        }
        // Sold out or back in a moment again, while the same card is on show: nothing
        // changes on screen, and the pool is asked again later.
        if pool != nil, card.dealsNothing, deal == nil, card.id == onShow {
            if case .backSoon(let until) = card.origin { return .keepCardOnShow(retryDealAt: until) }
            return .keepCardOnShow(retryDealAt: now + 30)
        }
        // Made sold out before the deck gained stock: deal again.
        if case .soldOut = card.origin, pool == nil, let book, book.canDeal { return .dealAgain }
        let ending = record.flatMap { record in deal.map { ($0, record) } }
        strokes.drop()
        switch card.origin {
        case .backSoon(let until):
            try endCardOnShow(ending)
            noteBackSoon()
            return .show(announcingSoldOut: false, retryDealAt: until)
        case .soldOut:
            try endCardOnShow(ending)
            noteSoldOut()
            return .show(announcingSoldOut: onShow != nil, retryDealAt: pool != nil ? now + 30 : nil)
        case .pool(let taken, _):
            guard let pool else { return .keepCardOnShow(retryDealAt: nil) }
            do { try pool.record(taken, shownAt: Date().timeIntervalSince1970, ending: ending) } catch {
                pool.release(taken)
                throw error
            }
            showing(taken.deal)
        case .unstocked, .stock, .resumed:
            guard let id = try store.deal(deckCard(of: card), shownAt: Date().timeIntervalSince1970, ending: ending,
                                          id: card.claim?.deal) else {
                book?.replace(dealt: try store.dealtCounts())
                return .dealAgain
            }
            showing(id)
            book?.counted(card.id)
        }
        if let record, ending != nil { appendToLog(record) }
        return .show(announcingSoldOut: false, retryDealAt: nil)
    }

    /// The outcome of the card on show, when one is on show with a deal (sold out and
    /// back in a moment are not recorded as shown).
    private func endCardOnShow(_ ending: (DealID, OutcomeRecord)?) throws(StoreError) {
        guard let (deal, record) = ending else { return }
        if try finish(deal, record) { appendToLog(record) }
    }

    /// A deal's outcome, once (false: it had one): through the pool's ledger (the local
    /// store and its outbox for the pool), else into the store alone.
    private func finish(_ deal: DealID, _ record: OutcomeRecord) throws(StoreError) -> Bool {
        if let pool { return try pool.finish(deal, outcome: record) }
        return try store?.finish(deal, outcome: record) ?? false
    }

    /// A dealt card that will not be shown: a deal the pool gave is voided (later, in order).
    public func void(_ card: DealtCard) {
        if case .pool(let taken, _) = card.origin { pool?.release(taken) }
    }

    /// The deck entry a dealt card is recorded as (its stock with it); the options'
    /// one card is unlimited. The cover recorded is the one shown (nil: the built-in foil).
    private func deckCard(of card: DealtCard) -> DeckCard {
        let entry = card.deckCard
        return DeckCard(id: card.id, prize: card.prize, cover: entry?.cover ?? defaultCover, weight: entry?.weight ?? 1,
                        stock: entry?.stock, claim: entry?.claim ?? false)
    }

    private func noteSoldOut() {
        if !showsSoldOut { log("all prizes have been given away: the sold-out card is on show until the deck gains stock (SIGHUP reloads it)") }
        showsSoldOut = true
        showsBackSoon = false
        deal = nil
    }

    private func noteBackSoon() {
        if !showsBackSoon {
            log("the pool cannot be reached and the deck has no unlimited card: 'back in a moment' is on show until it answers")
        }
        showsBackSoon = true
        showsSoldOut = false
        deal = nil
    }

    /// A new deal is on show (recorded in the store): no sold-out or "back in a moment"
    /// card any more.
    private func showing(_ deal: DealID) {
        self.deal = deal
        showsSoldOut = false
        showsBackSoon = false
        restocked = false
    }

    // MARK: Strokes and the reveal

    /// One stroke record of the card on show (at `canvas`, with a brush of `brush`
    /// pixels), on its way to the store.
    public func keep(_ record: StrokeLog.Record, canvas: PixelSize, brush: Double, now: Double) {
        guard store != nil, deal != nil else { return }
        strokes.add(record, canvas: canvas, brush: brush, now: now)
    }

    /// When the strokes waiting must be saved, if any wait.
    public var flushDue: Double? { strokes.due }

    public func flushIfDue(now: Double) {
        if let due = flushDue, now >= due { flush() }
    }

    /// Saves the strokes waiting, in one transaction.
    private func flush() {
        guard !strokes.isEmpty, let deal, let store else { return }
        let lastTouch = strokes.lastTouchWallClock
        store.saveStrokesLater(deal, lines: strokes.take(), lastTouch: lastTouch)
    }

    /// Events of the card on show (`card`) that the ledger must know at once: the
    /// reveal, saved with the strokes before it; a claim's ticket printed.
    public func noticed(_ events: [CardEvent], of card: DealtCard) {
        for case let .revealed(_, how, fraction, milliseconds) in events {
            if let deal, let store {
                flush()
                store.saveRevealLater(deal, how: how, afterMilliseconds: milliseconds, fraction: fraction)
            }
            tickets?.revealed(card)
        }
    }

    // MARK: The end, and SIGHUP

    /// The card on show ends for good (the program is quitting): its outcome, once, in
    /// the store, then its line in `--log`.
    public func end(_ record: OutcomeRecord) {
        if store != nil {
            guard let deal else { return }
            flush()
            do {
                guard try finish(deal, record) else { return }
            } catch {
                report(error, doing: "record the outcome")
                return
            }
        }
        appendToLog(record)
    }

    /// At the end: what the pool must still be told is sent, for a moment at most (what
    /// is left stays queued in the store and goes at the next start); tickets CUPS has
    /// not taken are said.
    public func closeAtQuit() {
        if let pool {
            let left = pool.drain(timeout: 2).waiting
            if left > 0 { log("\(left) records wait for the pool in the store; they are sent at the next start") }
        }
        if let tickets, tickets.pending > 0 {
            log("print-claims: \(tickets.pending) ticket(s) not yet taken by CUPS"
                + (store != nil ? ": kept in the store, sent at the next start" : " (no store: they are lost)"))
        }
    }

    private func appendToLog(_ record: OutcomeRecord) {
        guard let outcomeLog else { return }
        do { try outcomeLog.append(record) } catch { log("\(error)") }
    }

    /// A failed write: said once until writes work again; the card on show carries on.
    private func report(_ error: StoreError, doing what: String) {
        guard !reportedFailure else { return }
        reportedFailure = true
        log("cannot \(what): \(error); the card on show carries on")
    }

    /// SIGHUP with a store: the deck (`path`; a card file when `asCardFile` or as told
    /// by `LoadedDeck`) is read again whole and checked as at start (its sounds decoded,
    /// its claim cards need `--claim-key`), then it and where its files are read (a card
    /// file's entries as they are now) replace the old ones in the stock book at once,
    /// with the counts: from then on every card is drawn from the new deck and read from
    /// the new file, and a card drawn before is not shown (`show`). A deck that does not
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
    /// `cover`: the `--cover` image, the artwork of zone cards without a cover of their own.
    public func reloadDeck(_ path: String?, asCardFile: Bool, cover: String? = nil) -> Bool {
        guard let store, let book, let path else {
            log("SIGHUP: no deck to reload")
            return false
        }
        let loaded: LoadedDeck
        do {
            loaded = try LoadedDeck.load(path: path, asCardFile: asCardFile)
            try Dealer.check(loaded.deck, path: path, source: loaded.source, cover: cover)
            if !makesClaims, let problem = ClaimMaker.needsKey(loaded.deck) { throw DeckError(path: path, message: problem) }
            book.reload(deck: loaded.deck, source: loaded.source, dealt: try store.dealtCounts())
        } catch {
            log("SIGHUP: the deck did not reload, the old one goes on dealing: \(error)")
            return false
        }
        log("SIGHUP: reloaded the deck \(path) (\(loaded.deck.cards.count) cards)")
        if loaded.settings != cardSettings {
            log("SIGHUP: \(path) sets other card options (reveal-at, brush, celebrate) than at start: they take effect at the next start")
        }
        Dealer(deck: loaded.deck, source: loaded.source).lookUpFonts(deckPath: path)
        guard showsSoldOut, book.canDeal else { return false }
        restocked = true
        return true
    }

    // MARK: The card taken up again at start

    /// The card the store holds as on show, taken up again (its images loaded again), or
    /// nil. A card that cannot be taken up (its image gone) ends as abandoned.
    private func takeUpCardOnShow(dealer: Dealer) throws(DealingError) -> DealtCard? {
        guard let store else { return nil }
        do {
            let pending = try store.pendingDeals()
            // More than one: only the last can be on show; the others end (never happens
            // unless a store was edited by hand).
            for stale in pending.dropLast() { try abandon(stale) }
            guard let held = try store.pendingDeal() else { return nil }
            do {
                // The deck's entry when it still has the card (a text card is drawn
                // from it), else the files the deal recorded.
                var card: DealtCard
                if let entry = book?.deck.cards.first(where: { $0.id == held.cardID }) {
                    card = try dealer.dealt(entry, deal: held.deal)
                } else {
                    let images = try CardImages.load(cover: held.cover, prize: held.prize == "built-in" || held.prize.isEmpty ? nil : held.prize,
                                                     source: dealer.source)
                    card = DealtCard(id: held.cardID, prize: held.prize, images: images)
                }
                card.origin = .resumed(held, card.deckCard)
                resumed = held
                deal = held.deal
                return card
            } catch {
                log("cannot take up the card on show (\(held.cardID)): \(error); it ends as abandoned")
                try abandon(held.deal)
                return nil
            }
        } catch {
            throw .input("\(error)")
        }
    }

    /// A pending deal that will not be shown ends as abandoned, in the store and the log.
    private func abandon(_ stale: DealID) throws(StoreError) {
        let record = OutcomeRecord(shownAt: Date().timeIntervalSince1970, cardID: "", prize: "", outcome: .abandoned, how: nil,
                                   fraction: 0, revealMilliseconds: nil, durationMilliseconds: 0)
        _ = try finish(stale, record)
    }

    /// The state machine of the first card: taken up as it was (shown so long ago,
    /// touched, revealed), the sold-out card as done, else fresh.
    public func firstSession(card: DealtCard, revealAt: Double, fraction: Double, now: Double) -> CardSession {
        if card.dealsNothing { return Self.soldOutSession(revealAt: revealAt, now: now, cardID: card.id) }
        guard let held = resumed else { return CardSession(cardID: card.id, revealAt: revealAt, now: now) }
        let elapsed = Date().timeIntervalSince1970 - held.shownAt
        return CardSession(resuming: held.cardID, revealAt: revealAt, now: now, shownSecondsAgo: elapsed,
                           touched: held.lastTouch != nil, fraction: fraction,
                           reveal: held.reveal.map { ($0.how, Double($0.afterMilliseconds) / 1000, $0.fraction) })
    }

    /// The state machine of a card that deals nothing (sold out, back in a moment): done.
    public static func soldOutSession(revealAt: Double, now: Double, cardID: String = "sold-out") -> CardSession {
        CardSession(resuming: cardID, revealAt: revealAt, now: now, shownSecondsAgo: 0, touched: false, fraction: 1,
                    reveal: (.keyboard, 0, 1))
    }

    /// The resumed card's mask at `size`: its saved strokes replayed through the engine
    /// (at the canvas sizes they were made at, then carried to this one as a resize
    /// would), revealed whole if it was revealed. Nil for a fresh card. Strokes that do
    /// not read are reported and dropped (the card is shown as far as they went).
    /// `filledCover` nil: the cover is the built-in foil, opaque (nothing revealed from the start).
    public func resumedMask(size: PixelSize, images: CardImages, filledCover: RGBAImage?, zones: ZoneCard? = nil) -> Mask? {
        guard let held = resumed, !held.strokes.isEmpty, let store else { return nil }
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
                          touchLimit: zones.pick ?? zones.zones.count, carrying: previous)
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
    public func resumedLastTouch(now: Double) -> Double? {
        guard let touched = resumed?.lastTouch else { return nil }
        return now - Swift.max(0, Date().timeIntervalSince1970 - touched)
    }
}

/// Why dealing could not start: an image (or sound) that could not be read, whose fault
/// the caller decides (the installation's own: exit 1), or bad input (exit 2).
public enum DealingError: Error, CustomStringConvertible {
    case image(ImageError)
    case input(String)

    public var description: String {
        switch self {
        case .image(let error): "\(error)"
        case .input(let message): message
        }
    }
}
