@preconcurrency import Glibc
import DoodleDocument
import ScratchCore
import ScratchImage
import ScratchX11

/// `scratchcard doodle`: draw over a picture, in a window or from a trace.
///
/// Two `Doodle`s hold the drawing: the document at the picture's resolution (what is
/// exported) and the view at the window's (what is shown). Each pen event strokes both;
/// undo and clear go to both. The view is composited into the window's framebuffer
/// where it changed, the same loop as the scratch window (WindowApp.swift).
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

/// The doodle window and its loop, paced as the scratch window's (WindowApp+Pacing.swift):
/// at most one put per refresh interval of the monitor under the window (`--max-fps`
/// overrides it), the first after a pause at once; while a put is held back the events
/// wait in the socket until the slot, and then every one of them strokes both drawings,
/// in order, before the one put that shows them all.
final class DoodleApp {
    private let options: DoodleOptions
    private let photo: RGBAImage
    private let display: X11Display
    private let window: X11Window
    private let surface: WindowSurface
    private let document: Doodle
    private var view: Doodle
    private var fit: DoodleFit
    /// Display pixels per point.
    private let scale: Double
    private var colour: RGBA
    private var widthPoints: Double
    /// The area to composite and put at the next chance.
    private var pending = PixelRect.empty
    /// The pen swatch in the corner, shown until this monotonic time.
    private var swatchUntil: Double?
    private var swatchRect = PixelRect.empty
    static let swatchSeconds = 1.0
    static let background = RGBA(r: 0x30, g: 0x30, b: 0x30)
    /// At most one put per refresh interval; a move or a change of the monitors asks for
    /// the rate to be read again.
    private var pacer: FramePacer
    private var refreshRateStale = false
    /// Counters for `--stats`.
    private var stats = Stats()

    struct Stats {
        var events = 0
        var puts = 0
        /// Puts that waited for the pacer's slot, the pen events since the last put, and
        /// the most pen events one put carried.
        var heldPuts = 0
        var strokesWaiting = 0
        var mostStrokesInAPut = 0
        var rateChanges = 0
    }

    init(options: DoodleOptions, photo: RGBAImage) throws(ExitError) {
        self.options = options
        self.photo = photo
        colour = options.colour
        widthPoints = options.widthPoints
        do { display = try X11Display(name: options.display) } catch { throw ExitError(code: 1, message: "\(error)") }
        guard display.pixelLayout != nil else {
            throw ExitError(code: 1, message: display.visualProblem ?? "no visual to draw with")
        }
        scale = display.scale(option: options.scale).factor
        fit = DoodleFit(image: photo.size, within: display.screenSize, scale: scale)
        document = Doodle(photo: photo)
        view = Doodle(photo: photo.scaledToFill(fit.view))
        let name = options.image.split(separator: "/").last.map(String.init) ?? options.image
        do {
            window = try X11Window(display: display, size: fit.view, title: "\(name) - ScratchCard doodle")
            surface = try WindowSurface(window: window, size: fit.view, useSharedMemory: options.useSharedMemory)
        } catch { throw ExitError(code: 1, message: "\(error)") }
        pacer = framePacer(maxFPS: options.maxFPS, window: window).0
        window.followMonitorChanges()
    }

