import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchImage
import XvfbSupport

/// `scratchcard doodle` as a user meets it: bad input, traces with no display, and a
/// real window on a private Xvfb driven through XTest.
@Suite(.serialized) struct DoodleAppTests {
    static let red = RGBA(r: 0xE5, g: 0x39, b: 0x35)      // palette 1
    static let green = RGBA(r: 0x43, g: 0xA0, b: 0x47)    // palette 4
    static let blue = RGBA(r: 0x1E, g: 0x88, b: 0xE5)     // palette 5
    static let border = RGBA(r: 0x20, g: 0x20, b: 0x20)   // the swatch's frame

    /// A gradient with every pixel telling where it is.
    static func gradient(_ size: PixelSize) -> RGBAImage {
        var image = RGBAImage(size: size, filledWith: .white)
        for y in 0..<size.height {
            for x in 0..<size.width {
                image[x, y] = RGBA(r: UInt8(x * 255 / (size.width - 1)), g: UInt8(y * 255 / (size.height - 1)), b: 128)
            }
        }
        return image
    }

    static func waitForFile(_ path: String, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline { usleep(30_000) }
        return FileManager.default.fileExists(atPath: path)
    }

    // MARK: - Bad input

    @Test("bad colours, widths and images: exit 2 naming the option or the file", arguments: [
        (["--color", "#12345"], "--color"),
        (["--color", "red"], "--color"),
        (["--color", "#GGGGGG"], "--color"),
        (["--color", "#1234567"], "--color"),
        (["--colour", ""], "--colour"),
        (["--width", "0"], "--width"),
        (["--width", "-3"], "--width"),
        (["--width", "abc"], "--width"),
        (["--width", "1e9"], "--width"),
        (["--width", "nan"], "--width"),
        (["--width"], "--width"),
        (["--scale", "0"], "--scale"),
        (["--max-fps", "0"], "--max-fps"),
        (["--max-fps", "fast"], "--max-fps"),
        (["--max-fps"], "--max-fps"),
        (["--frobnicate"], "--frobnicate"),
        (["--trace", "FOLDER/t.trace"], "--out"),
    ])
    func badOptions(arguments: [String], named: String) throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = try App.solidPNG(.white, size: PixelSize(width: 20, height: 20), in: folder, name: "in.png")
        let result = try runToExit(["doodle", image] + arguments.map { $0.replacingOccurrences(of: "FOLDER", with: folder.path) })
        #expect(result.status == 2, "\(arguments): \(result.err)")
        #expect(result.err.hasPrefix("scratchcard: ") && result.err.contains(named), "\(result.err)")
    }

    @Test("a missing, damaged or absent image: exit 2 naming the file")
    func badImages() throws {
        let folder = try BadInputTests.folderWithBadFiles()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, expected) in [("missing.png", 2), ("text.png", 2), ("truncated.png", 2), ("huge.png", 2)] {
            let path = folder.appendingPathComponent(name).path
            let result = try runToExit(["doodle", path, "--out", folder.appendingPathComponent("o.png").path])
            #expect(result.status == Int32(expected), "\(name): \(result.err)")
            #expect(result.err.contains(name), "\(result.err)")
        }
        let none = try runToExit(["doodle"])
        #expect(none.status == 2 && none.err.contains("IMAGE"), "\(none.err)")
        let two = try runToExit(["doodle", "a.png", "b.png"])
        #expect(two.status == 2 && two.err.contains("b.png"), "\(two.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("o.png").path))
        let help = try runToExit(["doodle", "--help"])
        #expect(help.status == 0 && help.out.contains("usage: scratchcard doodle"))
    }

    // MARK: - Traces, no display

    /// A trace along y = 50.5 from x = 20 to 180 with radius 4 on a 200x100 canvas, or
    /// the same gesture on a canvas half that size.
    static func writeTrace(in folder: URL, half: Bool = false) throws -> String {
        let f = half ? 0.5 : 1.0
        let trace = Trace(canvas: PixelSize(width: Int(200 * f), height: Int(100 * f)),
                          records: [.brush(4 * f), .down(Point(x: 20 * f, y: 50.5 * f)), .move(Point(x: 180 * f, y: 50.5 * f)), .up,
                                    .down(Point(x: 100.5 * f, y: 85.5 * f)), .up])
        let path = folder.appendingPathComponent(half ? "half.trace" : "line.trace").path
        try trace.serialized().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("--trace draws with no display: the trace's brush, --width, and a canvas scaled to the image")
    func traceMode() throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try App.solidPNG(.white, size: PixelSize(width: 200, height: 100), in: folder, name: "in.png")
        let inputBytes = try Data(contentsOf: URL(fileURLWithPath: input))
        let trace = try Self.writeTrace(in: folder)
        let out = folder.appendingPathComponent("out.png").path
        let result = try runToExit(["doodle", input, "--trace", trace, "--out", out, "--color", "#0000ff"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == out + "\n")
        let image = try PNGFile.read(path: out)
        let blue = RGBA(r: 0, g: 0, b: 255)
        #expect(image.size == PixelSize(width: 200, height: 100))
        #expect(image[100, 50] == blue && image[100, 47] == blue && image[100, 53] == blue)
        #expect(image[100, 46] == RGBA(r: 127, g: 127, b: 255), "distance 4: half covered")
        #expect(image[100, 45] == .white && image[10, 50] == .white)
        #expect(image[100, 85] == blue && image[100, 81] == RGBA(r: 127, g: 127, b: 255), "a down-up is a dot")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == inputBytes)

        // --width 2 (radius 1 image pixel) instead of the trace's brush.
        let thin = folder.appendingPathComponent("thin.png").path
        #expect(try runToExit(["doodle", input, "--trace", trace, "--out", thin, "--width", "2"]).status == 0)
        let thinImage = try PNGFile.read(path: thin)
        #expect(thinImage[100, 50] == Self.red, "the default colour is the palette's first")
        #expect(thinImage[100, 48] == .white)

        // The same gesture on a canvas of half the size: scaled to the image, the same picture.
        let half = try Self.writeTrace(in: folder, half: true)
        let scaled = folder.appendingPathComponent("scaled.png").path
        let again = try runToExit(["doodle", input, "--trace", half, "--out", scaled, "--color", "#0000FF"])
        #expect(again.status == 0, "\(again.err)")
        #expect(try PNGFile.read(path: scaled) == image)

        // --out may name the input, on purpose: then, and only then, it is replaced.
        let copy = folder.appendingPathComponent("copy.png").path
        try FileManager.default.copyItem(atPath: input, toPath: copy)
        #expect(try runToExit(["doodle", copy, "--trace", trace, "--out", copy, "--color", "#0000FF"]).status == 0)
        #expect(try PNGFile.read(path: copy) == image)
    }

    @Test("export is atomic: a failed write leaves nothing, a good one no temporary file; bad traces are named")
    func exportIsAtomic() throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try App.solidPNG(.white, size: PixelSize(width: 200, height: 100), in: folder, name: "in.png")
        let trace = try Self.writeTrace(in: folder)
        let nowhere = folder.appendingPathComponent("no-such-folder/out.png").path
        let failed = try runToExit(["doodle", input, "--trace", trace, "--out", nowhere])
        #expect(failed.status == 1)
        #expect(failed.err.contains(nowhere), "\(failed.err)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("no-such-folder").path))

        // Over an existing file: replaced whole; nothing else left in the folder.
        let out = folder.appendingPathComponent("out.png").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: out))
        #expect(try runToExit(["doodle", input, "--trace", trace, "--out", out]).status == 0)
        #expect(try PNGFile.read(path: out).size == PixelSize(width: 200, height: 100))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["in.png", "line.trace", "out.png"], "\(names)")

        try Data("scratch-trace 1\ncanvas 10 10\nbrush 2\ndown 1 x\n".utf8).write(to: folder.appendingPathComponent("bad.trace"))
        let bad = try runToExit(["doodle", input, "--trace", folder.appendingPathComponent("bad.trace").path, "--out", out])
        #expect(bad.status == 2 && bad.err.contains("bad.trace:4"), "\(bad.err)")
    }

    // MARK: - The window

    @Test("Done-when: a photo larger than the screen, two colours and a dot, one undo, s: the export has the photo's size and the drawing where it was drawn")
    func doneWhen() throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = PixelSize(width: 1600, height: 1200)
        let photo = Self.gradient(size)
        let input = folder.appendingPathComponent("gradient.png").path
        try PNGFile.write(photo, to: input)
        let inputBytes = try Data(contentsOf: URL(fileURLWithPath: input))

        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["doodle", input, "--scale", "1", "--width", "10"], environment: server.environment,
                                 currentDirectory: folder)
        let window = try server.scratchcardWindow()
        // The photo, scaled down by 0.4 to fit the 640x480 screen.
        let first = try server.waitForPixels(window: window) { $0[320, 240].b == 128 }
        #expect(first.size == PixelSize(width: 640, height: 480))
        #expect(abs(Int(first[320, 240].r) - 128) <= 2 && abs(Int(first[320, 240].g) - 128) <= 2)

        try server.press("1", in: window)                                              // red
        try server.drag(window: window, from: (100, 100), through: [(200, 100), (300, 100)])
        try server.press("5", in: window)                                              // blue
        try server.drag(window: window, from: (450, 100), through: [(450, 200), (450, 300)])
        try server.xdotool("mousemove", "--window", "\(window)", "550", "400")
        try server.xdotool("click", "1")                                               // a blue dot
        try server.press("4", in: window)                                              // green
        try server.drag(window: window, from: (100, 420), through: [(300, 420)])
        let withGreen = try server.waitForPixels(window: window) { $0[200, 420] == Self.green }
        #expect(withGreen[200, 420] == Self.green)
        try server.press("u", in: window)                                              // undo the green
        let shown = try server.waitForPixels(window: window) {
            $0[200, 420] != Self.green && $0[200, 100] == Self.red && $0[450, 200] == Self.blue && $0[550, 400] == Self.blue
        }
        #expect(shown[200, 100] == Self.red && shown[450, 200] == Self.blue && shown[550, 400] == Self.blue)
        #expect(shown[200, 420] != Self.green && shown[200, 420].b == 128)

        try server.press("s", in: window)
        let saved = folder.appendingPathComponent("gradient-doodle.png").path
        #expect(Self.waitForFile(saved))
        let image = try PNGFile.read(path: saved)
        #expect(image.size == size, "the photo's own size, not the window's")
        // Window pixel (x, y) has its centre at (x + 0.5, y + 0.5): in the photo, / 0.4.
        func mapped(_ x: Int, _ y: Int) -> (Int, Int) { (Int((Double(x) + 0.5) / 0.4), Int((Double(y) + 0.5) / 0.4)) }
        // Red along window row 100, 10 pt = 10 px wide there: 25 photo px, radius 12.5.
        for x in [110, 150, 200, 250, 290] {
            let (px, py) = mapped(x, 100)
            #expect(image[px, py] == Self.red, "red at \(px), \(py)")
            #expect(image[px, py - 11] == Self.red && image[px, py + 11] == Self.red)
            #expect(image[px, py - 15] == photo[px, py - 15] && image[px, py + 15] == photo[px, py + 15])
        }
        // Blue down window column 450.
        for y in [110, 200, 290] {
            let (px, py) = mapped(450, y)
            #expect(image[px, py] == Self.blue && image[px - 11, py] == Self.blue && image[px + 11, py] == Self.blue)
            #expect(image[px - 15, py] == photo[px - 15, py])
        }
        // The dot: a disc of radius 12.5 photo px around the click.
        let (dx, dy) = mapped(550, 400)
        #expect(image[dx, dy] == Self.blue && image[dx + 10, dy] == Self.blue && image[dx, dy - 10] == Self.blue)
        #expect(image[dx + 15, dy] == photo[dx + 15, dy] && image[dx, dy + 15] == photo[dx, dy + 15])
        // The green stroke was undone: the photo there; and far from everything, the photo.
        for x in [110, 200, 290] {
            let (px, py) = mapped(x, 420)
            #expect(image[px, py] == photo[px, py], "undone stroke at \(px), \(py)")
        }
        for (x, y) in [(0, 0), (1599, 1199), (1000, 1100), (50, 600)] { #expect(image[x, y] == photo[x, y]) }

        // s again: a new numbered file; the input is never touched.
        try server.press("s", in: window)
        #expect(Self.waitForFile(folder.appendingPathComponent("gradient-doodle-2.png").path))
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
        #expect(app.standardOutput == "gradient-doodle.png\ngradient-doodle-2.png\n", "\(app.standardOutput)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == inputBytes)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["gradient-doodle-2.png", "gradient-doodle.png", "gradient.png"], "\(names)")
    }

    @Test("--out: + widens the pen and the swatch shows it for a second; Ctrl+Z undoes; quitting writes --out")
    func outSwatchAndControlZ() throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = Self.gradient(PixelSize(width: 300, height: 200))
        let input = folder.appendingPathComponent("small.png").path
        try PNGFile.write(photo, to: input)
        let out = folder.appendingPathComponent("drawn.png").path
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let lime = RGBA(r: 0, g: 255, b: 0)
        let app = try RunningApp(["doodle", input, "--out", out, "--color", "#00FF00", "--width", "4", "--scale", "1"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow()
        let first = try server.waitForPixels(window: window) { $0[150, 100] == photo[150, 100] }
        #expect(first.size == photo.size, "at scale 1 a picture smaller than the screen shows at its own size")

        try server.press("plus", in: window)                                           // 4 -> 6 pt
        let swatch = try server.waitForPixels(window: window) { $0[8, 8] == Self.border }
        #expect(swatch[8, 8] == Self.border && swatch[28, 28] == lime, "a frame with a dot of the pen's colour")
        let gone = try server.waitForPixels(window: window, timeout: 4) { $0[8, 8] == photo[8, 8] }
        #expect(gone[8, 8] == photo[8, 8] && gone[28, 28] == photo[28, 28], "the swatch goes after about a second")

        try server.drag(window: window, from: (50, 100), through: [(250, 100)])
        try server.drag(window: window, from: (50, 150), through: [(250, 150)])
        _ = try server.waitForPixels(window: window) { $0[150, 150] == lime }
        try server.press("ctrl+z", in: window)
        let undone = try server.waitForPixels(window: window) { $0[150, 150] != lime }
        #expect(undone[150, 150] == photo[150, 150] && undone[150, 100] == lime)
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
        #expect(app.standardOutput == out + "\n")
        let image = try PNGFile.read(path: out)
        #expect(image.size == photo.size)
        // 6 pt at scale 1: radius 3 around row centre 100.5: rows 98...102 full, 97 and 103 half.
        for y in 98...102 { #expect(image[150, y] == lime, "row \(y)") }
        #expect(image[150, 96] == photo[150, 96] && image[150, 104] == photo[150, 104])
        #expect(image[150, 150] == photo[150, 150])
    }

    @Test("a resized window shows the drawing fitted again; strokes drawn at the new size land in place too")
    func resize() throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = Self.gradient(PixelSize(width: 1600, height: 1200))
        let input = folder.appendingPathComponent("big.png").path
        try PNGFile.write(photo, to: input)
        let out = folder.appendingPathComponent("big-out.png").path
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["doodle", input, "--out", out, "--width", "10", "--scale", "1"], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0[320, 240].b == 128 }
        try server.drag(window: window, from: (100, 100), through: [(300, 100)])
        _ = try server.waitForPixels(window: window) { $0[200, 100] == Self.red }
        try server.xdotool("windowsize", "--sync", "\(window)", "320", "240")
        let small = try server.waitForPixels(window: window) { $0.size == PixelSize(width: 320, height: 240) && $0[100, 50] == Self.red }
        #expect(small.size == PixelSize(width: 320, height: 240))
        #expect(small[100, 50] == Self.red && small[100, 60].b == 128, "the red line, at half the size")
        try server.press("5", in: window)
        try server.drag(window: window, from: (50, 200), through: [(250, 200)])
        _ = try server.waitForPixels(window: window) { $0[150, 200] == Self.blue }
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
        let image = try PNGFile.read(path: out)
        #expect(image.size == photo.size)
        #expect(image[501, 251] == Self.red && image[501, 251 + 11] == Self.red && image[501, 251 + 15] == photo[501, 251 + 15])
        // At 320x240 a view pixel is 5 photo pixels: the blue line is 50 photo pixels wide.
        #expect(image[750, 1002] == Self.blue && image[750, 1002 + 20] == Self.blue && image[750, 1002 - 20] == Self.blue)
        #expect(image[750, 1002 + 30] == photo[750, 1002 + 30] && image[750, 1002 - 30] == photo[750, 1002 - 30])
    }
}
