/// The record of what was dealt: stock, deals and their outcomes. The kiosk's SQLite
/// store (ScratchStore's `KioskStore`) keeps one per machine; a shared pool for many
/// kiosks (a database server) would implement the same protocol, the card on show and
/// its strokes staying in the local store (`CardOnShowStore`). The window talks to
/// `any PrizeLedger & CardOnShowStore` (scratchcard's `StoreWriter`): a pool plugs in as
/// one object that takes stock and writes outcomes remotely and keeps the card on show
/// (and outcomes still to send) in a local `KioskStore`.
///
/// The rules every implementation keeps:
/// - `deal` takes one of the card's stock and records the deal in one transaction (or
///   not at all): a card whose stock is used up is refused, never oversold.
/// - `finish` is idempotent, keyed by the deal id: a second call for a deal that has its
///   outcome changes nothing and answers false, so a retry never duplicates a record.
/// - Deal ids are unique across every kiosk that shares a ledger.
///
///     let counts = try ledger.dealtCounts()
///     let card = deck.draw(left: deck.left(dealt: counts))!
///     if let deal = try ledger.deal(card, shownAt: now, ending: previous) { show(deal) }
public protocol PrizeLedger: AnyObject {
    /// How many deals each card id has had, ended or not.
    func dealtCounts() throws(StoreError) -> [String: Int]

    /// Records a deal of `card` shown at `shownAt` (seconds since 1970), taking one of
    /// its stock; nil when none is left (`card.stock` counts, as the deck says now).
    /// `ending`, when given, is the card on show's outcome, written in the same
    /// transaction where the implementation can (the local store does).
    func deal(_ card: DeckCard, shownAt: Double, ending: (deal: DealID, outcome: OutcomeRecord)?) throws(StoreError) -> DealID?

    /// Writes a deal's outcome, once: false when it had one already.
    @discardableResult
    func finish(_ deal: DealID, outcome: OutcomeRecord) throws(StoreError) -> Bool

    /// Per card: stock (from `deck`), dealt, left, and outcomes so far; cards the
    /// ledger knows that the deck no longer has come after the deck's.
    func stockReport(deck: Deck?) throws(StoreError) -> [StockLine]
}

/// The card on show, kept so that a restart takes it up again: which deal, its state,
/// and its strokes. Local to each kiosk.
public protocol CardOnShowStore: AnyObject {
    /// Where it is kept, for messages (a file's path).
    var path: String { get }
    /// The deal without an outcome, if any: the card that was on show.
    func pendingDeal() throws(StoreError) -> PendingDeal?
    /// Every deal without an outcome, oldest first: at most one, unless something went
    /// wrong (the kiosk ends all but the last).
    func pendingDeals() throws(StoreError) -> [DealID]
    /// Appends a batch of strokes (`StrokeLog` lines) to the deal's, and the time of the
    /// last touch, in one transaction.
    func saveStrokes(_ deal: DealID, lines: String, lastTouch: Double) throws(StoreError)
    /// The deal was revealed: how, after how long, at which fraction.
    func saveReveal(_ deal: DealID, how: RevealCause, afterMilliseconds: Int, fraction: Double) throws(StoreError)
}

/// A deal's unique id (128 random bits in hex).
public struct DealID: Hashable, Sendable, CustomStringConvertible {
    public let text: String
    public init(_ text: String) { self.text = text }
    public var description: String { text }

    /// A new id from the system's secure random source.
    public static func random() -> DealID {
        var rng = SystemRandomNumberGenerator()
        let a = rng.next(), b = rng.next()
        func hex(_ v: UInt64) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
        return DealID(hex(a) + hex(b))
    }
}

/// The deal the store holds as on show: what card, when, and what had happened to it.
public struct PendingDeal: Equatable, Sendable {
    public var deal: DealID
    public var cardID: String
    public var prize: String
    public var cover: String?
    /// Seconds since 1970.
    public var shownAt: Double
    /// The last touch saved (seconds since 1970), nil if never touched.
    public var lastTouch: Double?
    public var reveal: (how: RevealCause, afterMilliseconds: Int, fraction: Double)?
    /// The saved strokes' text, every batch in order.
    public var strokes: String

    public init(deal: DealID, cardID: String, prize: String, cover: String?, shownAt: Double, lastTouch: Double?,
                reveal: (how: RevealCause, afterMilliseconds: Int, fraction: Double)?, strokes: String) {
        self.deal = deal
        self.cardID = cardID
        self.prize = prize
        self.cover = cover
        self.shownAt = shownAt
        self.lastTouch = lastTouch
        self.reveal = reveal
        self.strokes = strokes
    }

