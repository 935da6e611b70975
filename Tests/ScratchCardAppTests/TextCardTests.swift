import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import CardArt
import ScratchCore
import ScratchImage
import XvfbSupport

/// Cards the program draws, as a user sees them under Xvfb: text cards in English,
/// Chinese and Arabic revealed and read back by OCR (Debian's tesseract, eng + chi_sim),
/// `--cover-text` on the built-in foil, the built-in card's whole frame on a 16:9 kiosk.
@Suite(.serialized) struct TextCardTests {
    static let size = PixelSize(width: 1280, height: 800)

    /// The deck's three text cards, by id.
    static let texts: KeyValuePairs<String, CardText> = [
        "english": CardText(title: "Free coffee", subtitle: "Show this at the counter"),
        "chinese": CardText(title: "恭喜中奖", subtitle: "免费咖啡一杯"),
        "arabic": CardText(title: "شاي مجاني", subtitle: "Café au lait 咖啡"),
    ]

    /// A deck of three text cards; only `chosen` has a weight, so it is the one dealt.
    static func deck(in folder: URL, chosen: String) throws -> String {
        let entries = texts.map { id, text in
            #"{"id": "\#(id)", "text": "\#(text.title)", "subtitle": "\#(text.subtitle ?? "")", "weight": \#(id == chosen ? 1 : 0)}"#
        }
        let path = folder.appendingPathComponent("deck.json").path
        try Data(#"{"cards": [\#(entries.joined(separator: ",\n"))]}"#.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// What tesseract reads in `image` (eng + chi_sim), spaces and line breaks removed:
    /// what it reads at full size, at a half and at a third, one after the other. Its
    /// Chinese model misses characters much taller than print (the card's are 130 px at
    /// 1280x800), so the smaller copies are where those words are found.
    static func ocr(_ image: RGBAImage, on server: Xvfb) throws -> String {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        var text = ""
        for divisor in [1, 2, 3] {
            let copy = divisor == 1 ? image : image.scaledToFill(PixelSize(width: image.width / divisor, height: image.height / divisor))
            let path = folder.appendingPathComponent("shot-\(divisor).png").path
            try PNGFile.write(copy, to: path)
            if let keep = ProcessInfo.processInfo.environment["SCRATCHCARD_KEEP_OCR"] { try? PNGFile.write(copy, to: keep + "/ocr-\(UUID().uuidString.prefix(8)).png") }
            text += try server.run("tesseract", [path, "-", "-l", "eng+chi_sim"]) + "\n"
        }
        return String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init))
    }

