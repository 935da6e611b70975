import ScratchCore

/// What a file a deck names is for: an image (a prize, a cover, a zone's symbol or decoy)
/// or a reveal sound.
public enum DeckFileKind: Sendable {
    case image
    case sound
}

// Writing a deck back as the deck JSON `Deck.parse` reads: the parser's inverse, kept
// beside it so that a key the parser learns is a key the writer must learn (the round-trip
// tests and the deck fuzzer hold them together). For a deck the parser gave,
// `Deck.parse(deck.json(...))` is the same deck, the files named as `naming` renames them.
// A deck made in code may hold what no deck file can say, which is written as it is and
// refused when read (a cover image beside a cover-text), or left out (a colour's alpha).

extension Deck {
    /// The deck as a deck file's JSON, one card a line; with `settings` set, as a card
    /// file's `card.json` (which `parseCard` reads; a deck file holds no settings).
    /// `naming` gives the name to write for each file a card names (as the deck keeps it:
    /// an absolute path, or a card file's path and entry), with what it is for: called for every mention, card by card, in the order
    /// prize, cover, sound, symbols, decoys. A cover-text that every card without a cover
    /// shares is written once, as the deck's.
    ///
    ///     let text = try deck.json { file, _ in String(file.dropFirst(folder.count + 1)) }
    public func json<E: Error>(settings: CardSettings = CardSettings(),
                               naming: (_ file: String, _ kind: DeckFileKind) throws(E) -> String) throws(E) -> String {
        var top: [String] = []
        if let reveal = settings.revealAtPercent { top.append("\"reveal-at\": " + JSONText.number(reveal)) }
        if let brush = settings.brushPoints { top.append("\"brush\": " + JSONText.number(brush)) }
        if let celebrate = settings.celebrate { top.append("\"celebrate\": \(celebrate)") }
        // The parser gives every card without a cover of its own the deck's cover-text
        // (unless it has its own), and a card with a cover none.
        let prompts = cards.filter { $0.cover == nil }.map(\.coverText)
        let shared = prompts.first.flatMap { first in prompts.allSatisfy { $0 == first } ? first : nil }
        if let shared { top.append("\"cover-text\": " + JSONText.quoted(shared)) }
        var lines: [String] = []
        lines.reserveCapacity(cards.count)
        for card in cards {
            lines.append("    " + (try card.json(deckCoverText: shared, naming: naming)))
        }
        top.append("\"cards\": [\n" + lines.joined(separator: ",\n") + "\n  ]")
        return "{\n  " + top.joined(separator: ",\n  ") + "\n}\n"
    }

    /// The deck as JSON with every file under the name the deck keeps (absolute paths).
    public func json(settings: CardSettings = CardSettings()) -> String {
        json(settings: settings) { (file, _) throws(Never) in file }
    }
}

extension DeckCard {
    /// The card as one deck entry, on one line: `{"id": ..., ...}`, keys left out where
    /// the parser's default is the card's. `naming` as in `Deck.json`.
    public func json<E: Error>(naming: (_ file: String, _ kind: DeckFileKind) throws(E) -> String) throws(E) -> String {
        try json(deckCoverText: nil, naming: naming)
    }

    /// Every file the card names (prize, cover, sound, symbol and decoy images), in the
    /// order `json` names them, repeats included.
    public var files: [(file: String, kind: DeckFileKind)] {
        var found: [(file: String, kind: DeckFileKind)] = []
        _ = json { (file, kind) throws(Never) in found.append((file, kind)); return file }
        return found
    }

