@testable import CardRules
import EngineTestSupport
import Foundation
import ScratchCore
import Testing

/// A fresh folder under the system's temporary folder, removed when the test is done.
final class TemporaryFolder {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/scratchcore-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` (folders created as needed) and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String = "x") throws -> String {
        let file = path + "/" + name
        let folder = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// The error a throwing call raised, or nil.
func deckError(_ body: () throws(DeckError) -> Deck) -> DeckError? {
    do { _ = try body(); return nil } catch { return error }
}

struct DeckLoadTests {
    @Test("a folder deck: its PNGs (any case) sorted by name, hidden files, other files and folders skipped")
    func folderDeck() throws {
        let tmp = try TemporaryFolder()
        for name in ["b.png", "a.PNG", "c.Png", ".hidden.png", "notes.txt", "png", "x.png.bak"] { try tmp.write("cards/" + name) }
        try FileManager.default.createDirectory(atPath: tmp.path + "/cards/folder.png", withIntermediateDirectories: true)
        let deck = try Deck.load(path: tmp.path + "/cards")
        #expect(deck.cards.map(\.id) == ["a", "b", "c"])
        #expect(deck.cards.map(\.prize) == ["a.PNG", "b.png", "c.Png"].map { tmp.path + "/cards/" + $0 })
        #expect(deck.cards.allSatisfy { $0.cover == nil && $0.weight == 1 })
        // A trailing slash reads the same folder.
        #expect(try Deck.load(path: tmp.path + "/cards/") == deck)
    }

    @Test("a folder without PNGs is an error naming the folder")
    func emptyFolder() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("empty/readme.txt")
        let error = deckError { () throws(DeckError) in try Deck.load(path: tmp.path + "/empty") }
        #expect(error == DeckError(path: tmp.path + "/empty", message: "no PNG, JPEG or WebP images in the folder"))
    }

    @Test("a missing deck is an error")
    func missingDeck() throws {
        let tmp = try TemporaryFolder()
        let error = deckError { () throws(DeckError) in try Deck.load(path: tmp.path + "/nope.json") }
        #expect(error?.path == tmp.path + "/nope.json")
        #expect(error?.message.contains("cannot read") == true)
    }

    @Test("a JSON deck: image paths relative to the deck's folder, defaults for id, cover and weight")
    func jsonDeck() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("decks/img/coffee.png")
        try tmp.write("decks/img/foil.png")
        try tmp.write("decks/sorry.png")
        try tmp.write("elsewhere/big.png")
        let deckFile = try tmp.write("decks/deck.json", """
            {"cards": [
              {"id": "coffee", "prize": "img/coffee.png", "cover": "./img/foil.png", "weight": 3},
              {"prize": "sorry.png"},
              {"id": "jackpot", "prize": "\(tmp.path)/elsewhere/big.png", "weight": 0.5},
              {"prize": "../elsewhere/big.png", "id": "same-file", "weight": 0}
            ]}
            """)
        let deck = try Deck.load(path: deckFile)
        #expect(deck.cards == [
            DeckCard(id: "coffee", prize: tmp.path + "/decks/img/coffee.png", cover: tmp.path + "/decks/img/foil.png", weight: 3),
            DeckCard(id: "sorry", prize: tmp.path + "/decks/sorry.png", cover: nil, weight: 1),
            DeckCard(id: "jackpot", prize: tmp.path + "/elsewhere/big.png", cover: nil, weight: 0.5),
            DeckCard(id: "same-file", prize: tmp.path + "/decks/../elsewhere/big.png", cover: nil, weight: 0),
        ])
        #expect(deck.totalWeight == 4.5)
    }

    @Test("stock: how many of a prize exist, a whole number; absent means unlimited")
    func stockEntries() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("a.png")
        try tmp.write("b.png")
        let deckFile = try tmp.write("deck.json", #"{"cards": [{"prize": "a.png", "stock": 3}, {"prize": "b.png"}, {"id": "c", "prize": "a.png", "stock": 0}]}"#)
        let deck = try Deck.load(path: deckFile)
        #expect(deck.cards.map(\.stock) == [3, nil, 0])
    }

    @Test("a deck file named relative to the current folder still gives absolute image paths")
    func relativeDeckPath() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("prize.png")
        let file = try tmp.write("deck.json", #"{"cards": [{"prize": "prize.png"}]}"#)
        let cwd = FileManager.default.currentDirectoryPath
        // A path relative to the current folder, reached with "..", whatever that folder is.
        let relative = String(repeating: "../", count: cwd.split(separator: "/").count) + String(file.dropFirst())
        let deck = try Deck.load(path: relative)
        let prize = try #require(deck.cards[0].prize)
        #expect(prize.hasPrefix("/"))
        #expect(FileManager.default.fileExists(atPath: prize))
    }

    /// Each broken deck and the message it must give (after "<path>: ").
    static let brokenDecks: [(json: String, message: String)] = [
        (#"{"cards": [{"id": "a", "prize": "a.png"}, {"id": "b"}]}"#,
         #"cards[1] ("b"): no prize image and no text"#),
        (#"{"cards": [{"id": "a", "prize": 7}]}"#,
         #"cards[0] ("a"): prize must be a non-empty string (a file name), not 7"#),
        (#"{"cards": [{"prize": ""}]}"#,
         #"cards[0]: prize must be a non-empty string (a file name), not """#),
        (#"{"cards": [{"prize": "a.png"}, {"prize": "a.png", "weight": -1}]}"#,
         #"cards[1] ("a"): weight must be a number >= 0, not -1"#),
        (#"{"cards": [{"prize": "a.png", "weight": "3"}]}"#,
         #"cards[0] ("a"): weight must be a number >= 0, not "3""#),
        (#"{"cards": [{"prize": "a.png", "weight": true}]}"#,
         #"cards[0] ("a"): weight must be a number >= 0, not true"#),
        (#"{"cards": [{"prize": "a.png", "weight": null}]}"#,
         #"cards[0] ("a"): weight must be a number >= 0, not null"#),
        (#"{"cards": [{"prize": "a.png", "weight": 1e308}, {"id": "b", "prize": "a.png", "weight": 1e308}]}"#,
         #"cards[1] ("b"): the weights add up to more than a number can hold"#),
        (#"{"cards": [{"prize": "a.png", "colour": "red"}]}"#,
         #"cards[0] ("a"): unknown key "colour" (a card has id, prize, cover, weight, sound, celebrate, text, subtitle, color, background, cover-text, stock)"#),
        (#"{"cards": [{"prize": "a.png", "stock": -1}]}"#,
         #"cards[0] ("a"): stock must be a whole number from 0 to 1000000000, not -1"#),
        (#"{"cards": [{"prize": "a.png", "stock": 2.5}]}"#,
         #"cards[0] ("a"): stock must be a whole number from 0 to 1000000000, not 2.5"#),
        (#"{"cards": [{"prize": "a.png", "stock": "3"}]}"#,
         #"cards[0] ("a"): stock must be a whole number from 0 to 1000000000, not "3""#),
        (#"{"cards": [], "title": "x"}"#,
         #"unknown key "title" (a deck holds "cards" and "cover-text")"#),
        (#"{"cards": [{"prize": "a.png"}, {"prize": "b.png", "id": "a"}]}"#,
         #"cards[1] ("a"): the id is already used by cards[0]"#),
        (#"{"cards": [{"prize": "a.png", "id": 5}]}"#,
         #"cards[0]: id must be a non-empty string, not 5"#),
        (#"{"cards": [{"prize": "a.png", "cover": false}]}"#,
         #"cards[0] ("a"): cover must be a non-empty string (a file name), not false"#),
        (#"{"cards": ["a.png"]}"#,
         #"cards[0]: a card is a JSON object, not a string"#),
        (#"{"cards": [{"prize": "a.png"}"#, "not valid JSON"),
        ("", "not valid JSON"),
        ("# a comment\n{}", "not valid JSON"),
        (#"["a.png"]"#, "a deck is a JSON object, not an array"),
        (#"{}"#, #"no "cards" array"#),
        (#"{"cards": {"a": 1}}"#, #""cards" must be an array, not an object"#),
        (#"{"cards": []}"#, #"no usable card: "cards" is empty"#),
        (#"{"cards": [{"prize": "a.png", "weight": 0}, {"prize": "b.png", "weight": 0}]}"#,
         "no usable card: every weight is 0"),
    ]

    @Test("each broken JSON deck gives an error naming the deck and the entry", arguments: brokenDecks.indices)
    func brokenDeck(_ index: Int) throws {
        let (json, message) = Self.brokenDecks[index]
        let tmp = try TemporaryFolder()
        try tmp.write("a.png")
        try tmp.write("b.png")
        let file = try tmp.write("deck.json", json)
        let error = deckError { () throws(DeckError) in try Deck.load(path: file) }
        #expect(error == DeckError(path: file, message: message))
        #expect(error?.description == file + ": " + message)
    }

    @Test("missing image files are named with their absolute path")
    func missingImages() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("a.png")
        try FileManager.default.createDirectory(atPath: tmp.path + "/dir.png", withIntermediateDirectories: true)
        let cases: [(String, String)] = [
            (#"{"cards": [{"id": "coffee", "prize": "coffee.png"}]}"#,
             #"cards[0] ("coffee"): prize image \#(tmp.path)/coffee.png does not exist"#),
            (#"{"cards": [{"prize": "sub/coffee.png"}]}"#,
             #"cards[0] ("coffee"): prize image \#(tmp.path)/sub/coffee.png does not exist"#),
            (#"{"cards": [{"prize": "dir.png"}]}"#,
             #"cards[0] ("dir"): prize image \#(tmp.path)/dir.png is a folder, not a file"#),
            (#"{"cards": [{"prize": "a.png", "cover": "/no/such/foil.png"}]}"#,
             #"cards[0] ("a"): cover image /no/such/foil.png does not exist"#),
        ]
        let file = tmp.path + "/deck.json"
        for (json, message) in cases {
            try tmp.write("deck.json", json)
            let error = deckError { () throws(DeckError) in try Deck.load(path: file) }
            #expect(error == DeckError(path: file, message: message))
        }
    }

    @Test("the deck file is capped at 4 MiB and 10,000 cards")
    func caps() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("a.png")
        let text = #"{"cards": [{"prize": "a.png"}]}"# + String(repeating: " ", count: Deck.maximumFileBytes)
        let big = try tmp.write("big.json", text)
        let bigError = deckError { () throws(DeckError) in try Deck.load(path: big) }
        #expect(bigError?.message == "the file is \(text.utf8.count) bytes; a deck may have at most \(Deck.maximumFileBytes)")

        let entries = (0...Deck.maximumCards).map { #"{"id": "c\#($0)", "prize": "a.png"}"# }
        let many = try tmp.write("many.json", #"{"cards": ["# + entries.joined(separator: ",") + "]}")
        let manyError = deckError { () throws(DeckError) in try Deck.load(path: many) }
        #expect(manyError?.message == "10001 cards; a deck may have at most 10000")

        let most = try tmp.write("most.json", #"{"cards": ["# + entries.dropLast().joined(separator: ",") + "]}")
        #expect(try Deck.load(path: most).cards.count == Deck.maximumCards)
    }

    @Test("Deck(cards:) refuses decks that cannot draw")
    func memberwise() {
        #expect(Deck(cards: []) == nil)
        #expect(Deck(cards: [DeckCard(id: "a", prize: "/a.png", weight: 0)]) == nil)
        #expect(Deck(cards: [DeckCard(id: "a", prize: "/a.png", weight: -1), DeckCard(id: "b", prize: "/b.png")]) == nil)
        #expect(Deck(cards: [DeckCard(id: "a", prize: "/a.png", weight: .nan)]) == nil)
        #expect(Deck(cards: [DeckCard(id: "a", prize: "/a.png", weight: .infinity)]) == nil)
        #expect(Deck(cards: [DeckCard(id: "a", prize: "/a.png")])?.cards.count == 1)
    }
}

struct DeckDrawTests {
    func deck(_ weights: [Double]) -> Deck {
        Deck(cards: weights.enumerated().map { DeckCard(id: "c\($0.offset)", prize: "/c\($0.offset).png", weight: $0.element) })!
    }

    @Test("100,000 draws from weights 1, 2, 7 land within 1.5 points of 10/20/70%; weight 0 never comes up")
    func weightedDraws() {
        let deck = deck([1, 0, 2, 0, 7, 0])
        var rng = SplitMix(seed: 0x5C7A_7C4D)
        var counts: [String: Int] = [:]
        let draws = 100_000
        for _ in 0..<draws { counts[deck.draw(using: &rng).id, default: 0] += 1 }
        #expect(Set(counts.keys) == ["c0", "c2", "c4"])
        let expected = ["c0": 0.10, "c2": 0.20, "c4": 0.70]
        for (id, share) in expected {
            let measured = Double(counts[id] ?? 0) / Double(draws)
            #expect(abs(measured - share) <= 0.015, "card \(id): \(measured)")
        }
    }

    @Test("draws are deterministic for a given generator")
    func deterministic() {
        let deck = deck([1, 2, 7])
        var a = SplitMix(seed: 99), b = SplitMix(seed: 99)
        let first = (0..<200).map { _ in deck.draw(using: &a).id }
        let second = (0..<200).map { _ in deck.draw(using: &b).id }
        #expect(first == second)
    }

    @Test("edges of the generator's range: the first card at 0, the last drawable card at the top")
    func edges() {
        let deck = deck([0, 1, 1, 0])
        var low = Constant(value: 0)
        #expect(deck.draw(using: &low).id == "c1")
        var high = Constant(value: .max)
        #expect(deck.draw(using: &high).id == "c2")
    }

    @Test("a single card, and the system's generator")
    func systemDraw() {
        let one = deck([0, 5, 0])
        for _ in 0..<50 { #expect(one.draw().id == "c1") }
        let two = deck([1, 1])
        let seen = Set((0..<200).map { _ in two.draw().id })
        #expect(seen == ["c0", "c1"])
    }
}

/// A generator that always answers the same number.
struct Constant: RandomNumberGenerator {
    let value: UInt64
    mutating func next() -> UInt64 { value }
}

struct DeckFuzzTests {
    @Test("a folder with a.png and a.PNG refuses the clash of ids")
    func folderIDClash() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("cards/a.png")
        try tmp.write("cards/a.PNG")
        let error = deckError { () throws(DeckError) in try Deck.load(path: tmp.path + "/cards") }
        #expect(error?.message == #"a.PNG and a.png have the same id "a""#)
    }

    @Test("deeply nested JSON is refused, not a stack overflow")
    func deepNesting() throws {
        let tmp = try TemporaryFolder()
        let depth = 200_000
        let file = try tmp.write("deep.json", #"{"cards": "# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}")
        let error = deckError { () throws(DeckError) in try Deck.load(path: file) }
        #expect(error != nil)
        let config = try tmp.write("deep-config.json", String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth))
        let configError = configError { () throws(ConfigError) in try ConfigFile.arguments(path: config, schema: windowSchema) }
        #expect(configError != nil)
    }

    @Test("mutated decks and configuration files load or fail with a message, never crash")
    func mutations() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("a.png")
        try tmp.write("b.png")
        let deckSeed = Array(#"{"cards": [{"id": "a", "prize": "a.png", "cover": "b.png", "weight": 3}, {"prize": "b.png", "weight": 0.5}]}"#.utf8)
        let configSeed = Array(#"{"brush": 24, "scale": 1.5, "no-shm": true, "title": "Win!", "cover": "a.png", "reveal-at": 60}"#.utf8)
        let alphabet = Array(#"{}[]",:0123456789.-+eE truefalsnul\"#.utf8) + [0, 0xFF, 0xC3]
        var rng = SplitMix(seed: 2024)
        let file = tmp.path + "/fuzz.json"
        var loaded = 0, refused = 0
        for round in 0..<1500 {
            var bytes = round % 2 == 0 ? deckSeed : configSeed
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[at] = alphabet.randomElement(using: &rng)!
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: at)
                default: if bytes.count > 1 { bytes.remove(at: at) }
                }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            if round % 2 == 0 {
                do { _ = try Deck.load(path: file); loaded += 1 } catch {
                    #expect(!error.message.isEmpty && error.path == file)
                    refused += 1
                }
            } else {
                do { _ = try ConfigFile.arguments(path: file, schema: windowSchema); loaded += 1 } catch {
                    #expect(!error.message.isEmpty && error.path == file)
                    refused += 1
                }
            }
        }
        #expect(loaded > 0 && refused > 0)
    }
}
