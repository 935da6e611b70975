import Foundation
import ScratchCore

/// One card of a deck: the prize under the foil (an image, words, or words over an
/// image), an optional cover of its own, and how often it comes up relative to the others.
public struct DeckCard: Equatable, Sendable {
    /// The name the `--events` stream reports the card by.
    public let id: String
    /// The prize image, an absolute path; nil for a text card on the built-in background.
    public let prize: String?
    /// The cover image, an absolute path; nil means the default cover.
    public let cover: String?
    /// The relative chance of drawing this card: finite and >= 0; 0 never comes up.
    public let weight: Double
    /// What its reveal sounds like: the chime, a sound file of its own, or nothing.
    public let sound: DeckSound
    /// Whether its reveal bursts into sparks (a "sorry" card can be quiet and still).
    public let celebrate: Bool
    /// Words drawn as the prize (over `prize`, when there is one as well).
    public let text: CardText?
    /// The prompt drawn on the built-in foil in place of "SCRATCH HERE" (the card's own,
    /// else the deck's); nil for the default.
    public let coverText: String?

    /// How many of this prize exist (`"stock": N`); nil: unlimited. The store counts
    /// what was dealt; an entry with none left is no longer drawn.
    public let stock: Int?
    /// A prize someone collects (`"claim": true`): its reveal shows a claim code, which a
    /// counter redeems once (`scratchcard redeem`). Needs the promotion's `--claim-key`.
    public let claim: Bool

    /// A ticket of scratch zones (`zones` or `grid`, `pick`, `symbols`, `decoys`); nil
    /// for a card that scratches anywhere.
    public let zoneCard: ZoneCard?

    public init(id: String, prize: String?, cover: String? = nil, weight: Double = 1,
                sound: DeckSound = .chime, celebrate: Bool = true, text: CardText? = nil,
                coverText: String? = nil, stock: Int? = nil, claim: Bool = false, zoneCard: ZoneCard? = nil) {
        self.zoneCard = zoneCard
        self.id = id
        self.prize = prize
        self.cover = cover
        self.weight = weight
        self.sound = sound
        self.celebrate = celebrate
        self.text = text
        self.coverText = coverText
        self.stock = stock
        self.claim = claim
    }
}

/// A deck card's reveal sound: `"sound": "fanfare.wav"` (a file, absolute path),
/// `"sound": null` (none), or no key (the built-in chime).
public enum DeckSound: Equatable, Sendable {
    case chime
    case none
    case file(String)
}


/// The cards a kiosk deals from, each drawn at random in proportion to its weight.
///
/// A deck is a folder of PNG, JPEG or WebP prizes (each equally likely), or a JSON file:
///
///     {"cover-text": "Scratch me",
///      "cards": [
///         {"id": "coffee", "prize": "coffee.png", "cover": "foil.png", "weight": 3},
///         {"id": "tea", "text": "Free tea", "subtitle": "Show this at the counter",
///          "color": "#FFFFFF", "background": "#2E7D32"},
///         {"prize": "sorry.png", "weight": 7, "sound": null, "celebrate": false}
///     ]}
///
/// Image paths are relative to the deck file's folder; `id` defaults to the prize's
/// file name without extension (a text card without an image needs one), `cover` to the
/// default cover, `weight` to 1. A text card's words (`text`, `subtitle`: at most
/// `CardText.maximumCharacters` each) are drawn over `prize` if given, else over the
/// built-in background or the `background` colour; `cover-text` (the deck's, or a card's
/// own) is drawn on the built-in foil in place of "SCRATCH HERE". `sound` names a WAV
/// file played on the reveal instead of the chime (the same folder rule), `null` for
/// none; `celebrate: false` leaves out the sparks; `stock` (how many of that prize
/// exist, a whole number) defaults to unlimited; `claim: true` makes it a prize someone
/// collects, with a claim code on its reveal (needs `--claim-key`). A card may be a ticket of scratch zones
/// instead of a picture (`zones` or `grid`, `pick`, `symbols`, `decoys`: see `ZoneCard`).
///
///     let deck = try Deck.load(path: "cards/")
///     let card = deck.draw()     // the system's secure random source
public struct Deck: Equatable, Sendable {
    public let cards: [DeckCard]
    /// Running sums of the weights: `cumulative[i]` = weights of cards 0...i.
    private let cumulative: [Double]

