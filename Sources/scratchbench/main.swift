// scratchbench: replays stroke traces through the engine with no window and prints one
// line of key=value figures per trace and mode (DESIGN.md, Performance).
//
//   mode=dirty  strokes the mask and composites the dirty rectangle of every event;
//   mode=full   the same, but composites the whole canvas per event, as the iOS views
//               this grew from redraw the whole view on every touch.
//
// Both modes run in the same process, so their ratio is the figure to quote.
@preconcurrency import Glibc
import ScratchCore

let usage = """
    usage: scratchbench [--repeat N] [--mode dirty|full|both] TRACE...
      Replays each trace through the scratch engine and prints its figures.
      --repeat N   run each mode N times and report the median run (default 1)
      --mode M     which modes to run (default both)
      -h, --help   show this help
    """

struct Options {
    var repeats = 1
    var modes = [Mode.dirty, .full]
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
    var revealed = 0.0
    var total: UInt64 { eventNanoseconds.reduce(0, +) }
}

func replay(_ trace: Trace, on canvas: ScratchCanvas, into framebuffer: Framebuffer, mode: Mode) -> Run {
    canvas.reset()
    canvas.brush = trace.initialBrush
    var run = Run()
    run.eventNanoseconds.reserveCapacity(trace.eventCount)
    let whole = PixelRect(size: canvas.size)
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
            dirty = canvas.penDown(at: p)
        case .move(let p):
            guard canvas.isPenDown else { continue }
            dirty = canvas.penMove(to: p)
        }
        switch mode {
        case .dirty:
            // Only the pixels whose mask changed: a subset of the dirty rectangle, and
            // all of it that needs new pixels.
            _ = dirty
            run.compositedPixels += canvas.compositeChanges(into: framebuffer).pixels
        case .full:
            canvas.composite(whole, into: framebuffer)
            run.compositedPixels += whole.area
        }
        run.eventNanoseconds.append(now() - start)
    }
    run.revealed = Double(canvas.mask.revealedPixels) / Double(canvas.size.pixelCount)
    return run
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

    for mode in options.modes {
        var runs = (0..<options.repeats).map { _ in replay(trace, on: canvas, into: framebuffer, mode: mode) }
        runs.sort { $0.total < $1.total }
        let median = runs[runs.count / 2]
        let events = median.eventNanoseconds.count
        let sorted = median.eventNanoseconds.sorted()
        let fields: [(String, String)] = [
            ("engine", "scratchcard"),
            ("mode", mode.rawValue),
            ("trace", name),
            ("canvas", "\(trace.canvas)"),
            ("events", "\(events)"),
            ("total_ms", String(format3(Double(median.total) / 1e6))),
            ("ns_per_event", "\(events == 0 ? 0 : Int(median.total) / events)"),
            ("p50_us", format3(percentile(sorted, 0.5))),
            ("p99_us", format3(percentile(sorted, 0.99))),
            ("composited_mpix", format3(Double(median.compositedPixels) / 1e6)),
            ("revealed", format4(median.revealed)),
        ]
        print(fields.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        fflush(stdout)
    }
}

func format3(_ v: Double) -> String { fixed(v, 3) }
func format4(_ v: Double) -> String { fixed(v, 4) }

/// `v` with `digits` decimals, rounded half away from zero.
func fixed(_ v: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((abs(v) * scale).rounded())
    let whole = scaled / Int(scale), fraction = String(scaled % Int(scale))
    return (v < 0 && scaled != 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
}
