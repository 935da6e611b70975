import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import ScratchCore
import ScratchImage
import XvfbSupport

/// Frame pacing as the user meets it: real input (xdotool) into the window on a private
/// Xvfb, counted by --stats and read back as real pixels. Correctness, not timing: the
/// pace is set slow (`--max-fps 1`) so that a burst falls inside one interval whatever
/// the machine's load, and pauses are long against the default 60 Hz.
@Suite(.serialized) struct PacingTests {
    static let coverColour = RGBA(r: 200, g: 200, b: 200)
    static let prizeColour = RGBA(r: 20, g: 60, b: 220)

    /// How many pixels two images of one size differ in (all of them when the sizes
    /// differ): a count for the message, not two images of megabytes.
    static func differingPixels(_ a: RGBAImage, _ b: RGBAImage) -> Int {
        guard a.size == b.size else { return a.size.pixelCount }
        var count = 0
        for y in 0..<a.height { for x in 0..<a.width where a[x, y] != b[x, y] { count += 1 } }
        return count
    }

    /// xdotool commands for `count` motions from (x0, y) one pixel apart along x, with
    /// `pause` seconds between them: one xdotool process, so the motions follow closely.
    static func motions(window: UInt, from x0: Int, y: Int, count: Int, pause: String) -> [String] {
        (1...count).flatMap { i -> [String] in
            ["mousemove", "--window", "\(window)", "\(x0 + i)", "\(y + (i % 3))", "sleep", pause]
        }
    }

    /// A press, then 100 motions about a millisecond apart, all within one interval
    /// (`--max-fps 1`): the press is put at once, the 100 motions wait and go in one put,
    /// and that put carries all of them: the window then shows exactly what replaying the
    /// recorded gesture gives. On the 4K-sized card (over 4 million pixels) the strokes
    /// paint straight into the shared image while they wait, and the put must still
    /// cover every one of them.
    @Test("a burst of 100 motions within one interval becomes one put that carries all of them",
          arguments: [PixelSize(width: 300, height: 200), PixelSize(width: 2100, height: 2000)])
    func burstBecomesOnePut(size: PixelSize) throws {
        let card = try SolidCard(cover: Self.coverColour, prize: Self.prizeColour, size: size); defer { card.remove() }
        let server = try Xvfb(width: size.width, height: size.height); defer { server.stop() }
        let tracePath = card.folder.appendingPathComponent("burst.trace").path
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--stats", "--max-fps", "1",
                                                   "--record", tracePath], environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        _ = try server.waitForPixels(window: window, timeout: 30) { $0[150, 100] == Self.coverColour }
        usleep(1_200_000)       // a whole interval since the first frame: the press is not held
        // 200 ms after the press (put at once, alone), the motions: all within its interval.
        try server.run("xdotool", ["mousemove", "--window", "\(window)", "50", "100", "mousedown", "1", "sleep", "0.2"]
                       + Self.motions(window: window, from: 50, y: 100, count: 100, pause: "0.001") + ["mouseup", "1"])
        // The burst's put comes about a second after the press's.
        let shown = try server.waitForPixels(window: window, timeout: 30) { $0[150, 101] == Self.prizeColour }
        usleep(1_200_000)       // had anything been left behind, a later put would come by now
        let settled = try server.capture(window: window)
        #expect(Self.differingPixels(settled, shown) == 0, "nothing came after the burst's put")
        try server.press("q", in: window)
        #expect(app.wait(timeout: 30) == 0)

        let stats = app.stats
        #expect(stats["events"] == "101", "\(app.standardOutput)")
        #expect(stats["max_fps"] == "1.0000", "\(app.standardOutput)")
        #expect(stats["most_strokes_in_a_put"] == "100", "the 100 motions in one put: \(app.standardOutput)")
        #expect(stats["held_puts"] == "1", "\(app.standardOutput)")

