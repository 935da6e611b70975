import Foundation

/// One pick of a zone ticket as it is recorded: the zone the player started (its index in
/// the card's zones, from 0, row by row for a grid) and what it showed, named shortly (a
/// text symbol's words, an image symbol's file name: `ZoneSymbol.recordedName`).
///
/// A ticket's picks are one JSON array, in the order started, wherever they are kept:
/// the outcome log's `"picks"`, the store's and the pool's `outcomes.picks` and the pool
/// outbox (TEXT columns holding this text as written), `claims --json`:
///
///     [{"zone":4,"symbol":"☕"},{"zone":0,"symbol":"cherry.png"}]
///
/// An outcome log written before the symbols were recorded has zones only
/// (`"picks":[4,0,8]`): read as picks whose `symbol` is nil.
public struct ZonePick: Equatable, Sendable {
    public var zone: Int
    /// The symbol the zone showed, named; nil for a pick recorded with its zone only.
    public var symbol: String?

    public init(zone: Int, symbol: String?) {
        self.zone = zone
        self.symbol = symbol
    }

    /// The picks as one JSON array (the one form every record keeps them in).
    public static func json(_ picks: [ZonePick]) -> String {
        "[" + picks.map { pick in
            "{\"zone\":\(pick.zone)" + (pick.symbol.map { ",\"symbol\":" + JSONText.quoted($0) } ?? "") + "}"
        }.joined(separator: ",") + "]"
    }

    /// Picks read back from `json`'s text (or an old log's array of zones); nil when the
    /// text is not a list of picks a ticket can have (damaged, or edited by hand).
    public static func list(json text: String) -> [ZonePick]? {
        guard let picks = try? JSONDecoder().decode([ZonePick].self, from: Data(text.utf8)), areValid(picks) else { return nil }
        return picks
    }

    /// What a ticket can have started: at most `ZoneCard.maximumZones` picks, each a zone
    /// of a card (0 ..< maximumZones), none twice.
    public static func areValid(_ picks: [ZonePick]) -> Bool {
        picks.count <= ZoneCard.maximumZones && picks.allSatisfy { (0..<ZoneCard.maximumZones).contains($0.zone) }
            && Set(picks.map(\.zone)).count == picks.count
    }

    /// The picks for people, on one line: `zone 4 ☕, zone 0 cherry.png` (zones from 0).
    public static func text(_ picks: [ZonePick]) -> String {
        picks.map { pick in "zone \(pick.zone)" + (pick.symbol.map { " " + oneLine($0) } ?? "") }.joined(separator: ", ")
    }

    /// A symbol's words on one line, for people: a line break shown as a space. (The
    /// standard library's map, not Foundation's replacingOccurrences, which would link
    /// swift-corelibs-foundation into the static binary.)
    public static func oneLine(_ symbol: String) -> String {
        String(symbol.map { $0.isNewline ? " " : $0 })
    }
}

extension ZonePick: Decodable {
    private enum Keys: String, CodingKey { case zone, symbol }

    /// `{"zone": 4, "symbol": "☕"}`, or a bare zone number (an old log's).
    public init(from decoder: any Decoder) throws {
        if let zone = try? decoder.singleValueContainer().decode(Int.self) {
            self.init(zone: zone, symbol: nil)
            return
        }
        let fields = try decoder.container(keyedBy: Keys.self)
        self.init(zone: try fields.decode(Int.self, forKey: .zone), symbol: try fields.decodeIfPresent(String.self, forKey: .symbol))
    }
}

extension ZoneSymbol {
    /// How the records name this symbol: a text symbol's words; an image's file name
    /// (its folder says nothing to someone reading a record, and changes with the
    /// install).
    public var recordedName: String {
        switch self {
        case .text(let words, _): words
        case .image(let path): path.split(separator: "/").last.map(String.init) ?? path
        }
    }
}

extension ZoneTicket {
    /// The zones started, in order, each with the symbol it shows, named as the records
    /// name it. `symbols`: the card's (`ZoneCard.symbols`). What a zone shows is the
    /// ticket's to say (`shows`), not worked out again here.
    public func picks(symbols: [ZoneSymbol]) -> [ZonePick] {
        started.map { zone in
            guard case .symbol(let i)? = shows(zone), symbols.indices.contains(i) else { return ZonePick(zone: zone, symbol: nil) }
            return ZonePick(zone: zone, symbol: symbols[i].recordedName)
        }
    }
}
