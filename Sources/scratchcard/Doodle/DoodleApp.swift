@preconcurrency import Glibc
import ScratchCore
import ScratchImage
import ScratchX11
import DoodleDocument

/// `scratchcard doodle`: draw over a picture, in a window or from a trace.
///
/// Two `Doodle`s hold the drawing (DoodleDrawing.swift): the document at the picture's
/// resolution (what is exported) and the view at the window's (what is shown). Each pen
/// event strokes both; undo and clear go to both. The view is composited into the
/// window's framebuffer where it changed, the same loop as the scratch window (WindowApp.swift).
func doodle(_ options: DoodleOptions) throws(ExitError) {
    let photo: RGBAImage
    do { photo = try ImageFile.read(path: options.image) } catch { throw ExitError(code: 2, message: "\(error)") }
    if let trace = options.trace {
        try doodleTrace(trace, photo: photo, options: options)
    } else {
        try DoodleApp(options: options, photo: photo).run()
    }
}

/// Draws a trace onto the picture with no display and writes `--out`. The trace's
/// points are in its canvas's pixels and are scaled to the picture when the sizes
/// differ (each axis on its own); so is its brush radius (by the mean of the two).
/// Each `down` ... `up` is one stroke in `--color`; its radius is `--width` / 2 picture
/// pixels when `--width` was given, else the trace's brush radius when the stroke began.
func doodleTrace(_ path: String, photo: RGBAImage, options: DoodleOptions) throws(ExitError) {
    let trace: Trace
    do { trace = try Trace.load(path: path) } catch { throw ExitError(code: 2, message: "\(error)") }
    let fit = DoodleFit(image: photo.size, view: trace.canvas)
    let doodle = Doodle(photo: photo)
    var traceRadius = trace.initialBrush.radius * fit.imagePixelsPerViewPixel
    let fixedRadius: Double? = options.widthPoints > 0 ? options.widthPoints / 2 : nil
    for record in trace.records {
        switch record {
        case .brush(let r):
            traceRadius = r * fit.imagePixelsPerViewPixel
        case .down(let p):
            guard let brush = try? Brush(radius: fixedRadius ?? traceRadius) else {
                throw ExitError(code: 2, message: "\(path): the brush radius \(traceRadius) is too small for the picture")
            }
            doodle.penDown(at: fit.toImage(p), colour: options.colour, brush: brush)
        case .move(let p):
            doodle.penMove(to: fit.toImage(p))
        case .up:
            doodle.penUp()
        }
    }
    try exportDoodle(doodle, to: options.out!)
}

/// Writes the doodle at the picture's resolution, upright (the picture was turned by its
/// EXIF orientation when read), and prints the path: a JPEG when `path` ends in .jpg or
/// .jpeg, else a PNG; atomically either way (ImageFile.write goes through AtomicFile).
func exportDoodle(_ doodle: Doodle, to path: String) throws(ExitError) {
    do { try ImageFile.write(doodle.rendered(), to: path) } catch { throw ExitError(code: 1, message: "\(error)") }
    print(path)
}

/// The doodle window and its loop, paced as the scratch window's (PacedScreen.swift):
/// at most one put per refresh interval of the monitor under the window (`--max-fps`
/// overrides it), the first after a pause at once; while a put is held back the events
/// wait in the socket until the slot, and then every one of them strokes both drawings,
/// in order, before the one put that shows them all.
///
/// Its parts: `screen`, the surface at the monitor's pace (shared with the scratch
/// window); `drawing`, the document and the view; `pen`, the colour and width chosen and
/// their swatch; `stats`, the counters for `--stats`.
final class DoodleApp {
    private let options: DoodleOptions
    private let display: X11Display
    private let window: X11Window
    /// Display pixels per point.
    private let scale: Double
    private let screen: PacedScreen
    private let drawing: DoodleDrawing
    private var pen: DoodlePenChoice
    /// The area to composite and put at the next chance.
    private var pending = PixelRect.empty
    private var stats = DoodleStats()

    init(options: DoodleOptions, photo: RGBAImage) throws(ExitError) {
        self.options = options
        pen = DoodlePenChoice(colour: options.colour, widthPoints: options.widthPoints)
        do { display = try X11Display(name: options.display) } catch { throw ExitError(code: 1, message: "\(error)") }
        guard display.pixelLayout != nil else {
            throw ExitError(code: 1, message: display.visualProblem ?? "no visual to draw with")
        }
        scale = display.scale(option: options.scale).factor
        drawing = DoodleDrawing(photo: photo, within: display.screenSize, scale: scale)
        let name = options.image.split(separator: "/").last.map(String.init) ?? options.image
        let surface: WindowSurface
        do {
            window = try X11Window(display: display, size: drawing.viewSize, title: "\(name) - ScratchCard doodle")
            surface = try WindowSurface(window: window, size: drawing.viewSize, useSharedMemory: options.useSharedMemory)
        } catch { throw ExitError(code: 1, message: "\(error)") }
        screen = PacedScreen(window: window, surface: surface, maxFPS: options.maxFPS)
    }

