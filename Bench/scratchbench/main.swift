// scratchbench: replays stroke traces through the engine with no window and prints one
// line of key=value figures per trace and mode (docs/ARCHITECTURE.md, Performance).
//
//   mode=dirty  strokes the mask and composites the pixels each event changed, as the
//               window does (on a 4K canvas the strokes paint them as they go);
//   mode=full   the same, but composites the whole canvas per event, as the iOS views
//               this grew from redraw the whole view on every touch.
//
// Both modes run in the same process, so their ratio is the figure to quote.
//
// Beside them, in the same process: `engine=cairo+pixman mode=dirty`, the same trace
// stroked by cairo into an a8 mask and composited by pixman (CairoEngine.swift); our
// dirty line carries `ratio=` (cairo's ns per event over ours). The dirty line also
// carries the memory floor: `bytes_per_event` (mask bytes the brush visited and the
// bytes it changed, plus per composited pixel its mask byte, its 8-byte cover/prize
// pair and its 4 framebuffer bytes; a pixel the stroke painted as it went has no mask
// byte read again), `copy_gbps` (a 256 MiB memcpy in this process,
// best of 5, bytes copied per second) and `floor_ratio`, our ns per event over the time
// to move bytes_per_event at that rate (a memcpy reads and writes each byte: the rate at
// which it touches bytes is 2 x copy_gbps).
@preconcurrency import Glibc
import CardRules
import ScratchCore
import ScratchStore

let usage = """
    usage: scratchbench [--repeat N] [--mode dirty|full|both] TRACE...
      Replays each trace through the scratch engine and prints its figures.
      --repeat N   run each mode N times and report the median run (default 1)
      --mode M     which modes to run (default both)
      --no-cairo   skip the cairo + pixman comparison engine
      --store FILE also run mode=dirty+store: each event's stroke saved as the kiosk
                   saves it (a StrokeLog line into a batch, the batch committed to a
                   store at FILE every 200 events: 200 ms of a 1000 Hz pointer)
      --zones CxR  also run mode=dirty+zones: the same card with a grid of C x R
                   scratch zones (a 4% margin, 2% gaps), every zone scratchable, each
                   pen writing in the zone it was pressed in, as in the window, and
                   pressed anew where the trace's pen crosses into another zone (a
                   player scratching zone by zone: else a stroke begun in a gap would
                   ink nothing); its line carries zone_ratio, its ns per event over
                   plain dirty's (same run, interleaved), and revealed, the fraction
                   of the card each run revealed
      -h, --help   show this help
    """

struct Options {
    var repeats = 1
    var modes = [Mode.dirty, .full]
    var cairo = true
    var store: String?
    /// Columns and rows of the zone grid for `--zones`.
    var zones: (columns: Int, rows: Int)?
    var traces: [String] = []
}

enum Mode: String { case dirty, full }

func fail(_ message: String) -> Never {
    fputs("scratchbench: \(message)\n\(usage)\n", stderr)
    exit(2)
}

func parseOptions(_ arguments: [String]) -> Options {
    var options = Options()
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        var (name, inlineValue) = (argument, String?.none)
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            name = String(argument[..<eq])
            inlineValue = String(argument[argument.index(after: eq)...])
        }
        func value() -> String {
            if let inlineValue { return inlineValue }
            guard let next = rest.popFirst() else { fail("\(name) needs a value") }
            return next
        }
        switch name {
        case "-h", "--help":
            print(usage)
            exit(0)
        case "--repeat":
            let text = value()
            guard let n = Int(text), (1...1000).contains(n) else { fail("--repeat takes a whole number from 1 to 1000, not '\(text)'") }
            options.repeats = n
        case "--mode":
            switch value() {
            case "dirty": options.modes = [.dirty]
            case "full": options.modes = [.full]
            case "both": options.modes = [.dirty, .full]
            case let other: fail("--mode takes dirty, full or both, not '\(other)'")
            }
        case "--no-cairo":
            options.cairo = false
        case "--store":
            options.store = value()
        case "--zones":
            let text = value()
            let parts = text.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 2, let c = parts[0], let r = parts[1], (1...64).contains(c), (1...64).contains(r) else {
                fail("--zones takes COLUMNSxROWS, each from 1 to 64, not '\(text)'")
            }
            options.zones = (c, r)
        case "--":
            options.traces.append(contentsOf: rest)
            rest = []
        default:
            if argument.hasPrefix("-") && argument != "-" { fail("unknown option '\(argument)'") }
            options.traces.append(argument)
        }
    }
    if options.traces.isEmpty { fail("no trace given") }
    return options
}

