import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import XvfbSupport

/// The burst on a reveal, as the screen shows it: flakes over the card while it lasts,
/// the plain prize after, nothing with `--celebrate off`.
@Suite(.serialized) struct CelebrationTests {
    static let prize = RGBA(r: 20, g: 60, b: 220)

    /// Whether `celebration_frames` is a burst's: 1.5 s of frames at most 30 a second, so
    /// never more than its 45 slots (50 with slack), and an animation, not a still or two
    /// (5 or more). How many slots get a frame is the CPU's to say, not the program's: a
    /// debug build beside two busy loops drew 14 and 18 (FramePacerTests hold the pace).
    static func isBurst(frames: Int) -> Bool { (5...50).contains(frames) }

    func reveal(_ extra: [String]) throws -> (during: RGBAImage, after: RGBAImage, stats: [String: String]) {
        let card = try SolidCard(cover: RGBA(r: 200, g: 200, b: 200), prize: Self.prize, size: PixelSize(width: 400, height: 300))
        defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        var environment = server.environment
        environment["PULSE_SERVER"] = "unix:/nonexistent"         // silent: this is about pixels
        let app = try RunningApp(card.arguments + ["--scale", "1", "--events", "--stats"] + extra, environment: environment, stampOutput: true)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0[200, 150] == RGBA(r: 200, g: 200, b: 200) }
        try server.press("space", in: window)
        #expect(waitUntil { app.eventNames.contains("revealed") })
        let revealed = try #require(app.arrival(ofLineContaining: "\"event\":\"revealed\""))
        while monotonicNow() < revealed + 0.6 { usleep(10_000) }
        let during = try server.capture(window: window)
        while monotonicNow() < revealed + 2 { usleep(10_000) }
        let after = try server.capture(window: window)
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        return (during, after, app.stats)
    }

    @Test("on a reveal flakes burst over the card, and 2 s later the prize is whole again, every pixel")
    func burst() throws {
        let (during, after, stats) = try reveal([])
        let flakes = during.pixels(where: Celebration.isFlakeColour)
        #expect(flakes > 300, "\(flakes) flake pixels 0.6 s after the reveal")
        #expect(after.pixels(where: { $0 != Self.prize }) == 0, "the burst left \(after.pixels(where: { $0 != Self.prize })) pixels behind")
        let frames = Int(stats["celebration_frames"] ?? "") ?? 0
        print("celebration figures: \(frames) frames, \(stats["celebration_us_per_frame"] ?? "?") µs and \(stats["celebration_pixels_per_frame"] ?? "?") pixels a frame")
        #expect(Self.isBurst(frames: frames), "\(frames) frames in 1.5 s at 30 a second")
        #expect((Int(stats["celebration_pixels_per_frame"] ?? "") ?? .max) < 400 * 300 / 4, "a frame writes the flakes, not the card")
    }

    @Test("--celebrate off: the prize fades in and nothing flies")
    func off() throws {
        let (during, after, stats) = try reveal(["--celebrate", "off"])
        #expect(during.pixels(where: { $0 != Self.prize }) == 0)
        #expect(after.pixels(where: { $0 != Self.prize }) == 0)
        #expect(stats["celebration_frames"] == nil)
    }
}