    public static func == (a: PendingDeal, b: PendingDeal) -> Bool {
        a.deal == b.deal && a.cardID == b.cardID && a.prize == b.prize && a.cover == b.cover && a.shownAt == b.shownAt
            && a.lastTouch == b.lastTouch && a.strokes == b.strokes && a.reveal?.how == b.reveal?.how
            && a.reveal?.afterMilliseconds == b.reveal?.afterMilliseconds && a.reveal?.fraction == b.reveal?.fraction
    }
}

/// One card's line of `scratchcard stock`.
public struct StockLine: Equatable, Sendable {
    public var cardID: String
    /// Nil: unlimited (or not in the deck).
    public var stock: Int?
    public var dealt: Int
    public var revealed: Int
    public var abandoned: Int
    public var quit: Int
    /// Dealt and not ended yet (the card on show).
    public var pending: Int { dealt - revealed - abandoned - quit }
    /// Nil when unlimited; never below 0 (a deck that lowered its stock below what was dealt).
    public var left: Int? { stock.map { Swift.max(0, $0 - dealt) } }

    public init(cardID: String, stock: Int?, dealt: Int, revealed: Int, abandoned: Int, quit: Int) {
        self.cardID = cardID
        self.stock = stock
        self.dealt = dealt
        self.revealed = revealed
        self.abandoned = abandoned
        self.quit = quit
    }

    /// For people: `coffee  stock 3  dealt 1  left 2  revealed 1  abandoned 0`.
    public var text: String {
        "\(cardID): stock \(stock.map(String.init) ?? "unlimited") dealt \(dealt) left \(left.map(String.init) ?? "unlimited")"
            + " revealed \(revealed) abandoned \(abandoned) quit \(quit)"
    }

    /// For scripts: one JSON object; `stock` and `left` are null when unlimited.
    public var json: String {
        "{\"card\":\(JSONText.quoted(cardID)),\"stock\":\(stock.map(String.init) ?? "null"),\"dealt\":\(dealt),"
            + "\"left\":\(left.map(String.init) ?? "null"),\"revealed\":\(revealed),\"abandoned\":\(abandoned),\"quit\":\(quit)}"
    }
}

/// A store that cannot be used: the file, and what is wrong. `isCorrupt` when the file
/// is damaged (the kiosk moves it aside and starts a new one).
public struct StoreError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// Damaged: not a database, truncated, failing its integrity check.
        case corrupt
        /// Written by a newer scratchcard.
        case newerSchema
        /// Another running scratchcard holds it.
        case locked
        /// The disk is full.
        case full
        /// Cannot be created or written (a read-only folder, permissions).
        case cannotWrite
        /// Anything else.
        case other
    }

    public let path: String
    public let kind: Kind
    public let message: String

    public init(path: String, kind: Kind, message: String) {
        self.path = path
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

extension Deck {
    /// What is left of each stocked card, given what was dealt (cards without a stock
    /// are unlimited and not in the answer).
    public func left(dealt: [String: Int]) -> [String: Int] {
        var left: [String: Int] = [:]
        for card in cards {
            if let stock = card.stock { left[card.id] = Swift.max(0, stock - (dealt[card.id] ?? 0)) }
        }
        return left
    }

    /// Draws by weight among the cards that can still be dealt: those with weight > 0
    /// and, when stocked, some left (`left` from `left(dealt:)`). Nil when none can.
    public func draw<R: RandomNumberGenerator>(left: [String: Int], using rng: inout R) -> DeckCard? {
        var total = 0.0
        for card in cards where card.weight > 0 && (card.stock == nil || (left[card.id] ?? 0) > 0) { total += card.weight }
        guard total > 0 else { return nil }
        let r = Double.random(in: 0..<total, using: &rng)
        var sum = 0.0
        var last: DeckCard?
        for card in cards where card.weight > 0 && (card.stock == nil || (left[card.id] ?? 0) > 0) {
            sum += card.weight
            last = card
            if sum > r { return card }
        }
        return last     // rounding left r at the very end
    }

    /// `draw(left:using:)` with the system's secure random source.
    public func draw(left: [String: Int]) -> DeckCard? {
        var rng = SystemRandomNumberGenerator()
        return draw(left: left, using: &rng)
    }
}
