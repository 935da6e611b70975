@preconcurrency import Glibc
import Foundation
import ScratchCore
import ScratchImage
import ScratchX11

/// The window: one thread, one loop. Wait on the X connection (or until the next
/// animation frame), drain every pending event (a burst of motion becomes strokes into
/// the mask), then composite what changed and put it on screen in one request, never
/// writing into an image the server may still be reading (DESIGN.md, The display loop).
final class WindowApp {
    private let options: WindowOptions
    private let display: X11Display
    private let window: X11Window
    private var surface: WindowSurface
    private let dealer: Dealer
    private let scale: DisplayScale
    private let brush: Brush

    /// The card on show: as dealt, the engine, its state machine, when it appeared.
    private var card: DealtCard
    private var canvas: ScratchCanvas
    private var session: CardSession
    private var shownAtWallClock = Date().timeIntervalSince1970
    private let outcomeLog: OutcomeLog?

    private var recording: [Trace.Record] = []
    private var stats = Stats()
    private var running = true
    /// Exposed or re-laid-out area still to composite in full.
    private var exposed = PixelRect.empty

    /// Counters for `--stats`.
    struct Stats {
        var events = 0
        var repaints = 0
        var latency = LatencyHistogram()
        /// Arrival times (µs) of strokes on their way to the screen: composited and put
        /// (in flight), or not yet composited (waiting).
        var inFlight: [Int] = []
        var waiting: [Int] = []
    }

    init(options: WindowOptions) throws(ExitError) {
        self.options = options
        do { dealer = try Dealer(options: options) } catch { throw ExitError(code: 2, message: "\(error)") }
        do { card = try dealer.deal() } catch { throw ExitError(code: 2, message: "\(error)") }
        do { outcomeLog = try options.log.map { path throws(OutcomeLogError) in try OutcomeLog(path: path) } } catch {
            throw ExitError(code: 2, message: "\(error)")
        }

        do { display = try X11Display(name: options.display) } catch { throw ExitError(code: 1, message: "\(error)") }
        guard let layout = display.pixelLayout else {
            throw ExitError(code: 1, message: "the display's default visual is not 24- or 32-bit TrueColor")
        }
        scale = display.scale(option: options.scale)
        do { brush = try Brush(radius: options.brushPoints * scale.factor) } catch {
            throw ExitError(code: 2, message: "--brush: \(error)")
        }
        let size = options.size ?? card.images.cover.size
        let filled = card.images.filling(size)
        do { canvas = try ScratchCanvas(cover: filled.cover, prize: filled.prize, layout: layout, brush: brush) } catch {
            throw ExitError(code: 2, message: "\(error)")
        }
        session = CardSession(cardID: card.id, revealAt: options.revealAtPercent / 100, now: monotonicSeconds())
        do {
            window = try X11Window(display: display, size: size, title: options.title)
            surface = try WindowSurface(window: window, size: size, useSharedMemory: options.useSharedMemory)
        } catch { throw ExitError(code: 1, message: "\(error)") }
        if options.verbose {
            log("scale \(scale.factor) from \(scale.source.rawValue); brush \(options.brushPoints) pt = \(brush.radius) px")
            log("window \(size), pixel layout \(layout), drawing with \(surface.usesSharedMemory ? "MIT-SHM" : "XPutImage")"
                + (surface.fallbackReason.map { " (\($0))" } ?? ""))
            if let config = options.config { log("options from \(config)") }
        }
    }

    /// Runs until the user quits; then writes the recording and the stats.
    func run() throws(ExitError) {
        canvas.composite(PixelRect(size: canvas.size), into: surface.framebuffer)
        window.map()
        exposed = PixelRect(size: canvas.size)
        emit([.ready(cardID: session.cardID, width: canvas.size.width, height: canvas.size.height, scale: scale.factor)])
        let signals = TerminationSignals.install()
        while running {
            // Block until something happens; while the card fades, wake for each frame.
            let events = window.nextEvents(timeout: session.isAnimating ? 1.0 / 60 : nil, alsoWaitingOn: signals)
            for event in events { try handle(event) }
            if let signal = TerminationSignals.take() {
                log("ending on \(TerminationSignals.name(signal))")
                running = false
            }
            if running, surface.canDraw { repaint() }
        }
        logOutcome(quitting: true)
        emit([.quit])
        finish()
    }

    private func handle(_ event: WindowEvent) throws(ExitError) {
        switch event {
        case .press(let button, let point, _) where button == 1:
            guard session.acceptsScratches else { return }
            emit(session.pressed())
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
            try relayout(to: size)
        case .key(.space, _), .key(.enter, _):
            canvas.penUp()
            emit(session.revealRequested(fraction: canvas.revealedFraction, now: monotonicSeconds()))
        case .key(.r, _):
            dealNewCard()
        case .key(.s, _):
            saveSnapshot()
        case .key(.q, _), .key(.escape, _), .closeRequested:
            running = false
        case .putCompleted:
            shown()
        default:
            break
        }
    }

    /// A stroke went into the mask: count it, and the reveal meter may have news.
    private func stroke(_ dirty: PixelRect) {
        stats.events += 1
        stats.waiting.append(monotonicMicroseconds())
        guard !dirty.isEmpty else { return }
        emit(session.scratched(fraction: canvas.revealedFraction, now: monotonicSeconds()))
        if session.isRevealed { canvas.penUp() }
    }

