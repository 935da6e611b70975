@testable import CardRules
import Foundation
import ScratchCore
import Testing

/// A deck written back (`Deck.json`) reads as the same deck: every kind of card, every
/// key, numbers and words exact; the naming hook renames every file the deck names.
struct DeckJSONTests {
    /// The files the decks below name (the parser only needs them to be regular files).
    static let fileNames = ["a.png", "b.png", "cover.png", "fanfare.wav", "s1.png", "s2.png", "decoy.png"]

    static func folder() throws -> TemporaryFolder {
        let tmp = try TemporaryFolder()
        for name in fileNames { try tmp.write(name) }
        return tmp
    }

    /// `text` as a deck file in `tmp`, parsed.
    static func deck(_ text: String, in tmp: TemporaryFolder) throws -> Deck {
        try Deck.parse(bytes: Data(text.utf8), path: tmp.path + "/deck.json")
    }

    /// The deck written back with its files as they are, parsed again.
    static func again(_ deck: Deck, in tmp: TemporaryFolder) throws -> Deck {
        try Deck.parse(bytes: Data(deck.json().utf8), path: tmp.path + "/deck.json")
    }

    /// Every kind of card the parser knows.
    static let everyKind = #"""
        {"cards": [
          {"id": "coffee", "prize": "a.png", "cover": "cover.png", "weight": 3, "sound": "fanfare.wav", "stock": 5},
          {"prize": "b.png", "sound": null, "celebrate": false, "weight": 0.1},
          {"id": "tea", "text": "Free tea", "subtitle": "at the counter", "color": "#ffffff", "background": "#2E7D32", "cover-text": "Rub me"},
          {"id": "overprint", "prize": "a.png", "text": "Yours", "color": "#010203"},
          {"id": "nothing", "text": "Sorry", "weight": 0, "celebrate": false},
          {"id": "bike", "text": "Bike", "claim": true, "stock": 0},
          {"id": "unclaimed", "text": "No code", "claim": false},
          {"id": "ticket", "grid": {"x": 40, "y": 110, "w": 560, "h": 270, "columns": 3, "rows": 3, "gap": 15}, "pick": 3,
           "symbols": ["s1.png", {"text": "☕", "color": "#FF0000"}, {"text": "Win"}],
           "decoys": ["decoy.png", "decoy.png", {"text": "🍋"}, "s2.png", {"text": "⭐", "color": "#00ff00"}, "decoy.png"],
           "sound": null, "cover-text": "PICK 3"},
          {"id": "ovals", "zones": [{"x": 10.5, "y": 10, "w": 100, "h": 50, "shape": "ellipse"}, {"x": 120, "y": 10, "w": 100.25, "h": 50, "shape": "rectangle"},
                                    {"x": 300, "y": 200, "w": 0.001, "h": 199}],
           "symbols": ["s2.png", {"text": "b"}, {"text": "c", "color": "#ABCDEF"}], "weight": 2.5},
          {"id": "one", "grid": {"x": 0, "y": 0, "w": 640, "h": 400, "columns": 1, "rows": 1, "shape": "ellipse"}, "pick": 1, "symbols": [{"text": "W"}]}
        ]}
        """#

    @Test("every kind of card (prize, cover, weight, sound file/null/chime, celebrate, text with colours and subtitle, cover-text, stock, claim, a grid with pick and decoys, listed zones with an ellipse, symbol images) reads back the same")
    func everyKindRoundTrips() throws {
        let tmp = try Self.folder()
        let deck = try Self.deck(Self.everyKind, in: tmp)
        #expect(deck.cards.count == 10)
        let again = try Self.again(deck, in: tmp)
        #expect(again == deck)
        for (a, b) in zip(again.cards, deck.cards) { #expect(a == b, "\(a.id)") }
        // What the bug lost, there in the text and in the deck read back.
        let text = deck.json()
        #expect(text.contains(#""claim": true"#) && again.cards[5].claim && !again.cards[6].claim)
        #expect(again.cards[7].zoneCard?.zones.count == 9 && again.cards[7].zoneCard?.decoys.count == 6)
        // A grid is written back as a grid, listed zones as zones, one card a line.
        #expect(text.contains(#""grid": {"x": 40, "y": 110, "w": 560, "h": 270, "columns": 3, "rows": 3, "gap": 15}"#), "\(text)")
        #expect(text.contains(#""grid": {"x": 0, "y": 0, "w": 640, "h": 400, "columns": 1, "rows": 1, "shape": "ellipse"}"#), "\(text)")
        #expect(text.contains(#""zones": [{"x": 10.5, "y": 10, "w": 100, "h": 50, "shape": "ellipse"}, {"x": 120, "y": 10, "w": 100.25, "h": 50}, {"x": 300, "y": 200, "w": 0.001, "h": 199}]"#), "\(text)")
        #expect(text.split(separator: "\n").count == deck.cards.count + 4, "\(text)")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("    {\"id\": ") }.count == deck.cards.count)
        // Written again, the same text: nothing drifts.
        #expect(again.json() == text)
    }

    @Test("the naming hook: every file the deck names, in order, with its kind; renamed, the deck beside the files reads the same")
    func namingHook() throws {
        let tmp = try Self.folder()
        let deck = try Self.deck(Self.everyKind, in: tmp)
        var named: [(String, DeckFileKind)] = []
        let text = deck.json { (file, kind) throws(Never) in
            named.append((file, kind))
            return String(file.dropFirst(tmp.path.count + 1))    // relative to the deck's folder
        }
        let p = tmp.path + "/"
        let expected: [(String, DeckFileKind)] = [
            ("a.png", .image), ("cover.png", .image), ("fanfare.wav", .sound), ("b.png", .image), ("a.png", .image),
            ("s1.png", .image), ("decoy.png", .image), ("decoy.png", .image), ("s2.png", .image), ("decoy.png", .image),
            ("s2.png", .image),
        ]
        #expect(named.map(\.0) == expected.map { p + $0.0 } && named.map(\.1) == expected.map(\.1), "\(named)")
        #expect(deck.cards.flatMap { $0.files.map(\.file) } == named.map(\.0))
        #expect(!text.contains(tmp.path), "an absolute path left: \(text)")
        let path = try tmp.write("again.json", text)
        #expect(try Deck.load(path: path) == deck)

        // A hook's error stops the writing and comes out as it is.
        struct Refused: Error, Equatable { let file: String }
        #expect(throws: Refused(file: p + "a.png")) {
            _ = try deck.json { (file, _) throws(Refused) in throw Refused(file: file) }
        }
    }

    @Test("a card file's card.json: the settings beside the deck read back with it")
    func settingsRoundTrip() throws {
        let tmp = try Self.folder()
        let deck = try Self.deck(Self.everyKind, in: tmp)
        for settings in [CardSettings(), CardSettings(revealAtPercent: 40, brushPoints: 12.5, celebrate: false),
                         CardSettings(revealAtPercent: 0.1 + 0.2, celebrate: true), CardSettings(brushPoints: 1e-7)] {
            let text = deck.json(settings: settings)
            let (again, read) = try Deck.parseCard(bytes: Array(text.utf8), path: tmp.path + "/card.json", files: FolderFiles(folder: tmp.path))
            #expect(again == deck && read == settings, "\(text)")
        }
    }

    @Test("the deck's cover-text: written once when every card without a cover shares it, else each card's own")
    func coverText() throws {
        let tmp = try Self.folder()
        let shared = try Self.deck(#"""
            {"cover-text": "Scratch me", "cards": [{"id": "a", "text": "A"}, {"id": "b", "prize": "a.png", "cover": "cover.png"},
              {"id": "t", "zones": [{"x": 0, "y": 0, "w": 10, "h": 10}], "symbols": [{"text": "x"}]}]}
            """#, in: tmp)
        let text = shared.json()
        #expect(text.contains(#""cover-text": "Scratch me""#) && text.components(separatedBy: "cover-text").count == 2, "\(text)")
        #expect(try Self.again(shared, in: tmp) == shared)
        let mixed = try Self.deck(#"""
            {"cover-text": "Scratch me", "cards": [{"id": "a", "text": "A"}, {"id": "b", "text": "B", "cover-text": "Not this"},
              {"id": "c", "prize": "a.png", "cover": "cover.png"}]}
            """#, in: tmp)
        #expect(try Self.again(mixed, in: tmp) == mixed)
        let none = try Self.deck(#"{"cards": [{"id": "a", "text": "A"}]}"#, in: tmp)
        #expect(!none.json().contains("cover-text"))
    }

    @Test("numbers read back exactly: fractions, the smallest and largest doubles, exponents, whole numbers beyond 2^53")
    func numbers() throws {
        let tmp = try Self.folder()
        let weights = ["0.1", "0.30000000000000004", "1e-7", "5e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
                       "123456789.125", "1e21", "9007199254740993", "4.35", "1E2", "0.000001", "3.14159265358979311"]
        for weight in weights {
            let deck = try Self.deck(#"{"cards": [{"id": "w", "text": "W", "weight": \#(weight)}]}"#, in: tmp)
            let text = deck.json()
            let written = text.components(separatedBy: "\"weight\": ").dropFirst().first?.prefix { $0 != "," && $0 != "}" } ?? ""
            #expect(!written.isEmpty && written.allSatisfy { "0123456789.".contains($0) }, "not a plain decimal: \(text)")
            #expect(try Self.again(deck, in: tmp) == deck, "weight \(weight): \(text)")
        }
        // Zones at awkward fractions: a grid whose cells are thirds, one whose gap is not
        // a round sum, tiny cells; each reads back the same, as a grid or as listed zones.
        for grid in [#"{"x": 0.1, "y": 0.2, "w": 639.7, "h": 399.3, "columns": 7, "rows": 3, "gap": 0.3}"#,
                     #"{"x": 1e-9, "y": 0, "w": 100, "h": 100, "columns": 3, "rows": 3, "gap": 0.1}"#,
                     #"{"x": 0, "y": 0, "w": 1e-6, "h": 3e-7, "columns": 10, "rows": 10, "gap": 1e-8}"#,
                     #"{"x": 17.25, "y": 33.33, "w": 333.333, "h": 222.222, "columns": 4, "rows": 5, "gap": 1.111}"#] {
            let deck = try Self.deck(#"{"cards": [{"id": "g", "grid": \#(grid), "symbols": [\#(Array(repeating: #"{"text": "x"}"#, count: 100).joined(separator: ","))]}]}"#, in: tmp)
            #expect(try Self.again(deck, in: tmp) == deck, "grid \(grid): \(deck.json())")
        }
    }

    @Test("words read back exactly: quotes, backslashes, line breaks, U+2028, escapes, emoji, right-to-left, NUL in an id")
    func words() throws {
        let tmp = try Self.folder()
        let deck = try Self.deck(#"""
            {"cards": [
              {"id": "q\"uo\\te\u0000\u001f\u007f\u2028\u2029\ud83c\udf40", "text": "Line\nbreak \"quoted\" \\ back\u2028slash", "subtitle": "شاي مجاني 🍵"},
              {"id": "é vs e\u0301", "text": "\u00e9", "cover-text": "\/slash no"},
              {"id": "tab\tid", "zones": [{"x": 0, "y": 0, "w": 10, "h": 10}], "symbols": [{"text": "\ud83c\udf52 \u200d"}]}
            ]}
            """#, in: tmp)
        #expect(try Self.again(deck, in: tmp) == deck, "\(deck.json())")
    }

    /// Random decks as text, spelled unlike the writer spells them (every character an
    /// escape, numbers with exponents), parsed, written back, parsed again.
    @Test("a property over 400 random decks: parse(write(deck)) == deck")
    func randomDecks() throws {
        let tmp = try Self.folder()
        var rng = SplitMix64(seed: 0x5C_A7C4)
        var checked = 0, refused: [String] = []
        while checked < 400 {
            let text = RandomDeck.text(using: &rng)
            let deck: Deck
            // A grid's cells may touch by a rounding and be refused as overlapping: the
            // generator's only way to make a bad deck, and a rare one.
            do { deck = try Self.deck(text, in: tmp) } catch { refused.append("\(error)"); continue }
            let again = try Self.again(deck, in: tmp)
            #expect(again == deck, "\(text)\n->\n\(deck.json())")
            checked += 1
        }
        #expect(refused.count < 20 && refused.allSatisfy { $0.contains("overlaps") }, "\(refused)")
    }
}

/// Random valid deck files, written by hand (not by the writer under test).
enum RandomDeck {
    static func text(using rng: inout SplitMix64) -> String {
        let count = Int.random(in: 1...6, using: &rng)
        var cards: [String] = []
        for i in 0..<count {
            var fields = ["\"id\": " + string("card\(i) " + words(using: &rng))]
            let kind = Int.random(in: 0..<4, using: &rng)
            if kind == 0 || kind == 1 { fields.append("\"prize\": " + string(["a.png", "b.png", "./a.png", "s1.png"].randomElement(using: &rng)!)) }
            if kind == 1 || kind == 2 {
                fields.append("\"text\": " + string(words(using: &rng)))
                if Bool.random(using: &rng) { fields.append("\"subtitle\": " + string(words(using: &rng))) }
                if Bool.random(using: &rng) { fields.append("\"color\": " + colour(using: &rng)) }
                if Bool.random(using: &rng) { fields.append("\"background\": " + colour(using: &rng)) }
            }
            if kind == 3 { fields += zoneFields(using: &rng) }
            // Any card may have a cover image: a zone card's is its ticket's artwork.
            if Bool.random(using: &rng) { fields.append(#""cover": "cover.png""#) }
            else if Bool.random(using: &rng) { fields.append("\"cover-text\": " + string(words(using: &rng))) }
            // Card 0 keeps a weight above 0, so that the deck can deal.
            if Bool.random(using: &rng) { fields.append("\"weight\": " + number(i == 0 ? 1 + fraction(using: &rng) : fraction(using: &rng) * 100)) }
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: fields.append(#""sound": null"#)
            case 1: fields.append(#""sound": "fanfare.wav""#)
            default: break
            }
            if Bool.random(using: &rng) { fields.append("\"celebrate\": \(Bool.random(using: &rng))") }
            if Bool.random(using: &rng) { fields.append("\"stock\": \(Int.random(in: 0...Deck.maximumStock, using: &rng))") }
            if Bool.random(using: &rng) { fields.append("\"claim\": \(Bool.random(using: &rng))") }
            cards.append("{" + fields.shuffled(using: &rng).joined(separator: ", ") + "}")
        }
        let top = Bool.random(using: &rng) ? "\"cover-text\": " + string(words(using: &rng)) + ", " : ""
        return "{" + top + "\"cards\": [" + cards.joined(separator: ",\n") + "]}"
    }

    /// A zone card's keys: listed zones across the card, or a grid; pick or not; symbols
    /// and decoys of images and words.
    static func zoneFields(using rng: inout SplitMix64) -> [String] {
        var fields: [String] = []
        let zoneCount: Int
        let shape = Bool.random(using: &rng) ? "" : (Bool.random(using: &rng) ? #", "shape": "ellipse""# : #", "shape": "rectangle""#)
        if Bool.random(using: &rng) {
            // Up to 6 zones, each in its own column of the card, at random fractions.
            zoneCount = Int.random(in: 1...6, using: &rng)
            let column = 640.0 / Double(zoneCount)
            let zones = (0..<zoneCount).map { i in
                let x = Double(i) * column + fraction(using: &rng) * column / 2
                let w = fraction(using: &rng) * (Double(i + 1) * column - x) * 0.999 + 1e-9
                let y = fraction(using: &rng) * 200, h = fraction(using: &rng) * 199 + 1e-9
                return "{\"x\": \(number(x)), \"y\": \(number(y)), \"w\": \(number(w)), \"h\": \(number(h))\(shape)}"
            }
            fields.append("\"zones\": [" + zones.joined(separator: ", ") + "]")
        } else {
            let columns = Int.random(in: 1...5, using: &rng), rows = Int.random(in: 1...4, using: &rng)
            zoneCount = columns * rows
            let gap = Bool.random(using: &rng) ? 0 : fraction(using: &rng) * 10
            let x = fraction(using: &rng) * 100, y = fraction(using: &rng) * 100
            let w = Double(columns - 1) * gap + 1 + fraction(using: &rng) * (539 - Double(columns - 1) * gap)
            let h = Double(rows - 1) * gap + 1 + fraction(using: &rng) * (299 - Double(rows - 1) * gap)
            fields.append("\"grid\": {\"x\": \(number(x)), \"y\": \(number(y)), \"w\": \(number(w)), \"h\": \(number(h)), "
                          + "\"columns\": \(columns), \"rows\": \(rows)" + (gap == 0 ? "" : ", \"gap\": \(number(gap))") + shape + "}")
        }
        let pick: Int? = Bool.random(using: &rng) ? Int.random(in: 1...zoneCount, using: &rng) : nil
        if let pick { fields.append("\"pick\": \(pick)") }
        let symbolCount = (pick ?? zoneCount) + Int.random(in: 0...2, using: &rng)
        fields.append("\"symbols\": " + symbols(symbolCount, using: &rng))
        if let pick, pick < zoneCount || Bool.random(using: &rng) {
            fields.append("\"decoys\": " + symbols(zoneCount - pick + Int.random(in: 0...1, using: &rng), using: &rng))
        }
        return fields
    }

    static func symbols(_ count: Int, using rng: inout SplitMix64) -> String {
        "[" + (0..<count).map { _ in
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: string(["s1.png", "s2.png", "decoy.png"].randomElement(using: &rng)!)
            case 1: "{\"text\": " + string(words(using: &rng)) + "}"
            default: "{\"text\": " + string(words(using: &rng)) + ", \"color\": " + colour(using: &rng) + "}"
            }
        }.joined(separator: ", ") + "]"
    }

    /// A fraction in [0, 1) with all 52 bits random.
    static func fraction(using rng: inout SplitMix64) -> Double { Double(rng.next() >> 11) / Double(1 << 53) }

    /// Numbers as C's %.17g spells them: exponents and all 17 digits, unlike the writer.
    static func number(_ value: Double) -> String { String(format: "%.17g", value) }

    static func colour(using rng: inout SplitMix64) -> String {
        string("#" + (0..<6).map { _ in String("0123456789abcdefABCDEF".randomElement(using: &rng)!) }.joined())
    }

    /// Words that pass a card's check: a letter first, then letters, spaces, a line
    /// break, quotes, backslashes, emoji, combining marks, right-to-left letters.
    static func words(using rng: inout SplitMix64) -> String {
        let pool: [String] = ["a", "Z", " ", "\n", "\"", "\\", "/", "é", "e\u{301}", "ش", "☕", "🍋", "👩‍👩‍👧", "\u{2028}", "\u{FEFF}", "€", "\u{10FFFF}"]
        return "W" + (0..<Int.random(in: 0...12, using: &rng)).map { _ in pool.randomElement(using: &rng)! }.joined()
    }

    /// A JSON string with every character an escape: `\uXXXX`, surrogate pairs above U+FFFF.
    static func string(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            let hex = String(unit, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        return out + "\""
    }
}
