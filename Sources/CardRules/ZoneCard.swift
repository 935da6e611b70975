import ScratchCore

/// A ticket's scratch zones, as a deck entry gives them: where the zones are (in the
/// card's points: on the built-in ticket's 640 x 400 design, or on the promoter's own
/// artwork, the card's cover image, in its points), what each shows, and how many the
/// player may pick. The window scales the zones with the card.
///
///     {"id": "coffee", "grid": {"x": 40, "y": 110, "w": 560, "h": 260, "columns": 3, "rows": 3, "gap": 12},
///      "pick": 3, "symbols": [{"text": "☕"}, {"text": "☕"}, {"text": "☕"}],
///      "decoys": [{"text": "🍋"}, {"text": "⭐"}, {"text": "🍒"}, {"text": "🍋"}, {"text": "⭐"}, {"text": "🍒"}]}
public struct ZoneCard: Equatable, Sendable {
    /// The zones in the card's points, numbered row by row from the top left for a grid.
    public let zones: [ZoneOutline]
    /// How many zones the player may open; nil: every zone, zone i showing symbols[i].
    public let pick: Int?
    /// What the zones show: the i-th zone started (with `pick`) or zone i (without).
    public let symbols: [ZoneSymbol]
    /// What the zones not picked show when they open, dimmed, in zone order.
    public let decoys: [ZoneSymbol]

    /// The size of the built-in ticket the zones are given on without artwork.
    public static let builtInCard = PixelSize(width: 640, height: 400)
    /// The size in points of the artwork the zones are printed on (the card's cover
    /// image); nil: the built-in ticket, drawn by the program at any size.
    public private(set) var artwork: PixelSize?
    /// The most zones a card may have.
    public static let maximumZones = 100

    public init(zones: [ZoneOutline], pick: Int?, symbols: [ZoneSymbol], decoys: [ZoneSymbol]) {
        self.zones = zones
        self.pick = pick
        self.symbols = symbols
        self.decoys = decoys
    }

    /// The same zones printed on artwork of `size` points (the cover image).
    public func printed(on size: PixelSize) -> ZoneCard {
        var card = self
        card.artwork = size
        return card
    }

    /// The zones in device pixels on a card of `size`. On the built-in ticket each axis
    /// is scaled from its design (the ticket is drawn for the size); on artwork, as the
    /// artwork is placed: fitted whole and centred (`Fitted`).
    public func outlines(in size: PixelSize) -> [ZoneOutline] {
        if let artwork {
            let fitted = Fitted(artwork, into: size)
            return zones.map(fitted.place)
        }
        let sx = Double(size.width) / Double(Self.builtInCard.width), sy = Double(size.height) / Double(Self.builtInCard.height)
        return zones.map { ZoneOutline(x: $0.x * sx, y: $0.y * sy, width: $0.width * sx, height: $0.height * sy, shape: $0.shape) }
    }

    /// The first zone that lies outside the card it is given on (the artwork, or the
    /// built-in ticket), as a message; nil when every zone is on the card.
    public var zoneOffTheCard: String? {
        let card = artwork ?? Self.builtInCard
        guard let i = zones.firstIndex(where: { zone in
            !(zone.x >= 0 && zone.y >= 0 && zone.x + zone.width <= Double(card.width) && zone.y + zone.height <= Double(card.height))
        }) else { return nil }
        let zone = zones[i]
        return "zone \(i) (x \(Self.number(zone.x)), y \(Self.number(zone.y)), w \(Self.number(zone.width)), h \(Self.number(zone.height))) "
            + "is outside the \(artwork == nil ? "ticket" : "cover") (0, 0, \(card.width) x \(card.height) points)"
    }

    /// The deck keys a zone card adds to an entry.
    public static let keys: Set<String> = ["zones", "grid", "pick", "symbols", "decoys"]