        let trace = try Trace.load(path: tracePath)
        #expect(trace.eventCount == 101)
        let out = card.folder.appendingPathComponent("replay.png").path
        let result = try runToExit(["render", "--trace", tracePath, "--out", out] + card.arguments, timeout: 60)
        #expect(result.status == 0, "\(result.err)")
        let replayed = try ScratchImageReader.read(out)
        #expect(replayed.size == shown.size)
        #expect(Self.differingPixels(replayed, shown) == 0, "the one put showed every stroke of the burst")
    }

    /// On a server whose mode has timings (Xorg's dummy driver at 75 Hz), the pace is the
    /// monitor's; `--max-fps` wins over it.
    @Test("the pace is the refresh rate of the monitor under the window, from RandR; --max-fps wins",
          .requires(DummyXorg.unavailable))
    func paceFollowsTheMonitor() throws {
        let server = try DummyXorg(modeline: "800x600_75 49.00 800 840 920 1040 600 603 607 628 -hsync +vsync")
        defer { server.stop() }
        func pace(_ extra: [String]) throws -> (String?, String) {
            let app = try RunningApp(["--stats", "--verbose", "--size", "200x100"] + extra, environment: server.environment)
            #expect(waitUntil(timeout: 20) { app.standardError.contains("puts a second") }, "\(app.standardError)")
            kill(app.pid, SIGTERM)
            #expect(app.wait() == 0)
            return (app.stats["max_fps"], app.standardError)
        }
        let (rate, log) = try pace([])
        #expect(rate == "75.0245", "49 MHz / (1040 x 628): \(log)")
        #expect(log.contains("refresh rate from RandR CRTC"), "\(log)")
        let (chosen, chosenLog) = try pace(["--max-fps", "30"])
        #expect(chosen == "30.0000")
        #expect(chosenLog.contains("--max-fps"), "\(chosenLog)")
    }

    /// Motions 300 ms apart at the default pace (Xvfb's RandR gives no rate: 60 Hz):
    /// each is the first after a pause, and none is held back.
    @Test("the first put after a pause is not held: motions 300 ms apart are each put at once")
    func firstPutAfterPauseIsNotHeld() throws {
        let size = PixelSize(width: 300, height: 200)
        let card = try SolidCard(cover: Self.coverColour, prize: Self.prizeColour, size: size); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--stats", "--verbose"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0[150, 100] == Self.coverColour }
        usleep(300_000)
        try server.run("xdotool", ["mousemove", "--window", "\(window)", "50", "100", "mousedown", "1", "sleep", "0.3"]
                       + Self.motions(window: window, from: 50, y: 100, count: 5, pause: "0.3") + ["mouseup", "1"])
        _ = try server.waitForPixels(window: window) { $0[55, 100] == Self.prizeColour }
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        let stats = app.stats
        #expect(stats["events"] == "6", "\(app.standardOutput)")
        #expect(stats["max_fps"] == "60.0000", "\(app.standardOutput)")
        #expect(stats["held_puts"] == "0", "\(app.standardOutput)")
        #expect(stats["most_strokes_in_a_put"] == "1", "\(app.standardOutput)")
        #expect(app.standardError.contains("60 Hz: RandR gives no refresh rate"), "\(app.standardError)")
    }

    /// Doodle mode takes the same pacer: a press, shown (its dot), then 100 motions about
    /// a millisecond apart within one interval (`--max-fps 1`): the 100 go in one put,
    /// and what the window shows after it is the whole drawing, equal to the export at
    /// quitting (the picture at scale 1 is shown at its own size, so the view and the
    /// document agree pixel for pixel). The motions start once the press's dot is on
    /// screen, so none can share its put whatever the machine's load.
    @Test("doodle: a burst of 100 motions within one interval becomes one put that carries all of them")
    func doodleBurstBecomesOnePut() throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try App.solidPNG(Self.coverColour, size: PixelSize(width: 300, height: 200), in: folder, name: "in.png")
        let out = folder.appendingPathComponent("out.png").path
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["doodle", input, "--out", out, "--scale", "1", "--width", "10", "--max-fps", "1", "--stats"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        _ = try server.waitForPixels(window: window, timeout: 30) { $0[150, 100] == Self.coverColour }
        let red = RGBA(r: 0xE5, g: 0x39, b: 0x35)
        try server.run("xdotool", ["mousemove", "--window", "\(window)", "50", "100", "mousedown", "1"])
        _ = try server.waitForPixels(window: window, timeout: 30) { $0[50, 100] == red }
        try server.run("xdotool", Self.motions(window: window, from: 50, y: 100, count: 100, pause: "0.001") + ["mouseup", "1"])
        let shown = try server.waitForPixels(window: window, timeout: 30) { $0[150, 101] == red }
        usleep(1_200_000)       // had anything been left behind, a later put would come by now
        let settled = try server.capture(window: window)
        #expect(Self.differingPixels(settled, shown) == 0, "nothing came after the burst's put")
        try server.press("q", in: window)
        #expect(app.wait(timeout: 30) == 0, "\(app.standardError)")
        let stats = app.stats
        #expect(stats["events"] == "101", "\(app.standardError)")
        #expect(stats["max_fps"] == "1.0000", "\(app.standardError)")
        #expect(stats["most_strokes_in_a_put"] == "100", "the 100 motions in one put: \(app.standardError)")
        // The motions' put waited for its slot (the press's may have too, after the first frame's).
        #expect(Int(stats["held_puts"] ?? "") ?? 0 >= 1, "\(app.standardError)")
        let exported = try PNGFile.read(path: out)
        #expect(exported.size == shown.size)
        #expect(Self.differingPixels(exported, shown) == 0, "the one put showed every stroke of the burst")
    }

    /// On Xorg's dummy driver at 75 Hz, the monitor's mode is changed to 49.99 Hz while
    /// the card is up (xrandr, as a user would): the program reads the rate again and
    /// paces at the new interval from then on.
    @Test("the pace follows the monitor: a mode changed with xrandr while running sets the new interval",
          .requires(DummyXorg.unavailable))
    func paceFollowsAModeChange() throws {
        let server = try DummyXorg(modeline: "800x600_75 49.00 800 840 920 1040 600 603 607 628 -hsync +vsync")
        defer { server.stop() }
        let app = try RunningApp(["--stats", "--verbose", "--size", "200x100"], environment: server.environment)
        #expect(waitUntil(timeout: 20) { app.standardError.contains("puts a second (") }, "\(app.standardError)")
        #expect(app.standardError.contains("at most 75.0245 puts a second (refresh rate from RandR CRTC"), "\(app.standardError)")
        try server.switchMode(to: "pace50 30.00 800 840 920 1040 600 603 607 577")
        #expect(waitUntil(timeout: 20) { app.standardError.contains("puts a second now") }, "\(app.standardError)")
        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0)
        #expect(app.standardError.contains("at most 49.9933 puts a second now (refresh rate from RandR CRTC"), "\(app.standardError)")
        #expect(app.stats["max_fps"] == "49.9933", "30 MHz / (1040 x 577): \(app.standardOutput)")
        #expect(app.stats["rate_changes"] == "1", "\(app.standardOutput)")
    }
}
