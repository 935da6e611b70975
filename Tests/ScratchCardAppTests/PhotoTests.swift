import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchImage
import XvfbSupport

/// JPEG and WebP wherever a PNG is read, as a user meets them: a phone's photo as the
/// prize shows upright whatever its EXIF orientation, a WebP cover, bad files refused,
/// the doodle's JPEG export. The fixtures are Tests/ScratchImageTests/Fixtures (made by
/// scripts/make-image-fixtures.sh): quadrants.png is red, green / blue, yellow, and
/// orient-N.jpg is it stored as a camera with EXIF orientation N stores it.
@Suite(.serialized) struct PhotoTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ScratchImageTests/Fixtures")
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    static let size = PixelSize(width: 64, height: 48)
    static let quadrantColours = [RGBA(r: 220, g: 30, b: 30), RGBA(r: 30, g: 180, b: 60),
                                  RGBA(r: 30, g: 60, b: 200), RGBA(r: 230, g: 210, b: 40)]

    /// Whether `image` is 64x48 and shows the four quadrants upright (each sampled at
    /// the middle of its quadrant and at the quadrant's outer corner, a few pixels in).
    static func upright(_ image: RGBAImage, tolerance: Int = 14) -> Bool {
        guard image.size == size else { return false }
        func near(_ a: RGBA, _ b: RGBA) -> Bool {
            abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance && abs(Int(a.b) - Int(b.b)) <= tolerance
        }
        let points = [[(16, 12), (4, 4)], [(48, 12), (59, 4)], [(16, 36), (4, 43)], [(48, 36), (59, 43)]]
        return zip(points, quadrantColours).allSatisfy { spots, colour in spots.allSatisfy { near(image[$0.0, $0.1], colour) } }
    }

    @Test("a JPEG prize with each EXIF orientation 1...8 shows upright in the window")
    func prizeOrientations() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let cover = try App.solidPNG(RGBA(r: 128, g: 128, b: 128), size: Self.size, in: folder, name: "cover.png")
        let server = try Xvfb(width: 320, height: 240); defer { server.stop() }
        for n in 1...8 {
            let app = try RunningApp(["--cover", cover, "--prize", Self.fixture("orient-\(n).jpg"), "--scale", "1", "--events"],
                                     environment: server.environment)
            let window = try server.scratchcardWindow()
            _ = try server.waitForPixels(window: window) { $0.size == Self.size && $0[32, 24] == RGBA(r: 128, g: 128, b: 128) }
            try server.press("space", in: window)
            let shown = try server.waitForPixels(window: window, until: { Self.upright($0) })
            #expect(Self.upright(shown), "orientation \(n): \(shown.size) TL \(shown[16, 12]) TR \(shown[48, 12]) BL \(shown[16, 36]) BR \(shown[48, 36])")
            try server.press("q", in: window)
            #expect(app.wait() == 0, "orientation \(n): \(app.standardError)")
            let ready = app.events.first { $0["event"] as? String == "ready" }
            #expect(ready?["card"] as? String == "orient-\(n)")
        }
    }

    @Test("a WebP cover (lossless) shows exactly, scratches off to the prize")
    func webpCover() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let prize = try App.solidPNG(RGBA(r: 250, g: 250, b: 250), size: Self.size, in: folder, name: "prize.png")
        let server = try Xvfb(width: 320, height: 240); defer { server.stop() }
        let app = try RunningApp(["--cover", Self.fixture("lossless.webp"), "--prize", prize, "--scale", "1", "--brush", "6"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow()
        let expected = try PNGFile.read(path: Self.fixture("quadrants.png"))
        let shown = try server.waitForPixels(window: window) { $0 == expected }
        #expect(shown == expected, "the window shows the WebP's pixels exactly")
        try server.drag(window: window, from: (4, 24), through: [(30, 24), (60, 24)])
        let scratched = try server.waitForPixels(window: window) { $0[32, 24] == RGBA(r: 250, g: 250, b: 250) }
        #expect(scratched[32, 24] == RGBA(r: 250, g: 250, b: 250) && scratched[32, 4] == expected[32, 4])
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
    }

    @Test("an animated WebP prize shows its first frame")
    func animatedWebPPrize() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let cover = try App.solidPNG(RGBA(r: 128, g: 128, b: 128), size: Self.size, in: folder, name: "cover.png")
        let server = try Xvfb(width: 320, height: 240); defer { server.stop() }
        let app = try RunningApp(["--cover", cover, "--prize", Self.fixture("animated.webp"), "--scale", "1"], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0.size == Self.size && $0[32, 24] == RGBA(r: 128, g: 128, b: 128) }
        try server.press("space", in: window)
        let shown = try server.waitForPixels(window: window) { Self.upright($0) }
        #expect(Self.upright(shown), "the first frame (the second is its negative): TL \(shown[16, 12]) BR \(shown[48, 36])")
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
    }

    /// Bad JPEG and WebP files, in a fresh folder.
    static func badFiles() throws -> URL {
        let folder = try App.scratchFolder()
        func write(_ bytes: [UInt8], _ name: String) throws { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("orient-6.jpg"))))
        let progressive = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("progressive.jpg"))))
        let webp = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("lossy.webp"))))
        try write(Array(jpeg.prefix(jpeg.count * 2 / 3)), "truncated.jpg")
        try write(Array(progressive.prefix(progressive.count - 30)), "cut-progressive.jpg")
        // A frame header claiming 16384 x 16384 in a file of a few hundred bytes.
        var huge = jpeg
        let sof = huge.indices.first { huge[$0] == 0xFF && huge[$0 + 1] == 0xC0 }!
        huge[sof + 5] = 0x40; huge[sof + 6] = 0; huge[sof + 7] = 0x40; huge[sof + 8] = 0
        try write(huge, "huge.jpg")
        // A segment whose length runs far past the end.
        var long = jpeg
        long[4] = 0xFF; long[5] = 0xF0
        try write(long, "long-segment.jpg")
        try write(Array(webp.prefix(webp.count / 2)), "truncated.webp")
        let animated = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("animated.webp"))))
        try write(Array(animated.prefix(animated.count - 50)), "cut-animated.webp")
        var bogus = webp
        for i in 30..<bogus.count { bogus[i] ^= 0x5A }
        try write(bogus, "bogus.webp")
        try write(Array("RIFF\u{10}\0\0\0WEBPVP8L\u{4}\0\0\0".utf8) + [0x2F, 0xFF, 0xFF, 0xFF], "header-only.webp")
        return folder
    }

    @Test("truncated and malicious JPEG and WebP files: exit 2 naming the file, quickly, as cover, prize, doodle picture or render's card",
          arguments: [
            (["--prize", "FOLDER/truncated.jpg"], "truncated.jpg: truncated JPEG"),
            (["--cover", "FOLDER/cut-progressive.jpg"], "cut-progressive.jpg: truncated JPEG"),
            (["--prize", "FOLDER/huge.jpg"], "huge.jpg: image is 16384x16384 but the file has only"),
            (["--cover", "FOLDER/long-segment.jpg"], "long-segment.jpg: truncated JPEG"),
            (["--cover", "FOLDER/truncated.webp"], "truncated.webp: truncated WebP"),
            (["--prize", "FOLDER/cut-animated.webp"], "cut-animated.webp: truncated WebP"),
            (["--prize", "FOLDER/bogus.webp"], "bogus.webp: "),
            (["--prize", "FOLDER/header-only.webp"], "header-only.webp: "),
            (["doodle", "FOLDER/truncated.jpg", "--out", "FOLDER/x.png"], "truncated.jpg: truncated JPEG"),
            (["doodle", "FOLDER/bogus.webp", "--out", "FOLDER/x.jpg"], "bogus.webp: "),
            (["render", "--trace", "TRACE", "--prize", "FOLDER/huge.jpg", "--out", "FOLDER/x.png"], "huge.jpg: "),
          ])
    func badFiles(arguments: [String], message: String) throws {
        let folder = try Self.badFiles(); defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("t.trace").path
        try Trace(canvas: Self.size, records: [.brush(4), .down(Point(x: 2, y: 2)), .up]).serialized()
            .write(toFile: trace, atomically: true, encoding: .utf8)
        let start = Date()
        let result = try runToExit(arguments.map {
            $0.replacingOccurrences(of: "FOLDER", with: folder.path).replacingOccurrences(of: "TRACE", with: trace)
        })
        #expect(result.status == 2, "\(arguments): \(result.err)")
        #expect(result.err.hasPrefix("scratchcard: \(folder.path)/\(message)"), "\(result.err)")
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.png").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.jpg").path))
    }

    @Test("doodle --out x.jpg writes a JPEG at the photo's own resolution, upright, atomically; --out x.png a PNG")
    func doodleJPEGOut() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        // A blue stroke along the top of the upright picture, drawn on a canvas of twice its size.
        let trace = folder.appendingPathComponent("line.trace").path
        try Trace(canvas: PixelSize(width: 128, height: 96),
                  records: [.brush(6), .down(Point(x: 8, y: 8)), .move(Point(x: 120, y: 8)), .up]).serialized()
            .write(toFile: trace, atomically: true, encoding: .utf8)
        let photo = Self.fixture("orient-6.jpg")      // stored 48x64, tagged: turn 90° clockwise
        let out = folder.appendingPathComponent("doodle.JPG").path
        let result = try runToExit(["doodle", photo, "--trace", trace, "--out", out, "--color", "#0000ff"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == out + "\n")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(ImageFormat(signatureOf: bytes) == .jpeg, "a JPEG, by its first bytes")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["doodle.JPG", "line.trace"], "no temporary file left: \(names)")
        let image = try ImageFile.read(path: out)
        #expect(image.size == Self.size, "the photo's own resolution, upright: \(image.size)")
        func isBlue(_ c: RGBA) -> Bool { c.b > 200 && c.r < 60 && c.g < 60 }
        #expect(isBlue(image[10, 4]) && isBlue(image[54, 4]), "the stroke along the top: \(image[10, 4]) \(image[54, 4])")
        #expect(!isBlue(image[10, 44]) && !isBlue(image[54, 44]))
        let body = [(16, 16, 0), (48, 16, 1), (16, 36, 2), (48, 36, 3)]
        for (x, y, q) in body {
            let c = image[x, y], want = Self.quadrantColours[q]
            #expect(abs(Int(c.r) - Int(want.r)) <= 16 && abs(Int(c.g) - Int(want.g)) <= 16 && abs(Int(c.b) - Int(want.b)) <= 16,
                    "quadrant \(q) at (\(x), \(y)): \(c)")
        }
        // The default stays PNG.
        let png = folder.appendingPathComponent("doodle.png").path
        #expect(try runToExit(["doodle", photo, "--trace", trace, "--out", png]).status == 0)
        let pngBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        #expect(ImageFormat(signatureOf: pngBytes) == .png)
        #expect(try PNGFile.read(path: png).size == Self.size)
    }

    @Test("deck entries and deck folders take JPEG and WebP: a JPEG cover and a WebP prize from a deck file, a JPEG from a folder")
    func decks() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(atPath: Self.fixture("orient-3.jpg"), toPath: folder.appendingPathComponent("cover.jpg").path)
        try FileManager.default.copyItem(atPath: Self.fixture("lossless.webp"), toPath: folder.appendingPathComponent("prize.webp").path)
        let deck = folder.appendingPathComponent("deck.json").path
        try #"{"cards": [{"id": "photo", "prize": "prize.webp", "cover": "cover.jpg"}]}"#.write(toFile: deck, atomically: true, encoding: .utf8)
        let expected = try PNGFile.read(path: Self.fixture("quadrants.png"))
        let server = try Xvfb(width: 320, height: 240); defer { server.stop() }

        let app = try RunningApp(["--deck", deck, "--scale", "1", "--events"], environment: server.environment)
        let window = try server.scratchcardWindow()
        let covered = try server.waitForPixels(window: window) { Self.upright($0) }
        #expect(Self.upright(covered), "the JPEG cover, turned upright (orientation 3)")
        try server.press("space", in: window)
        let revealed = try server.waitForPixels(window: window) { $0 == expected }
        #expect(revealed == expected, "the lossless WebP prize, exactly")
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
        #expect(app.events.first?["card"] as? String == "photo")

        // A folder holding one JPEG: it is the deck's one card.
        let cards = folder.appendingPathComponent("cards")
        try FileManager.default.createDirectory(at: cards, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixture("orient-8.jpg"), toPath: cards.appendingPathComponent("Phone Photo.JPG").path)
        let grey = try App.solidPNG(RGBA(r: 128, g: 128, b: 128), size: Self.size, in: folder, name: "grey.png")
        let second = try RunningApp(["--deck", cards.path, "--cover", grey, "--scale", "1", "--events"], environment: server.environment)
        let window2 = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window2) { $0.size == Self.size && $0[32, 24] == RGBA(r: 128, g: 128, b: 128) }
        try server.press("space", in: window2)
        let shown = try server.waitForPixels(window: window2) { Self.upright($0) }
        #expect(Self.upright(shown), "the folder's JPEG, upright (orientation 8)")
        try server.press("q", in: window2)
        #expect(second.wait() == 0, "\(second.standardError)")
        #expect(second.events.first?["card"] as? String == "Phone Photo")
    }

    @Test("render reads a WebP cover and a JPEG prize (turned upright)")
    func renderReadsJPEGAndWebP() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        // A stroke across the top row of quadrants, radius 6: the prize shows there.
        let trace = folder.appendingPathComponent("t.trace").path
        try Trace(canvas: Self.size, records: [.brush(6), .down(Point(x: 2, y: 12)), .move(Point(x: 62, y: 12)), .up]).serialized()
            .write(toFile: trace, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("card.png").path
        let result = try runToExit(["render", "--trace", trace, "--cover", Self.fixture("lossless.webp"),
                                    "--prize", Self.fixture("orient-7.jpg"), "--out", out])
        #expect(result.status == 0, "\(result.err)")
        let card = try PNGFile.read(path: out)
        let cover = try PNGFile.read(path: Self.fixture("quadrants.png"))
        let prize = try ImageFile.read(path: Self.fixture("orient-7.jpg"))
        #expect(card[16, 12] == prize[16, 12] && card[48, 12] == prize[48, 12], "the prize, upright, under the stroke")
        #expect(Self.upright(prize))
        #expect(card[16, 36] == cover[16, 36] && card[48, 36] == cover[48, 36], "the WebP cover elsewhere")
    }
}
