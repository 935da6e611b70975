import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchImage
import XvfbSupport

/// Issue 15, "Crisp on every screen": sizes in points (the window and the brush follow
/// the display's scale) and screens whose default visual is not 24/32-bit TrueColor.
/// Real windows on private Xvfb servers, real input through XTest, pixels read back.
@Suite(.serialized) struct ScreenTests {
    static let coverColour = RGBA(r: 200, g: 200, b: 200)
    static let prizeColour = RGBA(r: 20, g: 60, b: 220)
    /// A card of 640x400 points: the built-in card's size.
    static let cardSize = PixelSize(width: 640, height: 400)

    static func card() throws -> SolidCard { try SolidCard(cover: coverColour, prize: prizeColour, size: cardSize) }

    /// The colour a mask value shows, by docs/ARCHITECTURE.md's formula.
    static func blended(_ m: Int) -> RGBA {
        func mix(_ c: UInt8, _ p: UInt8) -> UInt8 { UInt8(((Double(c) * Double(255 - m) + Double(p) * Double(m)) / 255).rounded()) }
        return RGBA(r: mix(coverColour.r, prizeColour.r), g: mix(coverColour.g, prizeColour.g), b: mix(coverColour.b, prizeColour.b))
    }

    /// The band a horizontal drag along row 100 leaves at x = 300 with a brush of radius
    /// `r` px: rows within r - 0.5 of the row's centre show the prize, the rows at r
    /// half of it, the rows beyond the cover (docs/ARCHITECTURE.md's coverage, clamp(r + 0.5 - d)).
    func expectBand(_ image: RGBAImage, radius r: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        for y in (100 - r + 1)...(100 + r - 1) {
            #expect(image[300, y] == Self.prizeColour, "row \(y) of a band \(r) px each side", sourceLocation: sourceLocation)
        }
        #expect(image[300, 100 + r] == Self.blended(128) && image[300, 100 - r] == Self.blended(128),
                "the edge rows at \(r): \(image[300, 100 + r]) \(image[300, 100 - r])", sourceLocation: sourceLocation)
        #expect(image[300, 100 + r + 1] == Self.coverColour && image[300, 100 - r - 1] == Self.coverColour,
                sourceLocation: sourceLocation)
    }

    /// Runs the card with the default brush (20 pt) and no --scale, drags across row 100
    /// from x = 100 to x = 500, and returns the window's pixels and the program's log.
    func dragDefaultCard(on server: Xvfb, extra: [String] = []) throws -> (RGBAImage, String) {
        let card = try Self.card(); defer { card.remove() }
        let app = try RunningApp(card.arguments + ["--verbose"] + extra, environment: server.environment)
        let window = try server.scratchcardWindow()
        let before = try server.waitForPixels(window: window) { $0[300, 100] == Self.coverColour }
        #expect(before[300, 100] == Self.coverColour, "the cover shows: \(app.standardError)")
        try server.drag(window: window, from: (100, 100), through: [(300, 100), (500, 100)])
        let image = try server.waitForPixels(window: window) { $0[300, 100] == Self.prizeColour && $0[490, 100] == Self.prizeColour }
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
        return (image, app.standardError)
    }

    @Test("Done-when: at -dpi 96 the default window is 640x400 device pixels and the 20 pt brush 20 px each side")
    func at96DPI() throws {
        let server = try Xvfb(width: 1024, height: 768, dpi: 96); defer { server.stop() }
        let (image, log) = try dragDefaultCard(on: server)
        #expect(image.size == PixelSize(width: 640, height: 400), "\(log)")
        expectBand(image, radius: 20)
        // 1024 px over 271 mm and 768 over 203: 1.0004, which the scale snaps to 1.
        #expect(log.contains("scale 1.0 from screen dpi (measured 1.0004"), "\(log)")
        #expect(log.contains("snapped to the nearest quarter"), "\(log)")
    }

    @Test("Done-when: at -dpi 192 the default window is 1280x800 device pixels and the brush 40 px each side")
    func at192DPI() throws {
        let server = try Xvfb(width: 1600, height: 1000, dpi: 192); defer { server.stop() }
        let (image, log) = try dragDefaultCard(on: server)
        #expect(image.size == PixelSize(width: 1280, height: 800), "\(log)")
        expectBand(image, radius: 40)
        #expect(log.contains("scale 2.0 from screen dpi"), "\(log)")
    }

    @Test("Done-when: with Xft.dpi 144 the default window is 960x600 device pixels and the brush 30 px each side")
    func atXftDPI144() throws {
        let server = try Xvfb(width: 1280, height: 800, dpi: 96); defer { server.stop() }
        try server.xrdb(merge: "Xft.dpi: 144\n")
        let (image, log) = try dragDefaultCard(on: server)
        #expect(image.size == PixelSize(width: 960, height: 600), "\(log)")
        expectBand(image, radius: 30)
        #expect(log.contains("scale 1.5 from Xft.dpi;"), "Xft.dpi is used as given: \(log)")
    }

    @Test("--size is in points: 400x300 at -dpi 192 is an 800x600 window")
    func sizeIsInPoints() throws {
        let server = try Xvfb(width: 1600, height: 1000, dpi: 192); defer { server.stop() }
        let (image, log) = try dragDefaultCard(on: server, extra: ["--size", "400x300"])
        #expect(image.size == PixelSize(width: 800, height: 600), "\(log)")
        expectBand(image, radius: 40)
    }

    // MARK: - Visuals

    @Test("Done-when: at depth 16 and depth 30 the card draws through a 32-bit TrueColor visual: exact colours, and it scratches",
          arguments: [16, 30])
    func nonDefaultDepth(depth: Int) throws {
        let server = try Xvfb(width: 800, height: 600, depth: depth, dpi: 96); defer { server.stop() }
        let (image, log) = try dragDefaultCard(on: server, extra: ["--brush", "10"])
        #expect(image.size == PixelSize(width: 640, height: 400), "\(log)")
        expectBand(image, radius: 10)
        for (x, y) in [(0, 0), (639, 399), (300, 300), (50, 100)] {
            #expect(image[x, y] == Self.coverColour, "(\(x), \(y)) is untouched cover")
        }
        #expect(log.contains("the default is depth \(depth) TrueColor; drawing with a 32-bit TrueColor visual"), "\(log)")
    }

    @Test("Done-when: at depth 8 (no 24/32-bit TrueColor visual at all) exit 1 with a message naming the depth")
    func depth8IsRefusedByName() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 800, height: 600, depth: 8); defer { server.stop() }
        let app = try RunningApp(card.arguments, environment: server.environment)
        #expect(app.wait() == 1)
        let err = app.standardError
        #expect(err.contains("depth 8 PseudoColor"), "\(err)")
        #expect(err.contains("24- or 32-bit TrueColor"), "\(err)")
        #expect(!err.contains("Fatal") && !err.contains("Crash"), "\(err)")
    }

    @Test("the doodle window at depth 16 shows the picture in its colours")
    func doodleAtDepth16() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let colour = RGBA(r: 30, g: 140, b: 90)
        let picture = try App.solidPNG(colour, size: PixelSize(width: 200, height: 150), in: folder, name: "p.png")
        let server = try Xvfb(width: 640, height: 480, depth: 16, dpi: 96); defer { server.stop() }
        let app = try RunningApp(["doodle", picture], environment: server.environment)
        let window = try server.scratchcardWindow()
        let image = try server.waitForPixels(window: window) { $0[100, 75] == colour }
        #expect(image.size == PixelSize(width: 200, height: 150))
        #expect(image[0, 0] == colour && image[199, 149] == colour && image[100, 75] == colour, "\(image[100, 75])")
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
    }
}