/// Monotonic nanoseconds.
@inline(__always)
func now() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// A cover and a prize with some texture, so no fast path is faked by flat colour.
func testImages(_ size: PixelSize) -> (cover: RGBAImage, prize: RGBAImage) {
    var cover = [UInt8](repeating: 255, count: size.pixelCount * 4)
    var prize = cover
    for y in 0..<size.height {
        for x in 0..<size.width {
            let i = (y * size.width + x) * 4
            let grey = UInt8(truncatingIfNeeded: 150 + (x * 7 + y * 3) % 60)
            cover[i] = grey; cover[i + 1] = grey; cover[i + 2] = grey &+ 10
            prize[i] = UInt8(truncatingIfNeeded: x * 255 / size.width)
            prize[i + 1] = UInt8(truncatingIfNeeded: y * 255 / size.height)
            prize[i + 2] = UInt8(truncatingIfNeeded: 255 - (x + y) % 256)
        }
    }
    return (RGBAImage(size: size, bytes: cover)!, RGBAImage(size: size, bytes: prize)!)
}

struct Run {
    var eventNanoseconds: [UInt64] = []
    var compositedPixels = 0
    /// Of those, the pixels the strokes painted as they went.
    var paintedPixels = 0
    var brushBytes = 0
    var revealed = 0.0
    var total: UInt64 { eventNanoseconds.reduce(0, +) }
}

/// The kiosk's way of saving strokes (WindowApp+Store.swift), for `--store`: a line per
/// event into a batch, committed every `every` events.
final class StrokeSaver {
    let store: KioskStore
    let deal: DealID
    var batch = ""
    var pending = 0
    let every = 200
    var canvasLine: String

    init(path: String, canvas: PixelSize, brush: Double) throws {
        for suffix in ["", "-wal", "-shm", ".lock"] { unlink(path + suffix) }
        store = try KioskStore(path: path, access: .kiosk)
        deal = try store.deal(DeckCard(id: "bench", prize: "bench.png"), shownAt: 0, ending: nil)!
        canvasLine = StrokeLog.line(.canvas(canvas, brush: brush))
    }

    func keep(_ record: StrokeLog.Record) {
        if batch.isEmpty { batch = canvasLine + "\n" }
        batch += StrokeLog.line(record)
        batch += "\n"
        pending += 1
        if pending >= every {
            try! store.saveStrokes(deal, lines: batch, lastTouch: 0)
            batch = ""
            pending = 0
        }
    }
}

