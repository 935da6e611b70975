import ScratchCore

/// Words a card shows in place of a prize image (a deck's text card), drawn by the
/// program at the window's size in the built-in prize's style:
///
///     let coffee = CardText(title: "Free coffee", subtitle: "Show this at the counter")
///     let tea = CardText(title: "شاي مجاني", colour: CardText.colour(parsing: "#FFFFFF"))
public struct CardText: Equatable, Sendable {
    /// The big words.
    public var title: String
    /// A smaller line on a ribbon beneath, if any.
    public var subtitle: String?
    /// The title's colour (default: white to pale gold, outlined in dark red).
    public var colour: RGBA?
    /// The card's colour behind the words (default: the built-in orange sunburst).
    public var background: RGBA?

    public init(title: String, subtitle: String? = nil, colour: RGBA? = nil, background: RGBA? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.colour = colour
        self.background = background
    }

    /// The built-in prize's words.
    public static let builtInPrize = CardText(title: "YOU WIN!", subtitle: "FREE COFFEE")

    /// The most characters (as a reader counts them: grapheme clusters) a card's text may
    /// have: enough for a sentence, few enough to stay readable on a card.
    public static let maximumCharacters = 200

    /// Why `text` cannot be a card's text, or nil when it can: empty (or only spaces),
    /// too long, or holding control characters other than line breaks.
    public static func problem(with text: String) -> String? {
        if text.allSatisfy({ $0.isWhitespace }) { return "is empty" }
        if text.count > maximumCharacters { return "has \(text.count) characters; at most \(maximumCharacters)" }
        if let bad = text.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\n") || (0x7F..<0xA0).contains($0.value) }) {
            return "holds the control character U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4))"
        }
        return nil
    }

    /// `#RRGGBB` (hex digits of either case) as an opaque colour; nil for anything else.
    public static func colour(parsing text: String) -> RGBA? {
        let digits = Array(text.utf8)
        guard digits.count == 7, digits[0] == UInt8(ascii: "#") else { return nil }
        var value: UInt32 = 0
        for d in digits[1...] {
            let nibble: UInt8
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = d - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = d - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = d - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(nibble)
        }
        return RGBA(r: UInt8(value >> 16), g: UInt8((value >> 8) & 0xFF), b: UInt8(value & 0xFF), a: 255)
    }
}

extension String {
    func leftPadded(to count: Int) -> String {
        self.count >= count ? self : String(repeating: "0", count: count - self.count) + self
    }
}