    /// Composites what changed (and what was exposed, or the fade's frame) and puts it
    /// on screen in one put.
    private func repaint() {
        var area = canvas.compositeChanges(into: surface.framebuffer).rect
        if let fade = session.fadeProgress(now: monotonicSeconds()) {
            if fade >= 1 {
                canvas.revealAll()
                _ = canvas.compositeChanges(into: surface.framebuffer)
            } else {
                canvas.composite(PixelRect(size: canvas.size), into: surface.framebuffer, fade: fade)
            }
            area = PixelRect(size: canvas.size)
        }
        if !exposed.isEmpty {
            canvas.composite(exposed, into: surface.framebuffer)
            area.formUnion(exposed)
            exposed = .empty
        }
        if area.isEmpty {
            stats.waiting.removeAll(keepingCapacity: true)     // strokes that changed nothing
            return
        }
        stats.repaints += 1
        stats.inFlight.append(contentsOf: stats.waiting)
        stats.waiting.removeAll(keepingCapacity: true)
        surface.present(area)
        if !surface.usesSharedMemory {
            display.sync()          // a plain put is done once the server has answered
            shown()
        }
    }

    /// The last put is on screen: every stroke it carried has its latency.
    private func shown() {
        let now = monotonicMicroseconds()
        for arrival in stats.inFlight { stats.latency.record(microseconds: now - arrival) }
        stats.inFlight.removeAll(keepingCapacity: true)
    }

    /// A new size: the images re-laid out to fill it, the scratched state carried over.
    private func relayout(to size: PixelSize) throws(ExitError) {
        let filled = card.images.filling(size)
        do {
            canvas = try ScratchCanvas(cover: filled.cover, prize: filled.prize, layout: canvas.layout, brush: brush,
                                       keeping: canvas.mask)
            try surface.resize(to: size)
        } catch { throw ExitError(code: 1, message: "\(error)") }
        if session.isRevealed { canvas.revealAll() }
        exposed = PixelRect(size: size)
    }

    /// `r`: a new card from the dealer, in place of this one.
    private func dealNewCard() {
        let next: DealtCard
        do { next = try dealer.deal() } catch {
            log("cannot deal a new card: \(error)")
            return
        }
        let filled = next.images.filling(canvas.size)
        let newCanvas: ScratchCanvas
        do {
            newCanvas = try ScratchCanvas(cover: filled.cover, prize: filled.prize, layout: canvas.layout, brush: brush)
        } catch {
            log("cannot deal a new card: \(error)")
            return
        }
        logOutcome(quitting: false)
        canvas = newCanvas
        card = next
        session = CardSession(cardID: next.id, revealAt: options.revealAtPercent / 100, now: monotonicSeconds())
        shownAtWallClock = Date().timeIntervalSince1970
        if !recording.isEmpty, recording.last != .up { recording.append(.up) }
        exposed = PixelRect(size: canvas.size)
        emit([.newCard(cardID: next.id)])
    }

    /// The card on show ends: its record goes to the outcome log, if there is one.
    private func logOutcome(quitting: Bool) {
        guard let outcomeLog else { return }
        let record = session.outcome(prize: card.prize, shownAtWallClock: shownAtWallClock,
                                     fraction: canvas.revealedFraction, now: monotonicSeconds(), endedBy: quitting)
        do { try outcomeLog.append(record) } catch { log("\(error)") }
    }

    /// `s`: what the window shows, as a PNG named by the time, written atomically.
    private func saveSnapshot() {
        if surface.canDraw { repaint() }
        let folder = options.snapshotDirectory ?? "."
        let path = snapshotPath(in: folder)
        do {
            try PNGFile.write(surface.framebuffer.rgbaImage(), to: path)
            log("saved \(path)")
        } catch {
            log("snapshot not saved: \(error)")
        }
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
            let line = "events=\(stats.events) repaints=\(stats.repaints) pixels_put=\(surface.pixelsPut)"
                + " window=\(canvas.size) shm=\(surface.usesSharedMemory)"
                + " latency_p50_us=\(p50) latency_p99_us=\(p99) revealed=\(String(format4: canvas.revealedFraction))\n"
            // With --events, stdout is the JSON lines' alone.
            fputs(line, options.events ? stderr : stdout)
        }
    }

    /// With `--events`, one JSON line per event on stdout, flushed at once.
    private func emit(_ events: [CardEvent]) {
        guard options.events else { return }
        for event in events { print(event.json) }
        fflush(stdout)
    }
}

/// `scratchcard-YYYYMMDD-HHMMSS.png` in `folder`, with `-2`, `-3`… when taken.
func snapshotPath(in folder: String) -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let count = strftime(&buffer, buffer.count, "%Y%m%d-%H%M%S", &parts)
    let stamp = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let base = (folder.hasSuffix("/") ? folder : folder + "/") + "scratchcard-\(stamp)"
    var path = base + ".png", n = 2
    while access(path, F_OK) == 0 {
        path = "\(base)-\(n).png"
        n += 1
    }
    return path
}

func monotonicMicroseconds() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1_000_000 + t.tv_nsec / 1000
}

func monotonicSeconds() -> Double { Double(monotonicMicroseconds()) / 1e6 }

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
