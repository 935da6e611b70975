import Foundation
@preconcurrency import Glibc
import Testing
import CardArt
import CardFile
import CardFileSupport
import CardRules
import ScratchCore
import ScratchImage
import XvfbSupport

/// Card files as a user meets them: `make` one, open it (`scratchcard FILE`, `--deck
/// FILE` wherever a deck goes), `info`, `thumbnail`; and every bad card file refused by
/// every command that reads one, exit 2, naming the file and the entry.
@Suite(.serialized) struct CardFileAppTests {
    static let grey = RGBA(r: 150, g: 150, b: 160)
    static let gold = RGBA(r: 240, g: 160, b: 20)
    static let green = RGBA(r: 30, g: 160, b: 60)
    static let size = PixelSize(width: 120, height: 80)

    func isAll(_ colour: RGBA) -> (RGBAImage) -> Bool {
        { image in image.size == Self.size && stride(from: 0, to: image.bytes.count, by: 4).allSatisfy {
            image.bytes[$0] == colour.r && image.bytes[$0 + 1] == colour.g && image.bytes[$0 + 2] == colour.b } }
    }

    /// `scratchcard make` with these arguments, which must succeed and print the path.
    static func make(_ arguments: [String], out: String) throws {
        let result = try runToExit(["make", "--out", out] + arguments)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == out + "\n", "\(result.out)")
    }

    @Test("make a card, then scratchcard FILE.scratchcard (and a renamed copy) shows its cover and, scratched, its prize")
    func makeAndOpen() throws {
        let card = try SolidCard(cover: Self.grey, prize: Self.gold, size: Self.size); defer { card.remove() }
        let file = card.folder.appendingPathComponent("gift.scratchcard").path
        try Self.make(["--cover", card.cover, "--prize", card.prize, "--reveal-at", "100"], out: file)
        let renamed = card.folder.appendingPathComponent("gift.bin").path
        try FileManager.default.copyItem(atPath: file, toPath: renamed)
        // The images are read from the card file, not from beside it.
        try FileManager.default.removeItem(atPath: card.cover)
        try FileManager.default.removeItem(atPath: card.prize)
        for path in [file, renamed] {
            let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
            let app = try RunningApp([path, "--scale", "1", "--brush", "20", "--events"], environment: server.environment)
            let window = try server.scratchcardWindow()
            #expect(isAll(Self.grey)(try server.waitForPixels(window: window, until: isAll(Self.grey))), "\(path): the cover")
            for y in stride(from: 0, through: 80, by: 20) { try server.drag(window: window, from: (0, y), through: [(60, y), (119, y)]) }
            let scratched = try server.waitForPixels(window: window) { $0[60, 40] == Self.gold }
            #expect(scratched[60, 40] == Self.gold && scratched[60, 0] == Self.gold, "\(path): the prize under the scratch")
            // reveal-at 100 from the card file: scratched rows, still not revealed.
            try server.press("q", in: window)
            #expect(app.wait() == 0, "\(app.standardError)")
            #expect(!app.eventNames.contains("revealed"), "\(app.eventNames)")
            #expect(app.events.first?["card"] as? String == "prize")
        }
    }

    @Test("--deck FILE.scratchcard: r deals the deck's cards, whose prizes come from the card file")
    func deckCardFile() throws {
        let card = try SolidCard(cover: Self.grey, prize: Self.gold, size: Self.size); defer { card.remove() }
        let deck = card.folder.appendingPathComponent("deck")
        try FileManager.default.createDirectory(at: deck, withIntermediateDirectories: true)
        _ = try App.solidPNG(Self.green, size: Self.size, in: deck, name: "green.png")
        try Data(#"{"cards": [{"id": "green", "prize": "green.png", "cover": "../cover.png"}]}"#.utf8)
            .write(to: deck.appendingPathComponent("deck.json"))
        let file = card.folder.appendingPathComponent("deck.scratchcard").path
        try Self.make(["--deck", deck.appendingPathComponent("deck.json").path], out: file)
        try FileManager.default.removeItem(at: deck)
        try FileManager.default.removeItem(atPath: card.cover)

        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["--deck", file, "--scale", "1", "--events"], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window, until: isAll(Self.grey))
        try server.press("space", in: window)
        #expect(isAll(Self.green)(try server.waitForPixels(window: window, until: isAll(Self.green))))
        try server.press("r", in: window)
        #expect(waitUntil { app.eventNames.contains("new-card") })
        #expect(isAll(Self.grey)(try server.waitForPixels(window: window, until: isAll(Self.grey))), "the next card, covered")
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
        #expect(app.events.compactMap { $0["card"] as? String }.allSatisfy { $0 == "green" })
    }

    @Test("simulate --deck FILE.scratchcard deals the card file's deck, its stock counted")
    func simulateCardFile() throws {
        let card = try SolidCard(cover: Self.grey, prize: Self.gold, size: Self.size); defer { card.remove() }
        let deck = card.folder.appendingPathComponent("deck.json").path
        try Data(#"{"cards": [{"id": "gold", "prize": "prize.png", "stock": 2}, {"id": "again", "text": "Try again"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: deck))
        let file = card.folder.appendingPathComponent("stock.scratchcard").path
        try Self.make(["--deck", deck], out: file)
        let result = try runToExit(["simulate", "--deck", file, "--count", "50", "--seed", "7"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("gold") && result.out.contains("again"), "\(result.out)")
        let goldLine = result.out.split(separator: "\n").first { $0.contains("gold") } ?? ""
        #expect(goldLine.contains("2"), "stock 2 from the card file: \(goldLine)")
    }

    @Test("make: checks what the window checks, never overwrites without --force, writes nothing on a bad image")
    func makeChecks() throws {
        let card = try SolidCard(cover: Self.grey, prize: Self.gold, size: Self.size); defer { card.remove() }
        let file = card.folder.appendingPathComponent("c.scratchcard").path
        let text = card.folder.appendingPathComponent("text.png").path
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: text))
        let bad = try runToExit(["make", "--out", file, "--prize", text])
        #expect(bad.status == 2 && bad.err.contains("text.png") && !FileManager.default.fileExists(atPath: file), "\(bad.err)")
        try Self.make(["--prize", card.prize], out: file)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let again = try runToExit(["make", "--out", file, "--text", "Other"])
        #expect(again.status == 2 && again.err.contains("--force"), "\(again.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        try Self.make(["--text", "Other", "--force"], out: file)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) != before)
        let usage = try runToExit(["make", "--out", file, "--deck", card.folder.path, "--prize", card.prize])
        #expect(usage.status == 2 && usage.err.contains("--prize"), "\(usage.err)")
    }

    @Test("info says what is inside without the prize; --show-prizes shows ids, images and words")
    func info() throws {
        let card = try SolidCard(cover: Self.grey, prize: Self.gold, size: Self.size, prizeName: "bicycle.png"); defer { card.remove() }
        let deck = card.folder.appendingPathComponent("deck.json").path
        try Data("""
            {"cover-text": "Scratch gently", "cards": [{"id": "bike", "prize": "bicycle.png", "stock": 2},
              {"id": "hug", "text": "A big hug", "subtitle": "from us", "weight": 3}]}
            """.utf8).write(to: URL(fileURLWithPath: deck))
        let file = card.folder.appendingPathComponent("i.scratchcard").path
        try Self.make(["--deck", deck, "--reveal-at", "45"], out: file)
        let plain = try runToExit(["info", file])
        #expect(plain.status == 0, "\(plain.err)")
        for said in ["cards: 2", "card size: 640x400", "\"Scratch gently\"", "reveal at: 45%", "stock 2", "weight 3",
                     "\(try FileManager.default.attributesOfItem(atPath: file)[.size] as! Int) bytes"] {
            #expect(plain.out.contains(said), "info lacks \(said): \(plain.out)")
        }
        for secret in ["bike", "bicycle", "hug", "A big", "from us"] { #expect(!plain.out.contains(secret), "info gives away \(secret)") }
        let shown = try runToExit(["info", "--show-prizes", file])
        for secret in ["\"bike\"", "\"bicycle.png\"", "\"hug\"", "\"A big hug\"", "\"from us\""] {
            #expect(shown.out.contains(secret), "--show-prizes lacks \(secret): \(shown.out)")
        }
    }

    /// A grey cover over a gold prize, made into two card files: with the cover image, and
    /// with the built-in foil (its words "Hi") over the same prize.
    static func thumbnailCards() throws -> (card: SolidCard, withCover: String, foil: String) {
        let card = try SolidCard(cover: grey, prize: gold, size: PixelSize(width: 300, height: 200))
        let withCover = card.folder.appendingPathComponent("cover.scratchcard").path
        let foil = card.folder.appendingPathComponent("foil.scratchcard").path
        try make(["--cover", card.cover, "--prize", card.prize], out: withCover)
        try make(["--prize", card.prize, "--cover-text", "Hi"], out: foil)
        return (card, withCover, foil)
    }

    /// How many pixels are near the gold prize's colour.
    static func prizeColoured(_ image: RGBAImage) -> Int {
        stride(from: 0, to: image.bytes.count, by: 4).filter {
            abs(Int(image.bytes[$0]) - 240) < 30 && abs(Int(image.bytes[$0 + 1]) - 160) < 30 && image.bytes[$0 + 2] < 60 }.count
    }

    /// How many pixels are dark enough to be the foil's words (the foil itself is light).
    static func dark(_ image: RGBAImage) -> Int { stride(from: 0, to: image.bytes.count, by: 4).filter { image.bytes[$0] < 90 }.count }

    @Test("thumbnail: the cover at N pixels on its longer side, nothing of the prize, written in place")
    func thumbnail() throws {
        let (card, withCover, foil) = try Self.thumbnailCards(); defer { card.remove() }
        let out = card.folder.appendingPathComponent("thumb.png").path
        // Opened before, as tumbler does: the thumbnail must arrive through this descriptor.
        try Data().write(to: URL(fileURLWithPath: out))
        let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: out))
        let result = try runToExit(["thumbnail", "--size", "128", withCover, out])
        #expect(result.status == 0, "\(result.err)")
        let image = try PNGFile.decode(Array(reader.readDataToEndOfFile()), name: out)
        #expect(image.size == PixelSize(width: 128, height: 85))
        #expect(stride(from: 0, to: image.bytes.count, by: 4).allSatisfy {
            abs(Int(image.bytes[$0]) - 150) <= 1 && abs(Int(image.bytes[$0 + 2]) - 160) <= 1 }, "all cover")

        #expect(try runToExit(["thumbnail", "--size", "256", foil, out]).status == 0)
        let drawn = try PNGFile.read(path: out)
        #expect(drawn.size == PixelSize(width: 256, height: 160))
        #expect(Self.prizeColoured(drawn) == 0, "\(Self.prizeColoured(drawn)) prize-coloured pixels")
        #expect(Self.dark(drawn) > 50, "the foil's words are drawn (\(Self.dark(drawn)) dark pixels)")
    }

    /// `scratchcard-thumbnailer` (built beside the program) with these arguments, to its end.
    static func runThumbnailer(_ arguments: [String]) throws -> (status: Int32, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: App.executable).deletingLastPathComponent().appendingPathComponent("scratchcard-thumbnailer")
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"]
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, err)
    }

    @Test("scratchcard-thumbnailer: the thumbnail scratchcard thumbnail writes; a foil cover from the preview make stores (never the prize), refused without one")
    func thumbnailer() throws {
        let (card, withCover, foil) = try Self.thumbnailCards(); defer { card.remove() }
        let prizeColoured = Self.prizeColoured, dark = Self.dark

        // make stores the foil's picture, words and all, and none for a cover image.
        let opened = try CardFile.open(path: foil)
        let preview = try ImageFile.decode(try opened.container.bytes(of: CardFile.previewEntry, limit: 1 << 20), name: "preview")
        #expect(preview.size == CardFile.previewSize)
        #expect(prizeColoured(preview) == 0 && dark(preview) > 300, "preview: \(prizeColoured(preview)) prize-coloured, \(dark(preview)) dark")
        #expect(!(try CardFile.open(path: withCover)).container.contains(CardFile.previewEntry))

        // The thumbnailer and the command agree, byte for byte, at the sizes file managers ask.
        for (file, size) in [(withCover, 128), (withCover, 256), (foil, 128), (foil, 256), (foil, 512)] {
            let a = card.folder.appendingPathComponent("a.png").path, b = card.folder.appendingPathComponent("b.png").path
            let command = try runToExit(["thumbnail", "--size", "\(size)", file, a])
            let thumbnailer = try Self.runThumbnailer(["--size", "\(size)", file, b])
            #expect(command.status == 0 && thumbnailer.status == 0, "\(command.err) \(thumbnailer.err)")
            let image = try PNGFile.read(path: b)
            #expect(FileManager.default.contentsEqual(atPath: a, andPath: b), "\(file) at \(size)")
            #expect(max(image.size.width, image.size.height) == size && prizeColoured(image) == 0, "\(file) at \(size): \(image.size)")
        }

        // Beyond the preview's 640 pixels: the command draws the foil afresh, the thumbnailer enlarges the preview.
        let big = card.folder.appendingPathComponent("big.png").path
        #expect(try runToExit(["thumbnail", "--size", "1024", foil, big]).status == 0)
        let drawn = try PNGFile.read(path: big)
        #expect(drawn.size == PixelSize(width: 1024, height: 640) && prizeColoured(drawn) == 0 && dark(drawn) > 1000)
        #expect(try Self.runThumbnailer(["--size", "1024", foil, big]).status == 0)
        #expect(try PNGFile.read(path: big).size == PixelSize(width: 1024, height: 640))

        // A foil card packed by hand, with no preview: the command draws it; the thumbnailer,
        // which cannot draw words, says why and writes nothing.
        let handMade = card.folder.appendingPathComponent("hand made.scratchcard").path
        let prizeBytes = try Array(Data(contentsOf: URL(fileURLWithPath: card.prize)))
        try Data(RawZip.card(json: #"{"cards": [{"prize": "prize.png", "cover-text": "Hi"}]}"#,
                             files: [RawZip.Entry("prize.png", prizeBytes)]).bytes).write(to: URL(fileURLWithPath: handMade))
        let out = card.folder.appendingPathComponent("hand.png").path
        let refused = try Self.runThumbnailer(["--size", "256", handMade, out])
        #expect(refused.status == 2 && refused.err.contains(handMade) && refused.err.contains(CardFile.previewEntry), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try runToExit(["thumbnail", "--size", "256", handMade, out]).status == 0)
        let fresh = try PNGFile.read(path: out)
        #expect(fresh.size == PixelSize(width: 256, height: 160) && prizeColoured(fresh) == 0 && dark(fresh) > 50)
    }

    @Test("a ticket's card file: its thumbnail is the printed ticket with its foil panels, as the window draws it, not the plain foil")
    func ticketThumbnail() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = folder.appendingPathComponent("deck.json").path
        try Data(#"""
            {"cover-text": "PICK 3", "cards": [{"id": "ticket", "grid": {"x": 40, "y": 110, "w": 560, "h": 270, "columns": 3, "rows": 3, "gap": 15},
             "pick": 3, "symbols": [{"text": "A"}, {"text": "A"}, {"text": "A"}], "decoys": [{"text": "B"}, {"text": "C"}, {"text": "D"}, {"text": "E"}, {"text": "F"}, {"text": "G"}]}]}
            """#.utf8).write(to: URL(fileURLWithPath: deck))
        let file = folder.appendingPathComponent("ticket.scratchcard").path
        try Self.make(["--deck", deck], out: file)
        let out = folder.appendingPathComponent("thumb.png").path
        let result = try Self.runThumbnailer(["--size", "256", file, out])
        #expect(result.status == 0, "\(result.err)")
        let thumbnail = try PNGFile.read(path: out)
        let size = PixelSize(width: 256, height: 160)
        #expect(thumbnail.size == size)
        let zones = try #require(try Deck.load(path: deck).cards.first?.zoneCard)
        let ticket = CardArt.ticket(size: size, zones: zones.outlines(in: size), header: "PICK 3").cover
        let foil = CardArt.cover(size: size, prompt: "PICK 3")
        func meanDifference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
            let sum = stride(from: 0, to: a.bytes.count, by: 4).reduce(0) { total, i in
                total + (0..<3).reduce(0) { $0 + abs(Int(a.bytes[i + $1]) - Int(b.bytes[i + $1])) } }
            return Double(sum) / Double(a.size.width * a.size.height * 3)
        }
        // Drawn at 640x400, stored as JPEG and scaled: near the ticket drawn at 256, far from the foil.
        #expect(meanDifference(thumbnail, ticket) < 8, "from the ticket: \(meanDifference(thumbnail, ticket))")
        #expect(meanDifference(thumbnail, foil) > 30, "from the foil: \(meanDifference(thumbnail, foil))")
    }

    /// Every command that reads a card file, with FILE where the card file goes.
    static let readers: [[String]] = [
        ["FILE"], ["--", "FILE"], ["--deck", "FILE"], ["--deck", "FILE", "--kiosk"], ["info", "FILE"], ["thumbnail", "FILE", "OUT"],
        ["simulate", "--deck", "FILE", "--count", "1"], ["stock", "--deck", "FILE", "--store", "STORE"],
        ["pool", "init", "--pool", "host=/nonexistent dbname=none", "--deck", "FILE"],
    ]

    @Test("every bad card file: every command that reads one exits 2 naming the file and the entry",
          arguments: BadCardFiles.all.map(\.name))
    func badFiles(name: String) throws {
        let bad = try #require(BadCardFiles.all.first { $0.name == name })
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bad card.scratchcard").path
        try Data(bad.bytes).write(to: URL(fileURLWithPath: file))
        let out = folder.appendingPathComponent("out.png").path
        let store = folder.appendingPathComponent("store.db").path
        for reader in Self.readers {
            let arguments = reader.map { $0 == "FILE" ? file : $0 == "OUT" ? out : $0 == "STORE" ? store : $0 }
            let result = try runToExit(arguments, timeout: 20)
            #expect(result.status == 2, "\(reader): status \(result.status), \(result.err)")
            #expect(result.err.contains(file) && result.err.contains(bad.mentions), "\(reader): \(result.err)")
        }
        let thumbnailer = try Self.runThumbnailer(["--size", "256", file, out])
        #expect(thumbnailer.status == 2 && thumbnailer.err.contains(file) && thumbnailer.err.contains(bad.mentions),
                "scratchcard-thumbnailer: status \(thumbnailer.status), \(thumbnailer.err)")
        #expect(!FileManager.default.fileExists(atPath: out), "a thumbnail written for a bad file")
    }
}
