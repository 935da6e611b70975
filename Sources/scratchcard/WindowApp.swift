@preconcurrency import Glibc
import ScratchCore
import ScratchX11

/// The window: one thread, one loop. Wait on the X connection, drain every pending
/// event (a burst of motion becomes strokes into the mask), then composite what changed
/// and put it on screen in one request, never writing into an image the server may
/// still be reading (DESIGN.md, The display loop).
final class WindowApp {
    private let options: WindowOptions
    private let display: X11Display
    private let window: X11Window
    private var surface: WindowSurface
    private var canvas: ScratchCanvas
    private let images: CardImages
    private let brush: Brush
    private var recording: [Trace.Record] = []
    private var stats = Stats()
    /// When the program started setting up (images, display, window), for `first_frame_ms`.
    private let startedMicroseconds = monotonicMicroseconds()

    /// Counters for `--stats`.
    struct Stats {
        var events = 0
        var repaints = 0
        var latency = LatencyHistogram()
        /// Arrival times (µs) of strokes composited but not yet shown, and not yet composited.
        var inFlight: [Int] = []
        var waiting: [Int] = []
        /// From the start of set-up to the first put on screen.
        var firstFrameMicroseconds: Int?
    }

    init(options: WindowOptions) throws(ExitError) {
        self.options = options
        let images: CardImages
        do { images = try CardImages.load(cover: options.cover, prize: options.prize) } catch {
            throw ExitError(code: 2, message: "\(error)")
        }
        do { display = try X11Display(name: options.display) } catch {
            throw ExitError(code: 1, message: "\(error)")
        }
        guard let layout = display.pixelLayout else {
            throw ExitError(code: 1, message: "the display's default visual is not 24- or 32-bit TrueColor")
        }
        let scale = display.scale(option: options.scale)
        do { brush = try Brush(radius: options.brushPoints * scale.factor) } catch {
            throw ExitError(code: 2, message: "--brush: \(error)")
        }
        let size = options.size ?? images.cover.size
        self.images = images
        let card = images.filling(size)
        do { canvas = try ScratchCanvas(cover: card.cover, prize: card.prize, layout: layout, brush: brush) } catch {
            throw ExitError(code: 2, message: "\(error)")
        }
        do {
            window = try X11Window(display: display, size: size, title: options.title)
            surface = try WindowSurface(window: window, size: size, useSharedMemory: options.useSharedMemory)
        } catch { throw ExitError(code: 1, message: "\(error)") }
        if options.verbose {
            log("scale \(scale.factor) from \(scale.source.rawValue); brush \(options.brushPoints) pt = \(brush.radius) px")
            log("window \(size), pixel layout \(layout), drawing with \(surface.usesSharedMemory ? "MIT-SHM" : "XPutImage")")
        }
    }

    /// Runs until the user quits; then writes the recording and the stats.
    func run() throws(ExitError) {
        // The first repaint composites the whole card (it starts out exposed): once.
        window.map()
        var exposed = PixelRect(size: canvas.size)
        var running = true
        while running {
            for event in window.nextEvents(timeout: nil) {
                switch event {
                case .press(let button, let point, _) where button == 1:
                    stroke(canvas.penDown(at: point))
                    recording.append(.down(point))
                case .motion(let point, _) where canvas.isPenDown:
                    stroke(canvas.penMove(to: point))
                    recording.append(.move(point))
                case .release(let button, _, _) where button == 1:
                    if canvas.isPenDown { recording.append(.up) }
                    canvas.penUp()
                case .expose(let rect):
                    exposed.formUnion(rect)
                case .resized(let size) where size != canvas.size:
                    try resize(to: size)
                    exposed = PixelRect(size: size)
                case .key(.q), .key(.escape), .closeRequested:
                    running = false
                case .putCompleted:
                    shown()
                default:
                    break
                }
            }
            if running, surface.canDraw { exposed = repaint(exposed) }
        }
        finish()
    }

    private func stroke(_ dirty: PixelRect) {
        stats.events += 1
        stats.waiting.append(monotonicMicroseconds())
    }

    /// Composites what changed (and what was exposed) and puts it on screen in one put.
    private func repaint(_ exposed: PixelRect) -> PixelRect {
        var area = canvas.compositeChanges(into: surface.framebuffer).rect
        if !exposed.isEmpty {
            canvas.composite(exposed, into: surface.framebuffer)
            area.formUnion(exposed)
        }
        if area.isEmpty {
            stats.waiting.removeAll(keepingCapacity: true)     // strokes that changed nothing
            return .empty
        }
        stats.repaints += 1
        stats.inFlight.append(contentsOf: stats.waiting)
        stats.waiting.removeAll(keepingCapacity: true)
        surface.present(area)
        if !surface.usesSharedMemory {
            display.sync()          // the plain put is done once the server answered
            shown()
        }
        return .empty
    }

    /// The last put is on screen: every stroke it carried has its latency.
    private func shown() {
        let now = monotonicMicroseconds()
        if stats.firstFrameMicroseconds == nil { stats.firstFrameMicroseconds = now - startedMicroseconds }
        for arrival in stats.inFlight { stats.latency.record(microseconds: now - arrival) }
        stats.inFlight.removeAll(keepingCapacity: true)
    }

    /// A new size: images re-laid out to fill it, the scratched state carried over.
    private func resize(to size: PixelSize) throws(ExitError) {
        let card = images.filling(size)
        let layout = canvas.layout
        do {
            let scaledBrush = canvas.brush
            canvas = try ScratchCanvas(cover: card.cover, prize: card.prize, layout: layout, brush: scaledBrush,
                                       keeping: canvas.mask)
            try surface.resize(to: size)
        } catch { throw ExitError(code: 1, message: "\(error)") }
        // The caller marks the whole card exposed: the next repaint composites it.
    }

    private func finish() {
        if let path = options.record {
            let trace = Trace(canvas: canvas.size, records: [.brush(brush.radius)] + recording)
            do { try AtomicFile.write(Array(trace.serialized(comment: "recorded by \(versionText)").utf8), to: path) } catch {
                log("\(error)")
            }
        }
        if options.stats {
            let p50 = stats.latency.percentile(0.5).map { "\($0)" } ?? "-"
            let p99 = stats.latency.percentile(0.99).map { "\($0)" } ?? "-"
            print("events=\(stats.events) repaints=\(stats.repaints) pixels_put=\(surface.pixelsPut)"
                  + " window=\(canvas.size) shm=\(surface.usesSharedMemory)"
                  + " latency_p50_us=\(p50) latency_p99_us=\(p99) revealed=\(String(format4: canvas.revealedFraction))"
                  + " first_frame_ms=\(stats.firstFrameMicroseconds.map { String(format4: Double($0) / 1000) } ?? "-")")
        }
    }
}

func monotonicMicroseconds() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1_000_000 + t.tv_nsec / 1000
}

func log(_ message: String) {
    fputs("scratchcard: \(message)\n", stderr)
}

extension String {
    init(format4 value: Double) {
        let scaled = Int((value * 10_000).rounded())
        let fraction = String(scaled % 10_000)
        self = "\(scaled / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
    }
}