    /// The largest deck file read.
    public static let maximumFileBytes = 4 << 20
    /// The most cards a deck may hold.
    public static let maximumCards = 10_000
    /// The largest `stock` an entry may give.
    public static let maximumStock = 1_000_000_000

    /// A deck of these cards; nil unless some card has a weight > 0 and all weights
    /// are finite and >= 0 (with a finite sum).
    public init?(cards: [DeckCard]) {
        var sums: [Double] = []
        sums.reserveCapacity(cards.count)
        var total = 0.0
        for card in cards {
            guard card.weight.isFinite, card.weight >= 0 else { return nil }
            total += card.weight
            sums.append(total)
        }
        guard total > 0, total.isFinite else { return nil }
        self.cards = cards
        self.cumulative = sums
    }

    /// The sum of all weights (> 0).
    public var totalWeight: Double { cumulative.last ?? 0 }

    /// Draws one card, each with probability weight / total weight; a card of weight
    /// 0 is never drawn. Deterministic for a given generator state.
    public func draw<R: RandomNumberGenerator>(using rng: inout R) -> DeckCard {
        let total = totalWeight
        let r = Double.random(in: 0..<total, using: &rng)
        // The first card whose running sum exceeds r: a card of weight 0 has the same
        // sum as the one before it, so it is never the first to exceed.
        var low = 0, high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] > r { high = mid } else { low = mid + 1 }
        }
        // Rounding in the sums could leave r at or past the last one: fall back to
        // the last card that can be drawn.
        if !(cumulative[low] > r) || cards[low].weight == 0 {
            low = cards.lastIndex(where: { $0.weight > 0 })!
        }
        return cards[low]
    }

    /// Draws one card with `SystemRandomNumberGenerator`, the system's secure source
    /// (getrandom on Linux): a player cannot predict the next card.
    public func draw() -> DeckCard {
        var rng = SystemRandomNumberGenerator()
        return draw(using: &rng)
    }

    /// Loads a deck from a folder of images or from a JSON deck file.
    public static func load(path: String) throws(DeckError) -> Deck {
        var isFolder: ObjCBool = false
        guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw DeckError(path: path, message: "cannot read the deck (missing or not accessible)")
        }
        return isFolder.boolValue ? try loadFolder(path) : try loadFile(path)
    }

    /// Every `*.png`, `*.jpg`, `*.jpeg` and `*.webp` (any case) regular file in the
    /// folder, hidden files skipped, sorted by name, weight 1 each.
    static func loadFolder(_ path: String) throws(DeckError) -> Deck {
        func fail(_ message: String) -> DeckError { DeckError(path: path, message: message) }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw fail("cannot list the folder")
        }
        let folder = PathText.resolve(path, against: FileManager.default.currentDirectoryPath)
        var cards: [DeckCard] = []
        var seen: [String: String] = [:]
        for name in names.sorted() where !name.hasPrefix(".") && isImageName(name) {
            let file = PathText.resolve(name, against: folder)
            guard isRegularFile(file) else { continue }
            let id = PathText.stem(name)
            if let other = seen[id] { throw fail("\(other) and \(name) have the same id \(JSONText.quoted(id))") }
            seen[id] = name
            guard cards.count < maximumCards else { throw fail("more than \(maximumCards) images; a deck may have at most \(maximumCards)") }
            cards.append(DeckCard(id: id, prize: file))
        }
        guard let deck = Deck(cards: cards) else { throw fail("no PNG, JPEG or WebP images in the folder") }
        return deck
    }

    /// The names a deck folder's images have: the image files ScratchImage reads.
    static let imageExtensions = ["png", "jpg", "jpeg", "webp"]

    static func isImageName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    static func loadFile(_ path: String) throws(DeckError) -> Deck {
        func fail(_ message: String) -> DeckError { DeckError(path: path, message: message) }
        let document = try JSONValue.load(path: path, limit: maximumFileBytes, what: "a deck", fail: fail)
        return try deck(from: document, path: path)
    }

    /// A deck from the bytes of a deck file, already read; `path` names the file in
    /// errors and image paths are resolved against its folder. The fuzz target's entry.
    static func parse(bytes: Data, path: String) throws(DeckError) -> Deck {
        func fail(_ message: String) -> DeckError { DeckError(path: path, message: message) }
        let document = try JSONValue.parse(bytes, limit: maximumFileBytes, what: "a deck", fail: fail)
        return try deck(from: document, path: path)
    }

    /// `files`: where the entries' files are found; nil: beside `path` on disk.
    static func deck(from document: JSONValue, path: String, files: (any DeckFiles)? = nil) throws(DeckError) -> Deck {
        func fail(_ message: String) -> DeckError { DeckError(path: path, message: message) }
        guard case .object(let top) = document else { throw fail("a deck is a JSON object, not \(document.kindName)") }
        if let unknown = top.keys.sorted().first(where: { $0 != "cards" && $0 != "cover-text" }) {
            throw fail("unknown key \(JSONText.quoted(unknown)) (a deck holds \"cards\" and \"cover-text\")")
        }
        let deckCoverText = try coverText(top["cover-text"], fail: fail)
        guard let cardsValue = top["cards"] else { throw fail("no \"cards\" array") }
        guard case .array(let entries) = cardsValue else { throw fail("\"cards\" must be an array, not \(cardsValue.kindName)") }
        guard entries.count <= maximumCards else {
            throw fail("\(entries.count) cards; a deck may have at most \(maximumCards)")
        }

        let files = files ?? FolderFiles(folder: PathText.folder(of: path))
        let knownKeys: Set<String> = ["id", "prize", "cover", "weight", "sound", "celebrate", "text", "subtitle", "color",
                                      "background", "cover-text", "stock", "claim", "zones", "grid", "pick", "symbols", "decoys"]
        var cards: [DeckCard] = []
        cards.reserveCapacity(entries.count)
        var seen: [String: Int] = [:]
        var total = 0.0
        for (index, entry) in entries.enumerated() {
            var label = "cards[\(index)]"
            func entryFail(_ message: String) -> DeckError { fail("\(label): \(message)") }
            guard case .object(let fields) = entry else { throw entryFail("a card is a JSON object, not \(entry.kindName)") }

            // The id first, so that every later message can name the card.
            var prizeText: String?
            if case .string(let text)? = fields["prize"], !text.isEmpty { prizeText = text }
            var id: String?
            switch fields["id"] {
            case nil: id = prizeText.map(PathText.stem)
            case .string(let text)? where !text.isEmpty: id = text
            case let other?:
                throw entryFail("id must be a non-empty string, not \(other.quoted)")
            }
            if let id { label += " (\(JSONText.quoted(id)))" }

            if let unknown = fields.keys.sorted().first(where: { !knownKeys.contains($0) }) {
                throw entryFail("unknown key \(JSONText.quoted(unknown)) (a card has id, prize, cover, weight, sound, celebrate, text, subtitle, color, background, cover-text, stock, claim, zones, grid, pick, symbols, decoys)")
            }
            let text = try cardText(fields, fail: entryFail)
            let zoneCard = try ZoneCard.parse(fields, files: files, fail: entryFail)
            if zoneCard != nil {
                guard id?.isEmpty == false else { throw entryFail("a zone card needs an \"id\"") }
                if let key = ["prize", "text"].first(where: { fields[$0] != nil }) {
                    throw entryFail("\(key) does not go with zones: a zone card is a ticket, its symbols are what it shows (its artwork is a cover)")
                }
            } else if fields["prize"] == nil && text == nil { throw entryFail("no prize image and no text") }
            var prize: String?
            if let prizeValue = fields["prize"] {
                guard let prizeText else { throw entryFail("prize must be a non-empty string (a file name), not \(prizeValue.quoted)") }
                guard id?.isEmpty == false else { throw entryFail("the prize's file name gives no id; add an \"id\"") }
                let (file, problem) = files.locate(prizeText)
                if let problem { throw entryFail("prize image \(file) \(problem)") }
                prize = file
            }
            guard let id, !id.isEmpty else { throw entryFail("a text card needs an \"id\"") }

            var cover: String?
            switch fields["cover"] {
            case nil: cover = nil
            case .string(let text)? where !text.isEmpty:
                let (file, problem) = files.locate(text)
                if let problem { throw entryFail("cover image \(file) \(problem)") }
                cover = file
            case let other?:
                throw entryFail("cover must be a non-empty string (a file name), not \(other.quoted)")
            }

            var sound = DeckSound.chime
            switch fields["sound"] {
            case nil: break
            case .null?: sound = .none
            case .string(let text)? where !text.isEmpty:
                let (file, problem) = files.locate(text)
                if let problem { throw entryFail("sound file \(file) \(problem)") }
                sound = .file(file)
            case let other?:
                throw entryFail("sound must be a file name or null, not \(other.quoted)")
            }
            var celebrate = true
            switch fields["celebrate"] {
            case nil: break
            case .bool(let on)?: celebrate = on
            case let other?: throw entryFail("celebrate must be true or false, not \(other.quoted)")
            }

            var weight = 1.0
            switch fields["weight"] {
            case nil: break
            case .number(let value)? where value.isFinite && value >= 0: weight = value
            case let other?: throw entryFail("weight must be a number >= 0, not \(other.quoted)")
            }
            var stock: Int?
            switch fields["stock"] {
            case nil: stock = nil
            case .number(let value)? where value >= 0 && value <= Double(maximumStock) && value == value.rounded(.down):
                stock = Int(value)
            case let other?: throw entryFail("stock must be a whole number from 0 to \(maximumStock), not \(other.quoted)")
            }
            var claim = false
            switch fields["claim"] {
            case nil: break
            case .bool(let on)?: claim = on
            case let other?: throw entryFail("claim must be true or false, not \(other.quoted)")
            }
            total += weight
            guard total.isFinite else { throw entryFail("the weights add up to more than a number can hold") }

            if let first = seen[id] { throw entryFail("the id is already used by cards[\(first)]") }
            seen[id] = index
            let ownCoverText = try coverText(fields["cover-text"], fail: entryFail)
            if ownCoverText != nil && cover != nil {
                throw entryFail("cover-text is drawn on the built-in foil, and this card has a cover image of its own")
            }
            cards.append(DeckCard(id: id, prize: prize, cover: cover, weight: weight, sound: sound, celebrate: celebrate, text: text,
                                  coverText: cover == nil ? ownCoverText ?? deckCoverText : nil, stock: stock, claim: claim, zoneCard: zoneCard))
        }
        guard let deck = Deck(cards: cards) else {
            throw fail(cards.isEmpty ? "no usable card: \"cards\" is empty" : "no usable card: every weight is 0")
        }
        return deck
    }

    /// A text card's words and colours, or nil when the entry has no "text".
    static func cardText(_ fields: [String: JSONValue], fail: (String) -> DeckError) throws(DeckError) -> CardText? {
        func words(_ key: String) throws(DeckError) -> String? {
            guard let value = fields[key] else { return nil }
            guard case .string(let text) = value else { throw fail("\(key) must be a string, not \(value.quoted)") }
            if let problem = CardText.problem(with: text) { throw fail("\(key) \(problem)") }
            return text
        }
        func colour(_ key: String) throws(DeckError) -> RGBA? {
            guard let value = fields[key] else { return nil }
            guard case .string(let text) = value, let colour = CardText.colour(parsing: text) else {
                throw fail("\(key) must be a colour as #RRGGBB, not \(value.quoted)")
            }
            return colour
        }
        let title = try words("text"), subtitle = try words("subtitle")
        let titleColour = try colour("color"), background = try colour("background")
        guard let title else {
            if let key = ["subtitle", "color", "background"].first(where: { fields[$0] != nil }) {
                throw fail("\(key) belongs to a text card; add a \"text\"")
            }
            return nil
        }
        return CardText(title: title, subtitle: subtitle, colour: titleColour, background: background)
    }

    /// A "cover-text" value: nil when absent, else words for the built-in foil.
    static func coverText(_ value: JSONValue?, fail: (String) -> DeckError) throws(DeckError) -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value else { throw fail("cover-text must be a string, not \(value.quoted)") }
        if let problem = CardText.problem(with: text) { throw fail("cover-text \(problem)") }
        return text
    }

    /// True for a regular file, following symbolic links (`stat`).
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFREG
    }

    /// Why a path is not a usable image file.
    static func problem(_ path: String) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return "does not exist" }
        return isFolder.boolValue ? "is a folder, not a file" : "is not a regular file"
    }
}
