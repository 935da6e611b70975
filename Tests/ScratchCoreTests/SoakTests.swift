import EngineTestSupport
import Foundation
@preconcurrency import Glibc
import ScratchCore
import Testing

/// Strokes through the engine by the hundred thousand, watching resident memory: a
/// leak of even a few bytes per stroke shows as megabytes. The count adapts: 50,000 in
/// the normal (debug) suite, 1,000,000 from `scripts/soak.sh` (release), through
/// `SCRATCHCARD_SOAK_STROKES`.
@Suite("Soak")
struct SoakTests {
    static var strokes: Int {
        ProcessInfo.processInfo.environment["SCRATCHCARD_SOAK_STROKES"].flatMap { Int($0) } ?? (underSanitizer ? 10_000 : 50_000)
    }

    /// Under ASan or TSan resident memory says nothing about leaks (ASan keeps freed
    /// memory in quarantine, 256 MB by default): the strokes still run, LeakSanitizer
    /// judges the leaks, and the RSS bound is not checked.
    static let underSanitizer = dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil

    /// VmRSS from /proc/self/status, in bytes.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else { return 0 }
        return kb * 1024
    }

    /// Run in a child process of its own (an exit test), so that the other tests,
    /// running in parallel in this process, do not move its resident memory.
    @Test("strokes on a 1920x1080 canvas (random walk, composited each, a new card every 5,000): RSS grows < 2 MB after warm-up")
    func engineSoak() async throws {
        let result = try await #require(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let (line, ok) = try SoakTests.run()
            FileHandle.standardOutput.write(Data((line + "\n").utf8))    // unbuffered: exit() flushes nothing
            exit(ok ? 0 : 1)
        }
        print(String(decoding: result.standardOutputContent, as: UTF8.self), terminator: "")
    }

    /// The soak itself: its figures, and whether resident memory stayed within 2 MB.
    static func run() throws -> (line: String, ok: Bool) {
        let total = Self.strokes
        let size = PixelSize(width: 1920, height: 1080)
        var cover = RGBAImage(size: size, filledWith: RGBA(r: 190, g: 190, b: 200))
        for x in stride(from: 0, to: 1920, by: 7) { cover[x, 500] = RGBA(r: 0, g: 0, b: 0, a: 0) }   // some alpha
        let prize = RGBAImage(size: size, filledWith: RGBA(r: 20, g: 60, b: 220))
        let canvas = try ScratchCanvas(cover: cover, prize: prize, layout: .bgrx, brush: Brush(radius: 24))
        let framebuffer = Framebuffer(size: size, layout: .bgrx)
        canvas.composite(PixelRect(size: size), into: framebuffer)

        var rng = SplitMix(seed: 0x50A4_0001)
        var x = 960.0, y = 540.0
        var composited = 0
        // Warm-up: several new cards, so that the allocator has settled (glibc raises its
        // mmap threshold after the first 2 MB mask is freed, and keeps one more mask's
        // worth in its heap from then on: a step of 2 MB, once, not a leak).
        let warmUp = max(total / 10, 20_000)
        var baseline = 0
        var samples: [Int] = []
        let sampleEvery = max(10_000, total / 20)
        let clock = ContinuousClock()
        let started = clock.now
        for i in 0..<(total + warmUp) {
            if i == warmUp { baseline = Self.residentBytes() }
            if i % sampleEvery == 0 { samples.append(Self.residentBytes() / 1024) }
            if i % 5_000 == 0 { canvas.reset() }           // a new card: a fresh mask
            // A pointer's random walk: steps of up to 12 px, bouncing off the edges.
            x = min(max(x + rng.unit() * 24 - 12, -30), 1950)
            y = min(max(y + rng.unit() * 24 - 12, -30), 1110)
            if i % 250 == 0 {
                canvas.penUp()
                canvas.penDown(at: Point(x: x, y: y))
            } else {
                canvas.penMove(to: Point(x: x, y: y))
            }
            composited += canvas.compositeChanges(into: framebuffer).pixels
        }
        let elapsed = clock.now - started
        let growth = Self.residentBytes() - baseline
        let line = "soak: strokes=\(total) warmup=\(warmUp) rss_baseline_kb=\(baseline / 1024) rss_growth_kb=\(growth / 1024) "
            + "composited_mpix=\(composited / 1_000_000) elapsed=\(elapsed) revealed=\(canvas.revealedFraction) "
            + "sanitizer=\(underSanitizer) rss_kb_every_\(sampleEvery)=\(samples)"
        // Under a sanitizer the bound means nothing (see underSanitizer).
        return (line, composited > 0 && (underSanitizer || growth < 2 << 20))
    }
}