    /// A deck entry's zone card, or nil when it has none of `keys`. `files` finds
    /// symbol images; `fail` makes an error that names the entry.
    static func parse(_ fields: [String: JSONValue], files: any DeckFiles,
                             fail: (String) -> DeckError) throws(DeckError) -> ZoneCard? {
        guard keys.contains(where: { fields[$0] != nil }) else { return nil }
        var zones: [ZoneOutline]
        switch (fields["zones"], fields["grid"]) {
        case (nil, nil):
            let key = keys.sorted().first { fields[$0] != nil }!
            throw fail("\(key) belongs to a zone card; add \"zones\" or a \"grid\"")
        case (.some, .some):
            throw fail("a card has \"zones\" or a \"grid\", not both")
        case (let value?, nil):
            guard case .array(let list) = value, !list.isEmpty else {
                throw fail("zones must be a non-empty array of {\"x\", \"y\", \"w\", \"h\"}, not \(value.quoted)")
            }
            guard list.count <= maximumZones else { throw fail("\(list.count) zones; a card may have at most \(maximumZones)") }
            zones = []
            for (i, item) in list.enumerated() {
                zones.append(try zone(item, label: "zones[\(i)]", fail: fail))
            }
        case (nil, let value?):
            zones = try grid(value, fail: fail)
        }
        // Whether each zone is on the card is known once the card's cover is: the
        // dealer checks it (`zoneOffTheCard`) before the first card is dealt.
        for (i, zone) in zones.enumerated() {
            let name = fields["grid"] != nil ? "grid zone \(i)" : "zones[\(i)]"
            if let j = zones[..<i].firstIndex(where: { overlap($0, zone) }) {
                throw fail("\(name) overlaps \(fields["grid"] != nil ? "grid zone \(j)" : "zones[\(j)]")")
            }
        }

        var pick: Int?
        switch fields["pick"] {
        case nil: break
        case .number(let k)? where k >= 1 && k <= Double(maximumZones) && k == k.rounded(.down):
            pick = Int(k)
        case let other?: throw fail("pick must be a whole number from 1, not \(other.quoted)")
        }
        if let pick, pick > zones.count {
            throw fail("pick is \(pick), more than the card's \(zones.count) zones")
        }
        let symbols = try symbolList(fields["symbols"], key: "symbols", files: files, fail: fail)
        let decoys = try symbolList(fields["decoys"], key: "decoys", files: files, fail: fail)
        if let pick {
            if symbols.count < pick { throw fail("symbols has \(symbols.count), fewer than pick (\(pick))") }
            let left = zones.count - pick
            if decoys.count < left { throw fail("decoys has \(decoys.count), fewer than the \(left) zones left over after pick") }
        } else {
            if symbols.count < zones.count { throw fail("symbols has \(symbols.count), fewer than the \(zones.count) zones") }
            if fields["decoys"] != nil { throw fail("decoys belong to a card with \"pick\"") }
        }
        return ZoneCard(zones: zones, pick: pick, symbols: symbols, decoys: decoys)
    }

    /// Whether two zones share any area (an ellipse counts as its bounding box).
    static func overlap(_ a: ZoneOutline, _ b: ZoneOutline) -> Bool {
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
    }

    static func number(_ v: Double) -> String { PlainDecimal.format(v) ?? "\(v)" }

    static func field(_ fields: [String: JSONValue], _ key: String, label: String,
                      fail: (String) -> DeckError) throws(DeckError) -> Double {
        guard let value = fields[key] else { throw fail("\(label) has no \"\(key)\"") }
        guard case .number(let v) = value, v.isFinite, abs(v) <= 1e6 else {
            throw fail("\(label).\(key) must be a number, not \(value.quoted)")
        }
        return v
    }

