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
/// their swatch; `stats`, the counters for `--stats`; `desktop`, drops, the clipboard,
/// full screen and the launch (Desktop/DesktopSide.swift).
final class DoodleApp {
    private let options: DoodleOptions
    private let display: X11Display
    private let window: X11Window
    /// Display pixels per point.
    private let scale: Double
    private let screen: PacedScreen
    private var drawing: DoodleDrawing
    /// The picture's file: the command line's, or the one dropped or pasted since.
    private var imagePath: String
    /// Strokes drawn, undone or cleared since the last save: a new picture saves them first.
    private var unsaved = false
    private let desktop: DesktopSide
    private var pen: DoodlePenChoice
    /// The area to composite and put at the next chance.
    private var pending = PixelRect.empty
    private var stats = DoodleStats()

    init(options: DoodleOptions, photo: RGBAImage) throws(ExitError) {
        _ = launchStartupID         // taken from the environment before any thread starts
        self.options = options
        imagePath = options.image
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
        desktop = DesktopSide(window: window, takesPictures: true, verbose: false)
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
                    unsaved = true
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
                case _ where handleDesktop(event):
                    break
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
        desktop.leave()
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
        case "u", "U", "undo":
            unsaved = true
            pending.formUnion(drawing.undo())
        case "c", "C":
            unsaved = true
            pending.formUnion(drawing.clear())
        default: break
        }
    }

    /// `s`: the doodle written to `--out`, else into the current folder under the
    /// picture's name (`DoodleExport.defaultPath`). False when it could not be written.
    @discardableResult
    private func save() -> Bool {
        let path = options.out ?? DoodleExport.defaultPath(forInput: imagePath, in: ".") { access($0, F_OK) == 0 }
        do { try exportDoodle(drawing.document, to: path) } catch {
            log(error.message)
            return false
        }
        unsaved = false
        return true
    }

    /// Ctrl+C, Ctrl+V, F11, a drop, a paste (DesktopSide): false when the event is none of them.
    private func handleDesktop(_ event: WindowEvent) -> Bool {
        switch desktop.handle(event) {
        case nil:
            return false
        case .handled?:
            break
        case .copy?:
            if screen.canDraw, !pending.isEmpty { repaint() }
            desktop.copy(screen.framebuffer)
        case .picture(let image, let name)?:
            open(image, path: name == "pasted" ? "pasted.png" : name)
        case .cardFile?:
            break       // never asked for: the doodle takes no card files
        }
        return true
    }

    /// A dropped or pasted picture opens for doodling, once the strokes not yet saved are
    /// saved where `s` saves them; when they cannot be, the picture on show stays.
    private func open(_ image: RGBAImage, path: String) {
        if unsaved, !save() {
            log("\(path) not opened: the strokes on show could not be saved")
            return
        }
        drawing = DoodleDrawing(photo: image, within: screen.size, scale: scale)
        imagePath = path
        unsaved = false
        drawing.relayout(to: screen.size)
        pending = PixelRect(size: screen.size)
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
        desktop.firstFrameShown()
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
