import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import XvfbSupport

/// The program as a user meets it: a real window on a private Xvfb, real input through
/// XTest (xdotool), real pixels read back from the server (xwd).
@Suite(.serialized) struct WindowTests {
    static let coverColour = RGBA(r: 200, g: 200, b: 200)
    static let prizeColour = RGBA(r: 20, g: 60, b: 220)
    static let cardSize = PixelSize(width: 300, height: 200)

    /// The colour a mask value shows, by docs/ARCHITECTURE.md's formula.
    static func blended(_ m: Int) -> RGBA {
        func mix(_ c: UInt8, _ p: UInt8) -> UInt8 { UInt8(((Double(c) * Double(255 - m) + Double(p) * Double(m)) / 255).rounded()) }
        return RGBA(r: mix(coverColour.r, prizeColour.r), g: mix(coverColour.g, prizeColour.g), b: mix(coverColour.b, prizeColour.b))
    }

    /// A solid cover over a solid prize, in a fresh folder.
    static func card() throws -> SolidCard { try SolidCard(cover: coverColour, prize: prizeColour, size: cardSize) }

    /// Drags along row 100 from x = 50 to x = 250 and returns the window's pixels once
    /// the stroke is on screen.
    func dragAcross(_ server: Xvfb, window: UInt) throws -> RGBAImage {
        try server.drag(window: window, from: (50, 100), through: [(250, 100)])
        return try server.waitForPixels(window: window) { $0[150, 100] == Self.prizeColour && $0[245, 100] == Self.prizeColour }
    }

    /// Half the width of the revealed band at x = 150: the rows above and below the path
    /// that show the whole prize.
    func bandHalfWidth(_ image: RGBAImage) -> Int {
        var d = 0
        while 100 + d + 1 < image.height && image[150, 100 + d + 1] == Self.prizeColour { d += 1 }
        return d
    }

    /// The band a drag with a radius-10 brush along row 100 from x = 50 leaves: at x = 150
    /// rows 91...109 lie within 9.5 of the row centre y = 100.5 (coverage 1), rows 90 and
    /// 110 at 10 (coverage 0.5), 89 and 111 outside; the round cap ends 10 px before x = 50.
    func expectBand(_ image: RGBAImage, sourceLocation: SourceLocation = #_sourceLocation) {
        for y in 91...109 { #expect(image[150, y] == Self.prizeColour, "row \(y)", sourceLocation: sourceLocation) }
        #expect(image[150, 110] == Self.blended(128) && image[150, 90] == Self.blended(128), sourceLocation: sourceLocation)
        #expect(image[150, 111] == Self.coverColour && image[150, 89] == Self.coverColour, sourceLocation: sourceLocation)
        #expect(image[38, 100] == Self.coverColour && image[41, 100] == Self.prizeColour, sourceLocation: sourceLocation)
    }

    @Test("dragging reveals the prize along the path, with a smooth edge, and nothing far away")
    func dragReveals() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10"], environment: server.environment)
        let window = try server.scratchcardWindow()
        let before = try server.waitForPixels(window: window) { $0[150, 100] == Self.coverColour }
        #expect(before.size == Self.cardSize)
        #expect(before[150, 100] == Self.coverColour)

        let image = try dragAcross(server, window: window)
        expectBand(image)
        #expect(image[262, 100] == Self.coverColour && image[259, 100] == Self.prizeColour)
        // Far away, untouched.
        for (x, y) in [(0, 0), (299, 199), (150, 20), (150, 180), (10, 100)] {
            #expect(image[x, y] == Self.coverColour, "(\(x), \(y))")
        }
        try server.press("q", in: window)
        #expect(app.wait() == 0)
    }

