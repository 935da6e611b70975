import CardArt
import CardRules
import ScratchCore
import ScratchSound
import ScratchStore

/// A card as dealt: its id, where its prize came from, its images as loaded, what its
/// reveal sounds like (nil: nothing), whether it bursts into sparks, and where it came
/// from (`origin`), which decides how the ledger records it.
public struct DealtCard: Sendable {
    public let id: String
    public let prize: String
    public internal(set) var images: CardImages
    public var revealSound: RevealSound? = .chime
    public var celebrate = true
    /// Where the card came from: the ledger records each kind its own way.
    public var origin: Origin
    /// A zone card's rules and what its zones show; nil for a card that scratches anywhere.
    public var zoneArt: ZoneArt? = nil
    /// A claim card's claim (its code on the prize) and the deal id the code was made
    /// for: the ledger records the deal under that id (ClaimMaker.swift).
    public var claim: DealtClaim? = nil

    public init(id: String, prize: String, images: CardImages, revealSound: RevealSound? = .chime, celebrate: Bool = true,
                origin: Origin = .unstocked(nil), zoneArt: ZoneArt? = nil) {
        self.id = id
        self.prize = prize
        self.images = images
        self.revealSound = revealSound
        self.celebrate = celebrate
        self.origin = origin
        self.zoneArt = zoneArt
    }

    /// Where a dealt card came from.
    public enum Origin: Sendable {
        /// Not drawn from a stock: the options' one card, a deck without a store, a
        /// dropped picture or card file; the deck entry, when there is one.
        case unstocked(DeckCard?)
        /// Drawn from the stock book's edition `edition` (StockBook.swift).
        case stock(DeckCard, edition: Int)
        /// Taken from the shared pool (the pool's deal), drawn from edition `edition`.
        case pool(PoolLedger.Taken, edition: Int)
        /// The card the store held as on show, taken up again at start.
        case resumed(PendingDeal, DeckCard?)
        /// Nothing can be dealt: the sold-out card, made from edition `edition` (nil:
        /// without a stock book).
        case soldOut(edition: Int?)
        /// The pool cannot be reached and the deck has no unlimited card: "back in a
        /// moment", until `retryAt` (monotonic seconds), when the pool is tried again.
        case backSoon(retryAt: Double)
    }

    /// The deck entry it was drawn from, if any (its stock with it).
    public var deckCard: DeckCard? {
        switch origin {
        case .unstocked(let card), .resumed(_, let card): card
        case .stock(let card, _): card
        case .pool(let taken, _): taken.card
        case .soldOut, .backSoon: nil
        }
    }

    /// True for the cards that stand for no deal: sold out, and "back in a moment".
    public var dealsNothing: Bool {
        switch origin {
        case .soldOut, .backSoon: true
        default: false
        }
    }

    /// The number of the stock book's edition it was drawn from; a card of an edition
    /// SIGHUP has since replaced is not shown.
    public var edition: Int? {
        switch origin {
        case .stock(_, let edition), .pool(_, let edition): edition
        case .soldOut(let edition): edition
        default: nil
        }
    }
}

/// A claim card's claim: the code and QR drawn on its prize, and the deal they were made for.
public struct DealtClaim: Sendable {
    public let mark: ClaimMark
    public let deal: DealID
    /// The code, grouped as drawn.
    public var code: String { mark.code }
}

/// What a card's reveal plays: the built-in chime, or a clip of its own (a deck card's
/// WAV file). The chime's samples are made when it is first played, not when a card is
/// dealt: synthesising them takes about 10 ms, which the first frame need not wait for.
public enum RevealSound: Sendable, Equatable {
    case chime
    case clip(SoundClip)

    public var clip: SoundClip {
        switch self {
        case .chime: .chime
        case .clip(let clip): clip
        }
    }
}

/// A file's name without its folder and extension.
public func fileStem(_ path: String) -> String {
    // By bytes: a "/" or "." followed by a combining mark is one Character with it, which
    // a split on Characters would not find.
    let bytes = Array(path.utf8)
    let name = bytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? bytes
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != 0 else { return String(decoding: name, as: UTF8.self) }
    return String(decoding: name[..<dot], as: UTF8.self)
}