    static func zone(_ value: JSONValue, label: String, fail: (String) -> DeckError) throws(DeckError) -> ZoneOutline {
        guard case .object(let f) = value else { throw fail("\(label) must be an object {\"x\", \"y\", \"w\", \"h\"}, not \(value.quoted)") }
        if let unknown = f.keys.sorted().first(where: { !["x", "y", "w", "h", "shape"].contains($0) }) {
            throw fail("\(label): unknown key \(JSONText.quoted(unknown)) (a zone has x, y, w, h, shape)")
        }
        let x = try field(f, "x", label: label, fail: fail), y = try field(f, "y", label: label, fail: fail)
        let w = try field(f, "w", label: label, fail: fail), h = try field(f, "h", label: label, fail: fail)
        guard w > 0, h > 0 else { throw fail("\(label) must have w and h greater than 0") }
        var shape = ZoneOutline.Shape.rectangle
        switch f["shape"] {
        case nil: break
        case .string("rectangle")?: shape = .rectangle
        case .string("ellipse")?: shape = .ellipse
        case let other?: throw fail("\(label).shape must be \"rectangle\" or \"ellipse\", not \(other.quoted)")
        }
        return ZoneOutline(x: x, y: y, width: w, height: h, shape: shape)
    }

    static func grid(_ value: JSONValue, fail: (String) -> DeckError) throws(DeckError) -> [ZoneOutline] {
        guard case .object(let f) = value else { throw fail("grid must be an object {\"x\", \"y\", \"w\", \"h\", \"columns\", \"rows\", \"gap\"}, not \(value.quoted)") }
        if let unknown = f.keys.sorted().first(where: { !["x", "y", "w", "h", "columns", "rows", "gap", "shape"].contains($0) }) {
            throw fail("grid: unknown key \(JSONText.quoted(unknown)) (a grid has x, y, w, h, columns, rows, gap, shape)")
        }
        let x = try field(f, "x", label: "grid", fail: fail), y = try field(f, "y", label: "grid", fail: fail)
        let w = try field(f, "w", label: "grid", fail: fail), h = try field(f, "h", label: "grid", fail: fail)
        let gap = f["gap"] == nil ? 0 : try field(f, "gap", label: "grid", fail: fail)
        func count(_ key: String) throws(DeckError) -> Int {
            let v = try field(f, key, label: "grid", fail: fail)
            guard v >= 1, v <= Double(maximumZones), v == v.rounded(.down) else {
                throw fail("grid.\(key) must be a whole number from 1 to \(maximumZones), not \(number(v))")
            }
            return Int(v)
        }
        let columns = try count("columns"), rows = try count("rows")
        guard columns * rows <= maximumZones else { throw fail("grid makes \(columns * rows) zones; a card may have at most \(maximumZones)") }
        guard gap >= 0 else { throw fail("grid.gap must be 0 or more, not \(number(gap))") }
        let cellW = (w - Double(columns - 1) * gap) / Double(columns)
        let cellH = (h - Double(rows - 1) * gap) / Double(rows)
        guard cellW > 0, cellH > 0 else { throw fail("grid leaves no room for its zones: w and h must exceed the gaps") }
        var shape = ZoneOutline.Shape.rectangle
        switch f["shape"] {
        case nil: break
        case .string("rectangle")?: shape = .rectangle
        case .string("ellipse")?: shape = .ellipse
        case let other?: throw fail("grid.shape must be \"rectangle\" or \"ellipse\", not \(other.quoted)")
        }
        return ZoneGrid(x: x, y: y, width: w, height: h, columns: columns, rows: rows, gap: gap, shape: shape).zones
    }