func replay(_ trace: Trace, on canvas: ScratchCanvas, into framebuffer: Framebuffer, mode: Mode,
            saver: StrokeSaver? = nil) -> Run {
    canvas.reset()
    canvas.brush = trace.initialBrush
    var run = Run()
    run.eventNanoseconds.reserveCapacity(trace.eventCount)
    let whole = PixelRect(size: canvas.size)
    // On a card with zones: the zone the pen was last pressed in.
    var pressedZone: Int?
    for record in trace.records {
        let start = now()
        let dirty: PixelRect
        switch record {
        case .brush(let r):
            if let brush = try? Brush(radius: r) { canvas.brush = brush }
            continue
        case .up:
            canvas.penUp()
            continue
        case .down(let p):
            pressedZone = canvas.zones?.zone(atX: Int(p.x), y: Int(p.y))
            dirty = canvas.penDown(at: p, drawingInto: mode == .dirty ? framebuffer : nil)
            saver?.keep(.down(pen: 0, p))
        case .move(let p):
            guard canvas.isPenDown else { continue }
            if let zones = canvas.zones, let zone = zones.zone(atX: Int(p.x), y: Int(p.y)), zone != pressedZone {
                // Into another zone: the player lifts and presses there (see --zones).
                pressedZone = zone
                canvas.penUp()
                dirty = canvas.penDown(at: p, drawingInto: mode == .dirty ? framebuffer : nil)
            } else {
                dirty = canvas.penMove(to: p, drawingInto: mode == .dirty ? framebuffer : nil)
            }
            saver?.keep(.move(pen: 0, p))
        }
        switch mode {
        case .dirty:
            // Only the pixels whose mask changed: a subset of the dirty rectangle, and
            // all of it that needs new pixels.
            _ = dirty
            let written = canvas.compositeChanges(into: framebuffer)
            run.compositedPixels += written.pixels
            run.paintedPixels += written.painted
        case .full:
            canvas.composite(whole, into: framebuffer)
            run.compositedPixels += whole.area
        }
        run.eventNanoseconds.append(now() - start)
    }
    run.revealed = Double(canvas.mask.revealedPixels) / Double(canvas.size.pixelCount)
    run.brushBytes = canvas.mask.bytesVisitedByBrush
    return run
}

/// The same trace through cairo + pixman: the stroke and the composite of its box.
func replayCairo(_ trace: Trace, on engine: CairoEngine) -> Run {
    engine.reset()
    var radius = trace.initialBrush.radius
    var last: Point?
    var run = Run()
    run.eventNanoseconds.reserveCapacity(trace.eventCount)
    for record in trace.records {
        let start = now()
        switch record {
        case .brush(let r):
            if r.isFinite && r > 0 { radius = r }
            continue
        case .up:
            last = nil
            continue
        case .down(let p):
            last = p
            run.compositedPixels += engine.event(from: p, to: p, radius: radius)
        case .move(let p):
            guard let from = last else { continue }
            last = p
            run.compositedPixels += engine.event(from: from, to: p, radius: radius)
        }
        run.eventNanoseconds.append(now() - start)
    }
    run.revealed = Double(engine.revealedPixels()) / Double(trace.canvas.pixelCount)
    return run
}

/// This machine's copy bandwidth, bytes copied per second: a 256 MiB memcpy, best of 5.
func copyBandwidth() -> Double {
    let count = 256 << 20
    let from = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 4096)
    let to = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 4096)
    defer { from.deallocate(); to.deallocate() }
    memset(from, 1, count)
    memset(to, 2, count)
    // Called through a pointer from dlsym, so the optimiser cannot drop a copy whose
    // result nobody reads.
    typealias Copy = @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> UnsafeMutableRawPointer?
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "memcpy") else { fatalError("no memcpy") }
    let copy = unsafeBitCast(symbol, to: Copy.self)
    var best = UInt64.max
    for _ in 0..<5 {
        let start = now()
        _ = copy(to, from, count)
        best = Swift.min(best, now() - start)
    }
    return Double(count) / (Double(best) / 1e9)
}

