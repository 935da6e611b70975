import Foundation
import Testing
@testable import CardFile
import CardFileSupport
import CardRules
import ScratchCore

/// The container: what `make` writes (layout, methods, the deck back), and every bad
/// file refused with the file and the entry named, before anything large is read.
struct CardContainerTests {
    static let png: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]

    /// A folder with two images, a sound and a deck file naming them.
    static func deckFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardfile-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/art", withIntermediateDirectories: true)
        try Data(png).write(to: URL(fileURLWithPath: folder + "/art/prize.png"))
        try Data(png + [9]).write(to: URL(fileURLWithPath: folder + "/prize.png"))     // same name, other file
        try Data("RIFF....WAVE".utf8).write(to: URL(fileURLWithPath: folder + "/fanfare.wav"))
        let json = """
            {"cover-text": "Scratch me", "cards": [
              {"id": "coffee", "prize": "art/prize.png", "weight": 3, "stock": 5, "sound": "fanfare.wav"},
              {"id": "tea", "prize": "prize.png", "cover": "art/prize.png", "celebrate": false, "sound": null},
              {"id": "word", "text": "Free tea", "subtitle": "at the counter", "color": "#FFFFFF", "background": "#2E7D32", "weight": 0.5}
            ]}
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: folder + "/deck.json"))
        return folder
    }

    /// Each local header's name and method, walking the archive from its start.
    static func localEntries(_ bytes: [UInt8]) -> [(name: String, method: Int, extra: Int)] {
        var found: [(String, Int, Int)] = [], at = 0
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        while at + 30 <= bytes.count, u32(at) == 0x0403_4B50 {
            let nameLength = u16(at + 26), extra = u16(at + 28), compressed = u32(at + 18)
            found.append((String(decoding: bytes[(at + 30)..<(at + 30 + nameLength)], as: UTF8.self), u16(at + 8), extra))
            at += 30 + nameLength + extra + compressed
        }
        return found
    }

    @Test("make's container: mimetype first and stored at offset 30, images stored, JSON and sounds deflated, the deck read back the same")
    func roundTrip() throws {
        let folder = try Self.deckFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deck = try Deck.load(path: folder + "/deck.json")
        let settings = CardSettings(revealAtPercent: 40, brushPoints: 12.5, celebrate: false)
        let bytes = try CardFileWriter.archive(deck: deck, settings: settings, files: FolderFiles(folder: "/"))

        #expect(Array(bytes[0..<4]) == [0x50, 0x4B, 0x03, 0x04])
        #expect(String(decoding: bytes[30..<38], as: UTF8.self) == "mimetype")
        #expect(String(decoding: bytes[38..<63], as: UTF8.self) == "application/x-scratchcard")
        let local = Self.localEntries(bytes)
        #expect(local.map(\.name) == ["mimetype", "card.json", "prize.png", "fanfare.wav", "2-prize.png"])
        #expect(local.map(\.method) == [0, 8, 0, 8, 0])
        #expect(local[0].extra == 0)

        let card = try CardFile.open(bytes: bytes, path: "cafe.scratchcard")
        #expect(card.settings == settings)
        let cards = card.deck.cards
        #expect(cards.map(\.id) == ["coffee", "tea", "word"])
        #expect(cards[0].prize == "cafe.scratchcard/prize.png" && cards[0].weight == 3 && cards[0].stock == 5)
        #expect(cards[0].sound == .file("cafe.scratchcard/fanfare.wav") && cards[0].coverText == "Scratch me")
        #expect(cards[1].prize == "cafe.scratchcard/2-prize.png" && cards[1].cover == "cafe.scratchcard/prize.png")
        #expect(cards[1].sound == DeckSound.none && !cards[1].celebrate && cards[1].coverText == nil)
        #expect(cards[2].text == deck.cards[2].text && cards[2].weight == 0.5 && cards[2].prize == nil)
        #expect(try card.entries.bytes(of: cards[0].prize!, limit: 100) == Self.png)
        #expect(try card.entries.bytes(of: cards[1].prize!, limit: 100) == Self.png + [9])
        #expect(throws: FileError.self) { try card.entries.bytes(of: cards[0].prize!, limit: 5) }
    }

    @Test("every bad card file is refused naming the file and the entry", arguments: BadCardFiles.all.map(\.name))
    func badFile(name: String) throws {
        let bad = try #require(BadCardFiles.all.first { $0.name == name })
        do {
            _ = try CardFile.open(bytes: bad.bytes, path: "bad.scratchcard")
            Issue.record("\(name): opened")
        } catch {
            #expect(error.path.hasPrefix("bad.scratchcard"), "\(error)")
            #expect("\(error)".contains(bad.mentions), "\(name): \(error)")
        }
    }

    @Test("an entry holding more than it claims is refused when read, and memory follows what is there")
    func lyingSize() throws {
        let zeros = [UInt8](repeating: 0, count: 300_000)
        var bytes = try ZipWriter.archive([ZipItem(name: "mimetype", bytes: Array("application/x-scratchcard".utf8), deflate: false),
                                           ZipItem(name: "card.json", bytes: Array(#"{"cards": [{"prize": "z.png"}]}"#.utf8), deflate: true),
                                           ZipItem(name: "z.png", bytes: zeros, deflate: true)])
        // Claim 1000 bytes in both headers of z.png (its local header, then its central one).
        func patch(signature: [UInt8], sizeOffset: Int) {
            var at = 0
            while let start = (at..<(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == signature }) {
                let nameOffset = signature[2] == 3 ? 30 : 46
                if String(decoding: bytes[(start + nameOffset)..<min(start + nameOffset + 5, bytes.count)], as: UTF8.self) == "z.png" {
                    bytes.replaceSubrange((start + sizeOffset)..<(start + sizeOffset + 4), with: [0xE8, 0x03, 0, 0])
                }
                at = start + 4
            }
        }
        patch(signature: [0x50, 0x4B, 0x03, 0x04], sizeOffset: 22)
        patch(signature: [0x50, 0x4B, 0x01, 0x02], sizeOffset: 24)
        let card = try CardFile.open(bytes: bytes, path: "liar.scratchcard")
        #expect(card.container.size(of: "z.png") == 1000)
        do {
            _ = try card.entries.bytes(of: "liar.scratchcard/z.png", limit: 1 << 20)
            Issue.record("read an entry longer than it says")
        } catch {
            #expect("\(error)".contains("\"z.png\"") && "\(error)".contains("cannot be read"), "\(error)")
        }
    }

    @Test("entry names: plain relative names only")
    func names() {
        for good in ["card.json", "images/a b.png", "日本/写真.jpg", "folder/"] {
            #expect(CardContainer.nameProblem(Array(good.utf8)) == nil, "\(good)")
        }
        for bad in ["", "../a.png", "a/../../b", "/etc/passwd", "C:/x.png", "a\\b.png", "a//b", "./a", "a\u{1}b"] {
            #expect(CardContainer.nameProblem(Array(bad.utf8)) != nil, "\(bad)")
        }
        #expect(CardContainer.nameProblem([0xFF, 0xFE]) != nil)
    }

    @Test("a deck in a card file finds its files among the entries, ./ allowed, nothing outside")
    func locate() throws {
        let bytes = RawZip.card(json: #"{"cards": [{"prize": "./a.png"}]}"#, files: [RawZip.Entry("a.png", Self.png)]).bytes
        let card = try CardFile.open(bytes: bytes, path: "x.scratchcard")
        #expect(card.deck.cards[0].prize == "x.scratchcard/a.png")
        #expect(card.entries.locate("../a.png").problem != nil)
        #expect(card.entries.locate("b.png").problem == "is not in the card file")
        #expect(card.entries.entryName(of: "other/a.png") == nil)
    }

    @Test("card.json's card options are checked")
    func settings() throws {
        let good = RawZip.card(json: #"{"reveal-at": 35, "brush": 8, "celebrate": false, "cards": [{"id": "t", "text": "Hi"}]}"#).bytes
        #expect(try CardFile.open(bytes: good, path: "s.scratchcard").settings == CardSettings(revealAtPercent: 35, brushPoints: 8, celebrate: false))
        for bad in [#""reveal-at": 0"#, #""reveal-at": 101"#, #""brush": "big""#, #""celebrate": 1"#] {
            let bytes = RawZip.card(json: "{\(bad), \"cards\": [{\"id\": \"t\", \"text\": \"Hi\"}]}").bytes
            #expect(throws: FileError.self, "\(bad)") { try CardFile.open(bytes: bytes, path: "s.scratchcard") }
        }
    }
}