    @Test("a card over 4 million pixels paints as it strokes: the same band and edge, put in small pieces")
    func largeCardPaintsAsItStrokes() throws {
        // 2100 x 2000 = 4.2 million pixels: past the canvas size where strokes paint
        // straight into the shared image instead of leaving damage for the repaint.
        let size = PixelSize(width: 2100, height: 2000)
        let card = try SolidCard(cover: Self.coverColour, prize: Self.prizeColour, size: size); defer { card.remove() }
        let server = try Xvfb(width: size.width, height: size.height); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--stats"], environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        let before = try server.waitForPixels(window: window, timeout: 30) { $0[150, 100] == Self.coverColour }
        #expect(before.size == size)
        try server.drag(window: window, from: (50, 100), through: [(150, 100), (250, 100), (400, 250)])
        let image = try server.waitForPixels(window: window, timeout: 30) {
            $0[150, 100] == Self.prizeColour && $0[400, 250] == Self.prizeColour
        }
        expectBand(image)
        // The diagonal to (400, 250): its middle revealed, 21 px beside it untouched.
        #expect(image[325, 175] == Self.prizeColour && image[325, 145] == Self.coverColour)
        for (x, y) in [(0, 0), (2099, 1999), (2099, 0), (0, 1999), (1000, 200)] {
            #expect(image[x, y] == Self.coverColour, "(\(x), \(y))")
        }
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        // The first put is the whole window; the strokes after it put only what they
        // changed (all of it lies within 380 x 180 pixels).
        let pixelsPut = Int(app.stats["pixels_put"] ?? "") ?? -1
        #expect(pixelsPut > size.pixelCount && pixelsPut - size.pixelCount < 380 * 180, "\(app.standardOutput)")
    }