    static func symbolList(_ value: JSONValue?, key: String, files: any DeckFiles,
                           fail: (String) -> DeckError) throws(DeckError) -> [ZoneSymbol] {
        guard let value else { return [] }
        guard case .array(let list) = value else { throw fail("\(key) must be an array, not \(value.quoted)") }
        guard list.count <= maximumZones else { throw fail("\(key) has \(list.count) entries; at most \(maximumZones)") }
        var out: [ZoneSymbol] = []
        for (i, item) in list.enumerated() {
            let label = "\(key)[\(i)]"
            switch item {
            case .string(let name) where !name.isEmpty:
                let (file, problem) = files.locate(name)
                if let problem { throw fail("\(label): symbol image \(file) \(problem)") }
                out.append(.image(file))
            case .object(let f):
                if let unknown = f.keys.sorted().first(where: { $0 != "text" && $0 != "color" }) {
                    throw fail("\(label): unknown key \(JSONText.quoted(unknown)) (a symbol has text, color)")
                }
                guard case .string(let text)? = f["text"] else { throw fail("\(label) needs a \"text\" string") }
                if let problem = CardText.problem(with: text) { throw fail("\(label).text \(problem)") }
                var colour: RGBA?
                if let c = f["color"] {
                    guard case .string(let t) = c, let parsed = CardText.colour(parsing: t) else {
                        throw fail("\(label).color must be a colour as #RRGGBB, not \(c.quoted)")
                    }
                    colour = parsed
                }
                out.append(.text(text, colour: colour))
            default:
                throw fail("\(label) must be an image file name or {\"text\": ...}, not \(item.quoted)")
            }
        }
        return out
    }
}

/// A deck entry's `grid`, as given: `columns` x `rows` cells of one size in a box of
/// `width` x `height` at (`x`, `y`), `gap` apart. The parser turns it into zones; the
/// writer finds it again in zones (`init?(matching:)`) to write the grid back.
struct ZoneGrid: Equatable {
    var x, y, width, height: Double
    var columns, rows: Int
    var gap: Double
    var shape: ZoneOutline.Shape

    init(x: Double, y: Double, width: Double, height: Double, columns: Int, rows: Int, gap: Double, shape: ZoneOutline.Shape) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.columns = columns
        self.rows = rows
        self.gap = gap
        self.shape = shape
    }

    /// The cells row by row from the top left: the zones a `grid` entry gives.
    var zones: [ZoneOutline] {
        let cellW = (width - Double(columns - 1) * gap) / Double(columns)
        let cellH = (height - Double(rows - 1) * gap) / Double(rows)
        var zones: [ZoneOutline] = []
        for r in 0..<rows {
            for c in 0..<columns {
                zones.append(ZoneOutline(x: x + Double(c) * (cellW + gap), y: y + Double(r) * (cellH + gap),
                                         width: cellW, height: cellH, shape: shape))
            }
        }
        return zones
    }

    /// The grid that gives exactly these zones, when one is found; nil for zones that are
    /// not a grid's (or are one only up to rounding: then the zones are written as they are).
    init?(matching zones: [ZoneOutline]) {
        guard let first = zones.first, zones.count <= ZoneCard.maximumZones else { return nil }
        let columns = zones.prefix { $0.y == first.y }.count
        guard zones.count % columns == 0 else { return nil }
        let rows = zones.count / columns
        let last = zones[zones.count - 1]
        // The gap between two cells, and the box from the first cell's corner to the last
        // one's, are each computed by subtraction, which may be off in the last digit from
        // what the deck said: try them as computed and rounded to a thousandth.
        func candidates(_ value: Double) -> [Double] {
            let rounded = (value * 1000).rounded() / 1000
            return rounded == value ? [value] : [value, rounded]
        }
        let gaps = columns > 1 ? zones[1].x - (first.x + first.width)
            : rows > 1 ? zones[columns].y - (first.y + first.height) : 0
        for gap in candidates(gaps) where gap >= 0 {
            for width in candidates(last.x + last.width - first.x) {
                for height in candidates(last.y + last.height - first.y) {
                    let grid = ZoneGrid(x: first.x, y: first.y, width: width, height: height,
                                        columns: columns, rows: rows, gap: gap, shape: first.shape)
                    if grid.zones == zones { self = grid; return }
                }
            }
        }
        return nil
    }
}

/// What a zone shows: an image (an absolute path), or words or emoji in the card's style.
public enum ZoneSymbol: Equatable, Sendable {
    case image(String)
    case text(String, colour: RGBA?)
}