    func run() throws(ExitError) {
        pending = PixelRect(size: surface.size)
        window.map()
        var running = true
        while running {
            let start = now()
            // The swatch's end, and a held-back put's slot: the same clock as the strokes'.
            let wake = [swatchUntil, pending.isEmpty ? nil : pacer.earliestPut(at: start)].compactMap { $0 }.min()
            for event in nextEvents(now: start, timeout: wake.map { Swift.max(0, $0 - start) }) {
                if mayChangeRefreshRate(event) { refreshRateStale = true }
                switch event {
                case .press(let button, let point, _) where button == 1:
                    stroked()
                    penDown(at: point)
                case .motion(let point, _) where view.isPenDown:
                    stroked()
                    pending.formUnion(view.penMove(to: point))
                    document.penMove(to: fit.toImage(point))
                case .release(let button, _, _) where button == 1:
                    view.penUp()
                    document.penUp()
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
            if let until = swatchUntil, now() >= until {
                swatchUntil = nil
                pending.formUnion(swatchRect)
            }
            followTheMonitor()
            if running, surface.canDraw, !pending.isEmpty {
                if pacer.mayPut(at: now()) { repaint() } else { putHeld = true }
            } else if pending.isEmpty {
                putHeld = false         // the slot came and nothing was waiting for it
            }
        }
        if options.stats {
            fputs("events=\(stats.events) repaints=\(stats.puts) pixels_put=\(surface.pixelsPut)"
                  + " max_fps=\(String(format4: pacer.rate)) held_puts=\(stats.heldPuts)"
                  + " most_strokes_in_a_put=\(stats.mostStrokesInAPut) rate_changes=\(stats.rateChanges)\n", stderr)
        }
        if let out = options.out { try exportDoodle(document, to: out) }
    }

    /// The next put waits for a slot of the pacer.
    private var putHeld = false

    /// A pen event went into the drawings.
    private func stroked() {
        stats.events += 1
        stats.strokesWaiting += 1
    }

    /// Waits for events, as `X11Window.nextEvents`; but while the pacer holds the next
    /// put back (and no put is in flight), it leaves the display's events in the socket
    /// until the slot and then reads them all (as the scratch window does).
    private func nextEvents(now: Double, timeout: Double?) -> [WindowEvent] {
        guard surface.canDraw, !pacer.mayPut(at: now) else { return window.nextEvents(timeout: timeout) }
        putHeld = true
        let untilSlot = Swift.max(0, pacer.earliestPut(at: now) - now)
        let kept = window.nextEvents(timeout: Swift.min(timeout ?? untilSlot, untilSlot), readingDisplay: false)
        return kept + window.nextEvents(timeout: 0)
    }

    /// After a move or a change of the screen's monitors: the rate read again.
    private func followTheMonitor() {
        guard refreshRateStale else { return }
        refreshRateStale = false
        guard let (changed, _) = framePacerFollowingTheMonitor(pacer, maxFPS: options.maxFPS, window: window) else { return }
        pacer = changed
        stats.rateChanges += 1
    }

    // MARK: - Pen

    private var viewBrush: Brush { try! Brush(radius: widthPoints / 2 * scale) }
    private var documentBrush: Brush { try! Brush(radius: widthPoints / 2 * scale * fit.imagePixelsPerViewPixel) }

    private func penDown(at point: Point) {
        pending.formUnion(view.penDown(at: point, colour: colour, brush: viewBrush))
        document.penDown(at: fit.toImage(point), colour: colour, brush: documentBrush)
    }

    private func handle(_ key: Key) {
        let name: String
        switch key {
        case .other(let n): name = n
        case .control("z"), .control("Z"): name = "undo"
        default: return
        }
        switch name {
        case "1", "2", "3", "4", "5", "6", "7", "8", "9", "KP_1", "KP_2", "KP_3", "KP_4", "KP_5", "KP_6", "KP_7", "KP_8", "KP_9":
            colour = DoodlePen.palette[Int(String(name.last!))! - 1]
            showSwatch()
        case "plus", "equal", "KP_Add":
            widthPoints = DoodlePen.wider(widthPoints)
            showSwatch()
        case "minus", "underscore", "KP_Subtract":
            widthPoints = DoodlePen.narrower(widthPoints)
            showSwatch()
        case "u", "U", "undo":
            pending.formUnion(view.undo())
            document.undo()
        case "c", "C":
            pending.formUnion(view.clear())
            document.clear()
        default:
            break
        }
    }

    private func save() {
        let path = options.out ?? DoodleExport.defaultPath(forInput: options.image, in: ".") { access($0, F_OK) == 0 }
        do { try exportDoodle(document, to: path) } catch { log(error.message) }
    }

    /// A new window size: the view is fitted again and the drawing redrawn into it.
    private func relayout(to size: PixelSize) {
        do { try surface.resize(to: size) } catch {
            log("\(error)")
            return
        }
        document.penUp()        // a resize ends the stroke in progress
        fit = DoodleFit(image: photo.size, within: size, scale: scale)
        view = Doodle(photo: photo.scaledToFill(fit.view))
        let viewPixelsPerImagePixel = 1 / fit.imagePixelsPerViewPixel
        for stroke in document.strokes {
            guard let brush = try? Brush(radius: stroke.brush.radius * viewPixelsPerImagePixel) else { continue }
            view.add(DoodleStroke(colour: stroke.colour, brush: brush, points: stroke.points.map(fit.toView)))
        }
        pending = PixelRect(size: size)
    }

    // MARK: - Drawing

    private func showSwatch() {
        pending.formUnion(swatchRect)         // the old one, if it was larger
        swatchUntil = now() + Self.swatchSeconds
        let diameter = widthPoints * scale
        let limit = Swift.max(8, Swift.min(surface.size.width, surface.size.height) - 16)
        let side = Swift.min(limit, Swift.max(40, Int(diameter.rounded(.up)) + 16))
        swatchRect = PixelRect(x: 8, y: 8, width: side, height: side).intersection(PixelRect(size: surface.size))
        pending.formUnion(swatchRect)
    }

    private func repaint() {
        let fb = surface.framebuffer
        let area = pending.intersection(PixelRect(size: fb.size))
        pending = .empty
        guard !area.isEmpty else { return }
        view.composite(area, into: fb)
        // Outside the view (a window larger than the fitted picture): the background.
        fill(area.intersection(PixelRect(x: fit.view.width, y: 0, width: fb.size.width, height: fb.size.height)), Self.background)
        fill(area.intersection(PixelRect(x: 0, y: fit.view.height, width: fb.size.width, height: fb.size.height)), Self.background)
        var put = area
        if swatchUntil != nil, !swatchRect.intersection(area).isEmpty {
            view.composite(swatchRect, into: fb)
            drawSwatch()
            put.formUnion(swatchRect)
        }
        let t = now()
        pacer.didPut(at: t)
        stats.puts += 1
        if putHeld { stats.heldPuts += 1 }
        putHeld = false
        stats.mostStrokesInAPut = Swift.max(stats.mostStrokesInAPut, stats.strokesWaiting)
        stats.strokesWaiting = 0
        surface.present(put)
    }

    private func fill(_ rect: PixelRect, _ c: RGBA) {
        guard !rect.isEmpty else { return }
        for y in rect.y..<rect.maxY {
            for x in rect.x..<rect.maxX { put(c, x, y) }
        }
    }

    @inline(__always)
    private func put(_ c: RGBA, _ x: Int, _ y: Int) {
        let fb = surface.framebuffer
        let p = (fb.baseAddress + y * fb.bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
        p[fb.layout.redOffset] = c.r
        p[fb.layout.greenOffset] = c.g
        p[fb.layout.blueOffset] = c.b
        p[fb.layout.padOffset] = 255
    }

    /// A light square with a dark border and, in the middle, a dot of the pen's colour
    /// and width (as large as fits).
    private func drawSwatch() {
        let r = swatchRect
        guard r.width > 4, r.height > 4 else { return }
        let border = RGBA(r: 0x20, g: 0x20, b: 0x20), paper = RGBA(r: 0xF4, g: 0xF4, b: 0xF4)
        let cx = Double(r.x) + Double(r.width) / 2, cy = Double(r.y) + Double(r.height) / 2
        let radius = Swift.min(widthPoints * scale, Double(r.width - 8)) / 2
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX {
                if x < r.x + 2 || y < r.y + 2 || x >= r.maxX - 2 || y >= r.maxY - 2 { put(border, x, y); continue }
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                let coverage = Swift.min(1, Swift.max(0, radius + 0.5 - (dx * dx + dy * dy).squareRoot()))
                let m = Int(coverage * 255 + 0.5)
                func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Int(a) * (255 - m) + Int(b) * m + 127) / 255) }
                put(RGBA(r: mix(paper.r, colour.r), g: mix(paper.g, colour.g), b: mix(paper.b, colour.b)), x, y)
            }
        }
    }

    private func now() -> Double { Double(monotonicMicroseconds()) / 1e6 }
}