    @Test("a 192 dpi screen doubles the band; Xft.dpi wins over the screen; --scale wins over both")
    func dpiScalesTheBrush() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480, dpi: 192); defer { server.stop() }

        func bandWith(_ extra: [String]) throws -> (Int, String) {
            let app = try RunningApp(card.arguments + ["--brush", "10", "--verbose"] + extra, environment: server.environment)
            let window = try server.scratchcardWindow()
            _ = try server.waitForPixels(window: window) { $0[150, 100] == Self.coverColour }
            let image = try dragAcross(server, window: window)
            try server.press("Escape", in: window)
            #expect(app.wait() == 0)
            return (bandHalfWidth(image), app.standardError)
        }

        let (physical, physicalLog) = try bandWith([])
        #expect(physical == 19, "10 pt at 192 dpi is 20 px: rows within 19.5 show the prize")
        #expect(physicalLog.contains("screen dpi"), "\(physicalLog)")

        try server.xrdb(merge: "Xft.dpi: 144\n")
        let (xft, xftLog) = try bandWith([])
        #expect(xft == 14, "Xft.dpi 144 makes 10 pt 15 px")
        #expect(xftLog.contains("Xft.dpi"), "\(xftLog)")

        let (option, optionLog) = try bandWith(["--scale", "1"])
        #expect(option == 9)
        #expect(optionLog.contains("option"), "\(optionLog)")
    }

    @Test("without MIT-SHM the window still draws, through XPutImage")
    func withoutSharedMemory() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480, extraArguments: ["-extension", "MIT-SHM"]); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--verbose"], environment: server.environment)
        let window = try server.scratchcardWindow()
        let image = try dragAcross(server, window: window)
        #expect(image[150, 100] == Self.prizeColour)
        #expect(bandHalfWidth(image) == 9)
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        #expect(app.standardError.contains("XPutImage"), "\(app.standardError)")
    }

    @Test("--no-shm draws the same pixels as shared memory")
    func noShmOption() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        var images: [RGBAImage] = []
        for extra in [[], ["--no-shm"]] {
            let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10"] + extra, environment: server.environment)
            let window = try server.scratchcardWindow()
            _ = try server.waitForPixels(window: window) { $0[150, 100] == Self.coverColour }
            images.append(try dragAcross(server, window: window))
            try server.press("q", in: window)
            #expect(app.wait() == 0)
        }
        #expect(images[0] == images[1])
    }

    /// This machine's System V segments created by `pid`: (mode, marked for removal).
    func segments(of pid: Int32) throws -> [(mode: Int, key: Int)] {
        let text = try String(contentsOfFile: "/proc/sysvipc/shm", encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count > 6, Int32(f[4]) == pid, let key = Int(f[0]), let mode = Int(f[2], radix: 8) else { return nil }
            return (mode, key)
        }
    }

    @Test("shared memory is private (0600), already marked for removal, and gone after kill -9")
    func sharedMemoryLifetime() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--verbose"], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try dragAcross(server, window: window)
        let mine = try segments(of: app.pid)
        #expect(mine.count >= 1, "the window draws through MIT-SHM: \(app.standardError)")
        for segment in mine {
            #expect(segment.mode & 0o777 == 0o600)
            #expect(segment.key == 0, "IPC_RMID marks a segment's key private at once")
        }
        kill(app.pid, SIGKILL)
        app.wait()
        // The server detaches when it notices the client is gone.
        let deadline = Date().addingTimeInterval(5)
        while try !segments(of: app.pid).isEmpty && Date() < deadline { usleep(20_000) }
        #expect(try segments(of: app.pid).isEmpty)
    }

    @Test("when the X server dies the program ends with exit 1 and a message")
    func serverDies() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480)
        let app = try RunningApp(card.arguments, environment: server.environment)
        let window = try server.scratchcardWindow()
        try server.xdotool("mousemove", "--window", "\(window)", "20", "20")
        try server.xdotool("mousedown", "1")
        server.stop()
        #expect(app.wait() == 1)
        #expect(app.standardError.contains("lost the connection to the X server"), "\(app.standardError)")
    }

    @Test("after the window was unmapped and mapped again, Expose repaints the scratched state")
    func exposeRepaints() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10"], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0[150, 100] == Self.coverColour }
        let scratched = try dragAcross(server, window: window)
        try server.xdotool("windowunmap", "--sync", "\(window)")
        try server.xdotool("windowmap", "--sync", "\(window)")
        let again = try server.waitForPixels(window: window) { $0 == scratched }
        #expect(again == scratched)
        try server.press("q", in: window)
        #expect(app.wait() == 0)
    }

    @Test("a resized window keeps what was scratched, re-laid out to the new size")
    func resizeKeepsScratches() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10"], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0[150, 100] == Self.coverColour }
        _ = try dragAcross(server, window: window)
        try server.xdotool("windowsize", "--sync", "\(window)", "600", "400")
        // Twice the size: the band now runs along row 200, from about x = 100 to 500.
        let image = try server.waitForPixels(window: window) { $0.size == PixelSize(width: 600, height: 400) && $0[300, 200] == Self.prizeColour }
        #expect(image.size == PixelSize(width: 600, height: 400))
        #expect(image[300, 201] == Self.prizeColour && image[120, 201] == Self.prizeColour && image[480, 201] == Self.prizeColour)
        #expect(image[300, 100] == Self.coverColour && image[300, 300] == Self.coverColour && image[20, 20] == Self.coverColour)
        try server.press("q", in: window)
        #expect(app.wait() == 0)
    }

    @Test("SIGTERM, SIGINT and SIGHUP end the window cleanly: exit 0, a message, the recording written",
          arguments: [SIGTERM, SIGINT, SIGHUP])
    func signalsEndCleanly(signal: Int32) throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let tracePath = card.folder.appendingPathComponent("g.trace").path
        let app = try RunningApp(card.arguments + ["--events", "--record", tracePath], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try dragAcross(server, window: window)
        kill(app.pid, signal)
        #expect(app.wait() == 0, "\(app.standardError)")
        #expect(app.standardError.contains("ending on SIG"), "\(app.standardError)")
        #expect(app.standardOutput.hasSuffix("{\"event\":\"quit\"}\n"), "\(app.standardOutput)")
        #expect(try Trace.load(path: tracePath).eventCount == 2)
        #expect(Faults.noSegmentsRemain(createdBy: app.pid))
    }

    @Test("idle means no CPU: the loop blocks in poll() while nobody touches the card")
    func idleUsesNoCPU() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments, environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try dragAcross(server, window: window)
        usleep(300_000)
        let before = try cpuTicks(app.pid)
        usleep(2_000_000)
        let after = try cpuTicks(app.pid)
        #expect(after - before == 0, "\(after - before) ticks in 2 idle seconds")
        try server.press("q", in: window)
        #expect(app.wait() == 0)
    }

    @Test("--stats after a drag: puts far smaller than the window, and latency percentiles")
    func stats() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--stats"], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0[150, 100] == Self.coverColour }
        try server.drag(window: window, from: (50, 100), through: (0..<20).map { (60 + $0 * 10, 100 + ($0 % 2) * 4) })
        _ = try server.waitForPixels(window: window) { $0[245, 100] == Self.prizeColour }
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        let fields = app.stats
        let events = Int(fields["events"] ?? "") ?? 0
        let repaints = Int(fields["repaints"] ?? "") ?? 0
        let pixelsPut = Int(fields["pixels_put"] ?? "") ?? -1
        #expect(events == 21, "\(app.standardOutput)")
        #expect(repaints >= 2)
        let windowArea = Self.cardSize.pixelCount
        // The first put is the whole window; the strokes after it put only their bands.
        #expect(pixelsPut > 0 && pixelsPut - windowArea < windowArea / 2, "\(app.standardOutput)")
        #expect(Int(fields["latency_p50_us"] ?? "") != nil && Int(fields["latency_p99_us"] ?? "") != nil, "\(app.standardOutput)")
    }

    @Test("a burst of resizes is laid out once or twice, not once a size, and ends at the last size")
    func resizeBurst() throws {
        // 4K images make each layout slow (~90 ms in a release build), so the burst's
        // later sizes arrive while the loop is busy and are read together.
        let card = try SolidCard(cover: Self.coverColour, prize: Self.prizeColour, size: PixelSize(width: 3840, height: 2160))
        defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--size", "320x240", "--scale", "1", "--stats"], environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 60)
        _ = try server.waitForPixels(window: window, timeout: 60) { $0.size.width == 320 && $0[100, 100] == Self.coverColour }
        let sizes = (1...12).map { (320 + 20 * $0, 240 + 10 * $0) }
        _ = try server.run("xdotool", sizes.flatMap { ["windowsize", "\(window)", "\($0.0)", "\($0.1)"] })
        let last = PixelSize(width: sizes.last!.0, height: sizes.last!.1)
        let shown = try server.waitForPixels(window: window, timeout: 60) { $0.size == last && $0[last.width - 5, last.height - 5] == Self.coverColour }
        #expect(shown.size == last)
        try server.press("q", in: window)
        #expect(app.wait(timeout: 60) == 0)
        let relayouts = Int(app.stats["relayouts"] ?? "") ?? -1
        #expect((1...4).contains(relayouts), "12 sizes, \(relayouts) layouts: \(app.standardOutput)")
        #expect(app.stats["window"] == "\(last)", "\(app.standardOutput)")
    }

    @Test("--record writes the gesture as a trace that render replays to the same card")
    func recordAndRender() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let tracePath = card.folder.appendingPathComponent("gesture.trace").path
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--record", tracePath],
                                 environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0[150, 100] == Self.coverColour }
        let shown = try dragAcross(server, window: window)
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        let trace = try Trace.load(path: tracePath)
        #expect(trace.canvas == Self.cardSize)
        #expect(trace.records.first == .brush(10))
        #expect(trace.eventCount == 2)

        let out = card.folder.appendingPathComponent("render.png").path
        let result = try runToExit(["render", "--trace", tracePath, "--out", out] + card.arguments)
        #expect(result.status == 0, "\(result.err)")
        let rendered = try ScratchImageReader.read(out)
        #expect(rendered == shown)
    }
}