    /// Dark letters on the foil, alone: every dark pixel (the prompt's grey) black, the
    /// rest (the brushed metal, its sparkle) white.
    static func darkOnly(_ image: RGBAImage) -> RGBAImage {
        var out = image
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image[x, y]
                out[x, y] = Int(p.r) + Int(p.g) + Int(p.b) < 3 * 90 ? .black : .white
            }
        }
        return out
    }

    /// Light letters on a strong background read better as dark on white: every light,
    /// pale pixel (the title's white to pale gold, the subtitle's white) black, the rest white.
    static func lettersOnly(_ image: RGBAImage) -> RGBAImage {
        var out = image
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image[x, y]
                let light = Int(p.r) + Int(p.g) + Int(p.b) >= 3 * 225 && Int(p.b) >= 160 && Int(p.r) - Int(p.b) <= 80
                out[x, y] = light ? .black : .white
            }
        }
        return out
    }

    /// True once the window shows a card of `size`: drawn, not the black of a window
    /// just mapped.
    static func isDrawn(_ size: PixelSize) -> (RGBAImage) -> Bool {
        { image in
            image.size == size && [(size.width / 2, 2), (2, size.height / 2), (size.width / 3, size.height / 3)]
                .allSatisfy { image[$0.0, $0.1] != .black }
        }
    }

    /// The fraction of pixels of `image` more than 8 levels away from `expected`'s in a
    /// channel (1 when the sizes differ).
    static func fractionDiffering(_ image: RGBAImage, from expected: RGBAImage) -> Double {
        guard image.size == expected.size else { return 1 }
        var differing = 0
        for y in 0..<image.size.height {
            for x in 0..<image.size.width {
                let a = image[x, y], b = expected[x, y]
                if abs(Int(a.r) - Int(b.r)) > 8 || abs(Int(a.g) - Int(b.g)) > 8 || abs(Int(a.b) - Int(b.b)) > 8 { differing += 1 }
            }
        }
        return Double(differing) / Double(image.size.width * image.size.height)
    }

    /// How many of `characters` the OCR text holds.
    static func found(_ characters: String, in text: String) -> Int { Set(characters).filter { text.contains($0) }.count }

    /// Runs the deck at 1280x800 with the `chosen` card, reveals it with Space and returns
    /// what the window shows once the fade is over, with the app's stderr.
    func revealed(_ chosen: String) throws -> (image: RGBAImage, errors: String) {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(in: folder, chosen: chosen)
        let server = try Xvfb(width: 1400, height: 900); defer { server.stop() }
        let app = try RunningApp(["--deck", deck, "--size", "1280x800", "--scale", "1", "--events"], environment: server.environment)
        let window = try server.scratchcardWindow()
        let cover = try server.waitForPixels(window: window, until: Self.isDrawn(Self.size))
        try server.press("space", in: window)
        #expect(waitUntil { app.eventNames.contains("revealed") }, "Space reveals: \(app.eventNames)")
        // The fade (and the reveal's burst of sparks) is over when two looks in a row show
        // the prize as CardArt draws it, all but a few pixels. Looks that merely agree are not
        // enough: a debug build's full-card fade frame at 1280x800 takes about 0.75 s, and
        // under load longer than any gap between two looks.
        let text = try #require(Self.texts.first { $0.key == chosen }?.value)
        let prize = CardArt.prize(size: Self.size, text: text)
        var last = cover
        let shown = try server.waitForPixels(window: window, timeout: 30) { image in
            defer { last = image }
            return image == last && Self.fractionDiffering(image, from: prize) < 0.001
        }
        let differing = Self.fractionDiffering(shown, from: prize)
        #expect(differing < 0.001, "the window never showed the prize alone: \(differing) of its pixels differ")
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        #expect(app.events.first?["card"] as? String == chosen)
        return (shown, app.standardError)
    }

    @Test("an English text card, revealed: OCR reads its words")
    func englishTextCard() throws {
        let (image, errors) = try revealed("english")
        let server = try Xvfb(); defer { server.stop() }
        let text = try Self.ocr(Self.lettersOnly(image), on: server).lowercased()
        #expect(text.contains("free") && text.contains("coffee"), "OCR read: \(text)")
        #expect(text.contains("counter"), "the subtitle too; OCR read: \(text)")
        #expect(!errors.contains("warning"), "\(errors)")
    }

    @Test("a Chinese text card, revealed: OCR reads its characters")
    func chineseTextCard() throws {
        let (image, errors) = try revealed("chinese")
        let server = try Xvfb(); defer { server.stop() }
        let text = try Self.ocr(Self.lettersOnly(image), on: server)
        #expect(Self.found("恭喜中奖", in: text) >= 3, "OCR read: \(text)")
        #expect(Self.found("免费咖啡", in: text) >= 3, "OCR read: \(text)")
        #expect(!errors.contains("warning"), "\(errors)")
    }

    @Test("an Arabic text card with a mixed-script subtitle is drawn with every glyph, in the text area")
    func arabicTextCard() throws {
        let (image, errors) = try revealed("arabic")
        #expect(!errors.contains("warning"), "every glyph has a font: \(errors)")
        // The title's letters are light pixels in the upper middle of the card, where
        // the layout put them; nothing of them outside the text area.
        let placed = CardArt.prizeLayout(size: Self.size, text: CardText(title: "شاي مجاني", subtitle: "Café au lait 咖啡"))
        let title = try #require(placed.first { $0.role == "title" })
        let letters = Self.lettersOnly(image)
        var inside = 0
        for y in Int(title.ink.y)..<Int(title.ink.maxY) { for x in Int(title.ink.x)..<Int(title.ink.maxX) where letters[x, y] == .black { inside += 1 } }
        #expect(Double(inside) > title.ink.width * title.ink.height * 0.15, "\(inside) letter pixels in \(title.ink)")
        // The Latin part of the subtitle reads back (Arabic has no OCR data installed).
        let server = try Xvfb(); defer { server.stop() }
        let text = try Self.ocr(letters, on: server).lowercased()
        #expect(text.contains("caf") && text.contains("lait"), "OCR read: \(text)")
    }

    /// The cover the program shows with `arguments`, at 1280x800.
    func cover(_ arguments: [String]) throws -> (image: RGBAImage, server: Xvfb) {
        let server = try Xvfb(width: 1400, height: 900)
        let app = try RunningApp(["--size", "1280x800", "--scale", "1"] + arguments, environment: server.environment)
        let window = try server.scratchcardWindow()
        let image = try server.waitForPixels(window: window, until: Self.isDrawn(Self.size))
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        return (image, server)
    }

    @Test("--cover-text shows on the built-in foil in place of SCRATCH HERE (OCR), in Chinese and English")
    func coverText() throws {
        let (chinese, server) = try cover(["--cover-text", "刮开这里"]); defer { server.stop() }
        let read = try Self.ocr(Self.darkOnly(chinese), on: server)
        #expect(Self.found("刮开这里", in: read) >= 3, "OCR read: \(read)")
        #expect(!read.uppercased().contains("SCRATCH"), "the default prompt is gone: \(read)")

        let (english, other) = try cover(["--cover-text", "Rub to win"]); defer { other.stop() }
        let words = try Self.ocr(Self.darkOnly(english), on: server).lowercased()
        #expect(words.contains("rub") && words.contains("win"), "OCR read: \(words)")

        let (plain, third) = try cover([]); defer { third.stop() }
        let prompt = try Self.ocr(Self.darkOnly(plain), on: server).uppercased()
        #expect(prompt.contains("SCRATCH") && prompt.contains("HERE"), "the built-in prompt: \(prompt)")
    }

    @Test("a deck's cover-text, deck-wide and per card, goes on the foil; a glyph no font has is a warning naming the card")
    func deckCoverTextAndMissingGlyph() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = folder.appendingPathComponent("deck.json").path
        try Data(#"{"cover-text": "Rub here", "cards": [{"id": "odd", "text": "Prize \#u{10FFFD}", "cover-text": "刮开这里"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: deck))
        let server = try Xvfb(width: 1400, height: 900); defer { server.stop() }
        let app = try RunningApp(["--deck", deck, "--size", "1280x800", "--scale", "1"], environment: server.environment)
        let window = try server.scratchcardWindow()
        let image = try server.waitForPixels(window: window, until: Self.isDrawn(Self.size))
        let read = try Self.ocr(Self.darkOnly(image), on: server)
        #expect(Self.found("刮开这里", in: read) >= 3, "the card's own cover-text wins over the deck's: \(read)")
        try server.press("q", in: window)
        #expect(app.wait() == 0, "a missing glyph is no crash")
        #expect(app.standardError.contains("cards[0] (\"odd\")") && app.standardError.contains("no glyph"), "\(app.standardError)")
    }

    /// What is wrong with the frame in `image`, if anything: its groove (the darkest line
    /// near each edge, crossing the lines at a third and two thirds) must run at the
    /// frame's inset for `size` on all four sides.
    static func frameProblems(_ image: RGBAImage, size: PixelSize) -> [String] {
        guard image.size == size else { return ["the window shows \(image.size), not \(size)"] }
        let u = CardArt.unit(for: size), inset = 15.5 * u, band = Int(30 * u)
        func luminance(_ p: RGBA) -> Double { 0.2126 * Double(p.r) + 0.7152 * Double(p.g) + 0.0722 * Double(p.b) }
        func darkest(_ values: [Double], _ range: Range<Int>) -> Int { range.min { values[$0] < values[$1] }! }
        var problems: [String] = []
        func check(_ found: Int, _ side: String) {
            if abs(Double(found) + 0.5 - inset) > 2.5 * u { problems.append("\(side) of the frame \(found) px in, not \(inset)") }
        }
        for x in [size.width / 3, size.width * 2 / 3] {
            let column = (0..<size.height).map { luminance(image[x, $0]) }
            check(darkest(column, 0..<band), "top")
            check(size.height - 1 - darkest(column, (size.height - band)..<size.height), "bottom")
        }
        for y in [size.height / 3, size.height * 2 / 3] {
            let row = (0..<size.width).map { luminance(image[$0, y]) }
            check(darkest(row, 0..<band), "left")
            check(size.width - 1 - darkest(row, (size.width - band)..<size.width), "right")
        }
        return problems
    }

    /// What the window shows once its whole frame is there for `size` (or after `timeout`).
    func waitForWholeFrame(_ server: Xvfb, _ window: UInt, size: PixelSize, timeout: Double = 8) throws -> [String] {
        let image = try server.waitForPixels(window: window, timeout: timeout) { Self.frameProblems($0, size: size).isEmpty }
        return Self.frameProblems(image, size: size)
    }

    @Test("a 16:9 kiosk shows the built-in card's whole frame, drawn at the screen's size")
    func kioskWholeFrame() throws {
        let size = PixelSize(width: 1920, height: 1080)
        let server = try Xvfb(width: size.width, height: size.height); defer { server.stop() }
        let app = try RunningApp(["--kiosk", "--scale", "1"], environment: server.environment)
        let window = try server.scratchcardWindow()
        let problems = try waitForWholeFrame(server, window, size: size)
        #expect(problems.isEmpty, "\(problems)")
        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0)
    }

    @Test("a resize draws the built-in card again for the new size and aspect, whole frame and all")
    func resizeRedraws() throws {
        let server = try Xvfb(width: 1400, height: 900); defer { server.stop() }
        let app = try RunningApp(["--scale", "1", "--stats"], environment: server.environment)
        let window = try server.scratchcardWindow()
        let first = PixelSize(width: 640, height: 400)
        let before = try waitForWholeFrame(server, window, size: first)
        #expect(before.isEmpty, "\(before)")
        for size in [PixelSize(width: 1280, height: 720), PixelSize(width: 500, height: 700)] {
            try server.xdotool("windowsize", "\(window)", "\(size.width)", "\(size.height)")
            let problems = try waitForWholeFrame(server, window, size: size, timeout: 10)
            #expect(problems.isEmpty, "at \(size): \(problems)")
        }
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        #expect(app.stats["relayouts"].flatMap { Int($0) } ?? 0 >= 2, "\(app.stats)")
    }
}