func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let index = Int((Double(sorted.count - 1) * p).rounded())
    return Double(sorted[index]) / 1000
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
for path in options.traces {
    let trace: Trace
    do { trace = try Trace.load(path: path) } catch {
        fputs("scratchbench: \(error)\n", stderr)
        exit(2)
    }
    let images = testImages(trace.canvas)
    let canvas = try ScratchCanvas(cover: images.cover, prize: images.prize, layout: .bgrx, brush: trace.initialBrush)
    let framebuffer = Framebuffer(size: trace.canvas, layout: .bgrx)
    canvas.composite(PixelRect(size: trace.canvas), into: framebuffer)
    let name = path.split(separator: "/").last.map(String.init) ?? path
    // Measured beside each trace's runs, so both see the same load on a shared machine.
    let copyBytesPerSecond = copyBandwidth()

    /// The median of `repeats` runs (by total time).
    func median(_ body: () -> Run) -> Run {
        var runs = (0..<options.repeats).map { _ in body() }
        runs.sort { $0.total < $1.total }
        return runs[runs.count / 2]
    }
    func nsPerEvent(_ run: Run) -> Double {
        run.eventNanoseconds.isEmpty ? 0 : Double(run.total) / Double(run.eventNanoseconds.count)
    }
    func fields(_ engine: String, _ mode: String, _ run: Run) -> [(String, String)] {
        let events = run.eventNanoseconds.count
        let sorted = run.eventNanoseconds.sorted()
        return [
            ("engine", engine),
            ("mode", mode),
            ("trace", name),
            ("canvas", "\(trace.canvas)"),
            ("events", "\(events)"),
            ("total_ms", String(format3(Double(run.total) / 1e6))),
            ("ns_per_event", "\(Int(nsPerEvent(run)))"),
            ("p50_us", format3(percentile(sorted, 0.5))),
            ("p99_us", format3(percentile(sorted, 0.99))),
            ("composited_mpix", format3(Double(run.compositedPixels) / 1e6)),
            ("revealed", format4(run.revealed)),
        ]
    }
    func emit(_ fields: [(String, String)]) {
        print(fields.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        fflush(stdout)
    }

    // Interleaved, so both engines see the same machine load: ours, cairo's, ours, ...
    var cairoRun: Run?, dirtyRun: Run?
    if options.cairo && options.modes.contains(.dirty) {
        let engine = CairoEngine(cover: images.cover, prize: images.prize)
        var ours: [Run] = [], theirs: [Run] = []
        for _ in 0..<options.repeats {
            ours.append(replay(trace, on: canvas, into: framebuffer, mode: .dirty))
            theirs.append(replayCairo(trace, on: engine))
        }
        ours.sort { $0.total < $1.total }
        theirs.sort { $0.total < $1.total }
        cairoRun = theirs[theirs.count / 2]
        dirtyRun = ours[ours.count / 2]
    }

    if let path = options.store, options.modes.contains(.dirty) {
        // Interleaved with plain dirty runs, so both see the same load.
        let saver = try StrokeSaver(path: path, canvas: trace.canvas, brush: trace.initialBrush.radius)
        var plain: [Run] = [], saving: [Run] = []
        for _ in 0..<options.repeats {
            plain.append(replay(trace, on: canvas, into: framebuffer, mode: .dirty))
            saving.append(replay(trace, on: canvas, into: framebuffer, mode: .dirty, saver: saver))
        }
        plain.sort { $0.total < $1.total }
        saving.sort { $0.total < $1.total }
        for (label, run) in [("dirty", plain[plain.count / 2]), ("dirty+store", saving[saving.count / 2])] {
            var line = fields("scratchcard", label, run)
            line.append(("max_us", format3(Double(run.eventNanoseconds.max() ?? 0) / 1000)))
            emit(line)
        }
    }

    if let grid = options.zones, options.modes.contains(.dirty) {
        // The same card with zones, interleaved with the plain one so both see the same load.
        let zoned = try ScratchCanvas(cover: images.cover, prize: images.prize, layout: .bgrx, brush: trace.initialBrush)
        zoned.setZones(zoneGrid(grid, in: trace.canvas))
        var plain: [Run] = [], zonedRuns: [Run] = []
        for _ in 0..<options.repeats {
            plain.append(replay(trace, on: canvas, into: framebuffer, mode: .dirty))
            zonedRuns.append(replay(trace, on: zoned, into: framebuffer, mode: .dirty))
        }
        plain.sort { $0.total < $1.total }
        zonedRuns.sort { $0.total < $1.total }
        let plainRun = plain[plain.count / 2], zonedRun = zonedRuns[zonedRuns.count / 2]
        emit(fields("scratchcard", "dirty", plainRun))
        var line = fields("scratchcard", "dirty+zones", zonedRun)
        line.append(("zones", "\(grid.columns * grid.rows)"))
        line.append(("zone_ratio", format3(nsPerEvent(zonedRun) / nsPerEvent(plainRun))))
        let p50 = percentile(plainRun.eventNanoseconds.sorted(), 0.5)
        line.append(("zone_ratio_p50", format3(percentile(zonedRun.eventNanoseconds.sorted(), 0.5) / Swift.max(p50, 0.001))))
        line.append(("revealed_plain", format3(plainRun.revealed)))
        line.append(("revealed_zoned", format3(zonedRun.revealed)))
        emit(line)
    }

    for mode in options.modes {
        let run = mode == .dirty && dirtyRun != nil ? dirtyRun!
            : median { replay(trace, on: canvas, into: framebuffer, mode: mode) }
        var line = fields("scratchcard", mode.rawValue, run)
        if mode == .dirty {
            let events = Double(Swift.max(run.eventNanoseconds.count, 1))
            // The brush reads the bytes it visits and writes the ones it changes (the
            // damage spans, composited below); the compositor reads a mask byte and an
            // 8-byte pair and writes 4 bytes per pixel; a pixel the stroke painted, the
            // same but the mask byte, whose value the brush held. Lines the 4K painter
            // asks for ahead (the next stroke's, by this one's motion) count when that
            // stroke uses them; where the pen turned they are not counted.
            let bytes = (Double(run.brushBytes) + Double(run.compositedPixels) * (1 + 1 + 8 + 4)
                         - Double(run.paintedPixels)) / events
            let floorNs = bytes / (2 * copyBytesPerSecond) * 1e9
            line.append(("bytes_per_event", "\(Int(bytes.rounded()))"))
            line.append(("copy_gbps", format3(copyBytesPerSecond / 1e9)))
            // A trace whose events touch nothing (every stroke off the canvas) has no floor.
            line.append(("floor_ratio", floorNs > 0 ? format3(nsPerEvent(run) / floorNs) : "none"))
            if let cairoRun {
                line.append(("ratio", format3(nsPerEvent(cairoRun) / nsPerEvent(run))))
                // The medians of the events: steadier than the means when others share the machine.
                let p50 = percentile(run.eventNanoseconds.sorted(), 0.5)
                line.append(("ratio_p50", format3(percentile(cairoRun.eventNanoseconds.sorted(), 0.5) / Swift.max(p50, 0.001))))
            }
        }
        emit(line)
    }
    if let cairoRun { emit(fields("cairo+pixman", "dirty", cairoRun)) }
}

/// A grid of `columns` x `rows` rectangles over `size`: a 4% margin around, 2% gaps.
func zoneGrid(_ grid: (columns: Int, rows: Int), in size: PixelSize) -> [ZoneOutline] {
    let w = Double(size.width), h = Double(size.height)
    let marginX = w * 0.04, marginY = h * 0.04, gapX = w * 0.02, gapY = h * 0.02
    let cellW = (w - 2 * marginX - Double(grid.columns - 1) * gapX) / Double(grid.columns)
    let cellH = (h - 2 * marginY - Double(grid.rows - 1) * gapY) / Double(grid.rows)
    return (0..<grid.rows).flatMap { r in
        (0..<grid.columns).map { c in
            ZoneOutline(x: marginX + Double(c) * (cellW + gapX), y: marginY + Double(r) * (cellH + gapY),
                        width: cellW, height: cellH)
        }
    }
}

func format3(_ v: Double) -> String { fixed(v, 3) }
func format4(_ v: Double) -> String { fixed(v, 4) }

/// `v` with `digits` decimals, rounded half away from zero.
func fixed(_ v: Double, _ digits: Int) -> String {
    guard v.isFinite, abs(v) < 1e15 else { return "\(v)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((abs(v) * scale).rounded())
    let whole = scaled / Int(scale), fraction = String(scaled % Int(scale))
    return (v < 0 && scaled != 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
}
