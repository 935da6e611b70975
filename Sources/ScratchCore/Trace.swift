/// A recorded scratching gesture (format: docs/traces.md, version 1): the
/// pointer positions a window would receive, in device pixels, with the brush radius.
///
///     let trace = try Trace(parsing: text, name: "card-1080p.trace")
///     let canvas = try ScratchCanvas(cover: c, prize: p, layout: .bgrx, brush: trace.initialBrush)
///     trace.replay(on: canvas) { dirty in canvas.composite(dirty, into: framebuffer) }
public struct Trace: Equatable, Sendable {
    public enum Record: Equatable, Sendable {
        case brush(Double)
        case down(Point)
        case move(Point)
        case up
    }

    /// The card's size in device pixels.
    public var canvas: PixelSize
    public var records: [Record]

    public init(canvas: PixelSize, records: [Record]) {
        self.canvas = canvas
        self.records = records
    }

    /// The largest canvas side a trace may declare.
    public static let maximumSide = 16384

    /// Parses a trace. Every problem is a `TraceError` naming the file and the line.
    public init(parsing text: String, name: String) throws(TraceError) {
        var canvas: PixelSize?
        var records: [Record] = []
        var sawHeader = false
        var hasBrush = false
        var lineNumber = 0

        var lastContentLine = 1
        // "\r\n" is one Character in Swift: both line endings are separators.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            func fail(_ problem: String) -> TraceError { TraceError(file: name, line: lineNumber, problem: problem) }
            if line.isEmpty || line.first == "#" { continue }
            lastContentLine = lineNumber
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard !fields.contains(where: \.isEmpty) else {
                throw fail("fields must be separated by single spaces")
            }
            let keyword = fields[0]
            let arguments = fields.dropFirst()

            func expectArguments(_ count: Int, _ usage: String) throws(TraceError) {
                guard arguments.count == count else { throw fail("expected `\(usage)`") }
            }
            func number(_ field: Substring, _ what: String) throws(TraceError) -> Double {
                guard let value = Trace.parseDecimal(field) else {
                    throw fail("\(what) is not a finite decimal number: `\(field.prefix(40))`")
                }
                return value
            }
            func point(_ usage: String) throws(TraceError) -> Point {
                try expectArguments(2, usage)
                guard canvas != nil else { throw fail("`\(keyword)` before the `canvas` line") }
                guard hasBrush else { throw fail("`\(keyword)` before any `brush` line") }
                let i = arguments.startIndex
                return Point(x: try number(arguments[i], "X"), y: try number(arguments[i + 1], "Y"))
            }

            if !sawHeader {
                guard keyword == "scratch-trace" else { throw fail("not a scratch trace: the first line must be `scratch-trace 1`") }
                try expectArguments(1, "scratch-trace 1")
                guard arguments.first == "1" else { throw fail("unsupported trace version `\(arguments.first!.prefix(20))`; this reader knows version 1") }
                sawHeader = true
                continue
            }
            switch keyword {
            case "canvas":
                try expectArguments(2, "canvas W H")
                guard canvas == nil else { throw fail("a second `canvas` line") }
                let i = arguments.startIndex
                guard let w = Trace.parseSide(arguments[i]), let h = Trace.parseSide(arguments[i + 1]) else {
                    throw fail("canvas sides must be whole numbers from 1 to \(Trace.maximumSide)")
                }
                canvas = PixelSize(width: w, height: h)
            case "brush":
                try expectArguments(1, "brush R")
                let r = try number(arguments[arguments.startIndex], "the brush radius")
                guard r > 0 else { throw fail("the brush radius must be greater than 0") }
                records.append(.brush(r))
                hasBrush = true
            case "down":
                records.append(.down(try point("down X Y")))
            case "move":
                records.append(.move(try point("move X Y")))
            case "up":
                try expectArguments(0, "up")
                records.append(.up)
            case "scratch-trace":
                throw fail("a second `scratch-trace` header")
            default:
                throw fail("unknown record `\(keyword.prefix(40))`")
            }
        }
        guard sawHeader else { throw TraceError(file: name, line: 1, problem: "empty: the first line must be `scratch-trace 1`") }
        guard let canvas else { throw TraceError(file: name, line: lastContentLine, problem: "no `canvas` line") }
        self.canvas = canvas
        self.records = records
    }

    /// The radius of the first `brush` record.
    public var initialBrush: Brush {
        for case .brush(let r) in records { if let brush = try? Brush(radius: r) { return brush } }
        return try! Brush(radius: 1)
    }

    /// Drawing events: each `down`, and each `move` inside a stroke.
    public var eventCount: Int {
        var count = 0, pressed = false
        for record in records {
            switch record {
            case .down: count += 1; pressed = true
            case .move: if pressed { count += 1 }
            case .up: pressed = false
            case .brush: break
            }
        }
        return count
    }

    /// Plays the trace into the canvas, calling `afterEvent` with the rectangle that each
    /// drawing event changed. `drawingInto` gives, by the index of each record, the
    /// framebuffer its stroke may paint into as it goes (see `ScratchCanvas.penMove`), or
    /// nil for the stroke to keep its damage for `compositeChanges` (the default).
    public func replay(on canvas: ScratchCanvas, afterEvent: (PixelRect) -> Void = { _ in },
                       drawingInto target: (_ record: Int) -> Framebuffer? = { _ in nil }) {
        for (i, record) in records.enumerated() {
            switch record {
            case .brush(let r): if let brush = try? Brush(radius: r) { canvas.brush = brush }
            case .down(let p): afterEvent(canvas.penDown(at: p, drawingInto: target(i)))
            case .move(let p): if canvas.isPenDown { afterEvent(canvas.penMove(to: p, drawingInto: target(i))) }
            case .up: canvas.penUp()
            }
        }
    }

    /// The trace as text, in the format it was read from.
    public func serialized(comment: String? = nil) -> String {
        var out = "scratch-trace 1\n"
        if let comment { out += "# \(comment.split(whereSeparator: \.isNewline).joined(separator: " "))\n" }
        out += "canvas \(canvas.width) \(canvas.height)\n"
        for record in records {
            switch record {
            case .brush(let r): out += "brush \(Trace.format(r))\n"
            case .down(let p): out += "down \(Trace.format(p.x)) \(Trace.format(p.y))\n"
            case .move(let p): out += "move \(Trace.format(p.x)) \(Trace.format(p.y))\n"
            case .up: out += "up\n"
            }
        }
        return out
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && Swift.abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// A plain decimal: optional sign, digits, optional fraction and exponent. No hex,
    /// no `nan`, no `inf`, nothing that overflows to infinity.
    public static func parseDecimal(_ field: Substring) -> Double? {
        guard field.utf8.count <= 64 else { return nil }
        var sawDigit = false
        for (i, c) in field.utf8.enumerated() {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): _ = i
            default: return nil
            }
        }
        guard sawDigit, let value = Double(field), value.isFinite else { return nil }
        return value
    }

    /// A whole number from 1 to `maximumSide`, digits only.
    public static func parseSide(_ field: Substring) -> Int? {
        guard field.utf8.count <= 6, field.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int(field), (1...maximumSide).contains(value) else { return nil }
        return value
    }
}

/// A problem in a trace, with the file and the line where it was found.
public struct TraceError: Error, Equatable, CustomStringConvertible {
    public let file: String
    /// The 1-based line, or nil for a problem with the file as a whole.
    public let line: Int?
    public let problem: String

    public init(file: String, line: Int?, problem: String) {
        self.file = file
        self.line = line
        self.problem = problem
    }

    public var description: String { line.map { "\(file):\($0): \(problem)" } ?? "\(file): \(problem)" }
}