    /// `deckCoverText`: the deck's, written at its top level; the card's own is left out
    /// when it is what the deck gives it.
    func json<E: Error>(deckCoverText: String?,
                        naming: (_ file: String, _ kind: DeckFileKind) throws(E) -> String) throws(E) -> String {
        var fields: [(key: String, value: String)] = [("id", JSONText.quoted(id))]
        if let prize { fields.append(("prize", JSONText.quoted(try naming(prize, .image)))) }
        if let cover { fields.append(("cover", JSONText.quoted(try naming(cover, .image)))) }
        if weight != 1 { fields.append(("weight", JSONText.number(weight))) }
        switch sound {
        case .chime: break
        case .none: fields.append(("sound", "null"))
        case .file(let file): fields.append(("sound", JSONText.quoted(try naming(file, .sound))))
        }
        if !celebrate { fields.append(("celebrate", "false")) }
        if let text { fields += text.jsonFields }
        if let coverText, coverText != deckCoverText || cover != nil { fields.append(("cover-text", JSONText.quoted(coverText))) }
        if let stock { fields.append(("stock", String(stock))) }
        if claim { fields.append(("claim", "true")) }
        if let zoneCard { fields += try zoneCard.jsonFields(naming: naming) }
        return "{" + fields.map { JSONText.quoted($0.key) + ": " + $0.value }.joined(separator: ", ") + "}"
    }
}

extension CardText {
    /// A text card's keys: `text`, and `subtitle`, `color`, `background` when set.
    var jsonFields: [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = [("text", JSONText.quoted(title))]
        if let subtitle { fields.append(("subtitle", JSONText.quoted(subtitle))) }
        if let colour { fields.append(("color", JSONText.quoted(Self.hex(colour)))) }
        if let background { fields.append(("background", JSONText.quoted(Self.hex(background)))) }
        return fields
    }

    /// A colour as `#RRGGBB` (upper case), what `colour(parsing:)` reads; alpha is not
    /// written (a deck's colours are opaque).
    public static func hex(_ colour: RGBA) -> String {
        let digits = [colour.r, colour.g, colour.b].map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }
        return "#" + digits.joined()
    }
}

extension ZoneCard {
    /// A zone card's keys: `grid` when the zones are a grid's (exactly), else `zones`;
    /// `pick`, `symbols`, and `decoys` when there are any.
    func jsonFields<E: Error>(naming: (_ file: String, _ kind: DeckFileKind) throws(E) -> String) throws(E) -> [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = []
        if let grid = ZoneGrid(matching: zones) {
            var parts = [("x", grid.x), ("y", grid.y), ("w", grid.width), ("h", grid.height),
                         ("columns", Double(grid.columns)), ("rows", Double(grid.rows))]
                .map { "\"\($0.0)\": " + JSONText.number($0.1) }
            if grid.gap != 0 { parts.append("\"gap\": " + JSONText.number(grid.gap)) }
            if grid.shape != .rectangle { parts.append("\"shape\": " + JSONText.quoted(grid.shape.rawValue)) }
            fields.append(("grid", "{" + parts.joined(separator: ", ") + "}"))
        } else {
            let list = zones.map { zone in
                var parts = [("x", zone.x), ("y", zone.y), ("w", zone.width), ("h", zone.height)]
                    .map { "\"\($0.0)\": " + JSONText.number($0.1) }
                if zone.shape != .rectangle { parts.append("\"shape\": " + JSONText.quoted(zone.shape.rawValue)) }
                return "{" + parts.joined(separator: ", ") + "}"
            }
            fields.append(("zones", "[" + list.joined(separator: ", ") + "]"))
        }
        if let pick { fields.append(("pick", String(pick))) }
        func list(_ symbols: [ZoneSymbol]) throws(E) -> String {
            var items: [String] = []
            for symbol in symbols {
                switch symbol {
                case .image(let file): items.append(JSONText.quoted(try naming(file, .image)))
                case .text(let words, let colour):
                    items.append("{\"text\": " + JSONText.quoted(words)
                                 + (colour.map { ", \"color\": " + JSONText.quoted(CardText.hex($0)) } ?? "") + "}")
                }
            }
            return "[" + items.joined(separator: ", ") + "]"
        }
        fields.append(("symbols", try list(symbols)))
        if !decoys.isEmpty { fields.append(("decoys", try list(decoys))) }
        return fields
    }
}

extension JSONText {
    /// A finite number as JSON that reads back as exactly the same `Double`, without an
    /// exponent: 3 -> "3", 0.1 -> "0.1", 1e-7 -> "0.0000001". A non-finite one (which
    /// JSON cannot hold) is written as `null`.
    public static func number(_ value: Double) -> String { PlainDecimal.format(value) ?? "null" }
}
