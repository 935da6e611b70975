/// The card options a card file carries beside its deck (`card.json`'s top level):
/// `"reveal-at"` (percent, > 0 and <= 100), `"brush"` (points, > 0 and <= 10,000) and
/// `"celebrate"` (true or false). Nil: not set, the window's own option stands.
public struct CardSettings: Equatable, Sendable {
    public var revealAtPercent: Double?
    public var brushPoints: Double?
    public var celebrate: Bool?

    public init(revealAtPercent: Double? = nil, brushPoints: Double? = nil, celebrate: Bool? = nil) {
        self.revealAtPercent = revealAtPercent
        self.brushPoints = brushPoints
        self.celebrate = celebrate
    }

    /// The keys it reads, in the order a card file writes them.
    public static let keys = ["reveal-at", "brush", "celebrate"]

    /// Reads (and removes) its keys from a document's top level.
    init(taking top: inout [String: JSONValue], fail: (String) -> DeckError) throws(DeckError) {
        func number(_ key: String, upTo limit: Double) throws(DeckError) -> Double? {
            guard let value = top.removeValue(forKey: key) else { return nil }
            guard case .number(let n) = value, n > 0, n <= limit else {
                throw fail("\(key) must be a number greater than 0 and at most \(Int(limit)), not \(value.quoted)")
            }
            return n
        }
        revealAtPercent = try number("reveal-at", upTo: 100)
        brushPoints = try number("brush", upTo: 10_000)
        switch top.removeValue(forKey: "celebrate") {
        case nil: celebrate = nil
        case .bool(let on)?: celebrate = on
        case let other?: throw fail("celebrate must be true or false, not \(other.quoted)")
        }
    }
}