    func run() throws(ExitError) {
        pending = PixelRect(size: screen.size)
        window.map()
        var running = true
        while running {
            let start = now()
            // The swatch's end, and a held-back put's slot: the same clock as the strokes'.
            let wake = [pen.swatchUntil, pending.isEmpty ? nil : screen.earliestPut(at: start)].compactMap { $0 }.min()
            for event in screen.nextEvents(now: start, timeout: wake.map { Swift.max(0, $0 - start) }) {
                screen.noticed(event)
                switch event {
                case .press(let button, let point, _) where button == 1:
                    stats.stroked()
                    pending.formUnion(drawing.penDown(at: point, colour: pen.colour, widthPoints: pen.widthPoints))
                case .motion(let point, _) where drawing.isPenDown:
                    stats.stroked()
                    pending.formUnion(drawing.penMove(to: point))
                case .release(let button, _, _) where button == 1:
                    drawing.penUp()
                case .expose(let rect):
                    pending.formUnion(rect)
                case .resized(let size):
                    relayout(to: size)
                case .key(.q, _), .key(.escape, _), .closeRequested:
                    running = false
                case .key(.s, _):
                    save()
                case .key(let key, _):
                    handle(key)
                default:
                    break
                }
            }
            if let ended = pen.swatchEnded(now: now()) { pending.formUnion(ended) }
            if screen.followTheMonitor() != nil { stats.counters.rateChanges += 1 }
            if running, screen.canDraw, !pending.isEmpty {
                if screen.mayPut(at: now()) { repaint() } else { screen.holdPut() }
            } else if pending.isEmpty {
                screen.dropHeldPut()        // the slot came and nothing was waiting for it
            }
        }
        if options.stats { fputs(stats.line(pixelsPut: screen.pixelsPut, rate: screen.rate) + "\n", stderr) }
        if let out = options.out { try exportDoodle(drawing.document, to: out) }
    }

    private func handle(_ key: Key) {
        let name: String
        switch key {
        case .other(let n): name = n
        case .control("z"), .control("Z"): name = "undo"
        default: return
        }
        if let area = pen.choose(name, now: now(), scale: scale, window: screen.size) {
            pending.formUnion(area)
            return
        }
        switch name {
        case "u", "U", "undo": pending.formUnion(drawing.undo())
        case "c", "C": pending.formUnion(drawing.clear())
        default: break
        }
    }

    private func save() {
        let path = options.out ?? DoodleExport.defaultPath(forInput: options.image, in: ".") { access($0, F_OK) == 0 }
        do { try exportDoodle(drawing.document, to: path) } catch { log(error.message) }
    }

    /// A new window size: the view is fitted again and the drawing redrawn into it.
    private func relayout(to size: PixelSize) {
        do { try screen.resize(to: size) } catch {
            log("\(error)")
            return
        }
        drawing.relayout(to: size)
        pending = PixelRect(size: size)
    }

    private func repaint() {
        let framebuffer = screen.framebuffer
        let area = pending.intersection(PixelRect(size: framebuffer.size))
        pending = .empty
        guard !area.isEmpty else { return }
        drawing.composite(area, into: framebuffer)
        var put = area
        if let swatch = pen.swatchShown(meeting: area) {
            drawing.compositeView(swatch, into: framebuffer)
            pen.drawSwatch(into: framebuffer, scale: scale)
            put.formUnion(swatch)
        }
        stats.put(held: screen.putHeld)
        screen.put(put, at: now())
    }

    private func now() -> Double { Double(monotonicMicroseconds()) / 1e6 }
}

/// The doodle window's counters for `--stats` (on stderr: stdout has the saved paths).
struct DoodleStats {
    var counters = PutCounters()
    /// Pen events since the last put.
    private var strokesWaiting = 0

    /// A pen event went into the drawings.
    mutating func stroked() {
        counters.events += 1
        strokesWaiting += 1
    }

    /// A put went with every pen event waiting; `held`: it waited for its slot.
    mutating func put(held: Bool) {
        counters.put(held: held, strokes: strokesWaiting)
        strokesWaiting = 0
    }

    func line(pixelsPut: Int, rate: Double) -> String {
        "events=\(counters.events) repaints=\(counters.puts) pixels_put=\(pixelsPut)" + counters.pacingFields(rate: rate)
    }
}
