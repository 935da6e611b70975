import ScratchCore

/// The strokes of the card on show, as the store saves them: what the pens did to the
/// canvas, in order, tagged with the canvas size and brush they did it at, so that a
/// restarted kiosk replays them through the engine and gets the same mask.
///
/// Text, one record a line, saved in batches (each batch starts with its `canvas` line,
/// so any run of whole batches replays on its own):
///
///     c 1920 1080 20          canvas width height, brush radius (device pixels)
///     d 0 360 240.5           pen 0 down at (360, 240.5)
///     m 0 374 245             pen 0 moves
///     u 0                     pen 0 up
///     o 4                     a key opened zone 4 of a ticket (a pick, at this point)
///
/// Coordinates are written in Swift's shortest form that reads back to the same
/// `Double`, so a replay strokes exactly the segments the window stroked. A new canvas
/// size (the window was resized) lifts every pen, as a resize does in the window; the
/// mask scratched so far carries over, resampled, as it does there.
///
///     var log = StrokeLog()
///     log.append(.canvas(size, brush: 20)); log.append(.down(pen: 0, Point(x: 3, y: 4)))
///     let text = log.text
///     let mask = try StrokeLog(parsing: text, name: "deal 7").replay(to: size) { Mask(size: $0, keeping: $1, cover: nil) }
public struct StrokeLog: Equatable, Sendable {
    public enum Record: Equatable, Sendable {
        /// From here on the canvas has this size and the brush this radius.
        case canvas(PixelSize, brush: Double)
        case down(pen: Int, Point)
        case move(pen: Int, Point)
        case up(pen: Int)
        /// A key opened zone `zone` of a ticket whole (a pick, when it was not started).
        case open(zone: Int)
    }

    public private(set) var records: [Record] = []

    /// The most records a log may hold (a card scratched for an hour at 1000 Hz has
    /// fewer), the most canvas sizes it may change between, the highest pen number.
    public static let maximumRecords = 4_000_000
    public static let maximumCanvasChanges = 64
    public static let maximumPen = 63
    /// The largest canvas a log may name: each side up to 16384, at most 2^26 pixels (8K).
    public static let maximumPixels = 1 << 26
    /// The largest brush radius, in device pixels.
    public static let maximumBrush = 100_000.0

    public init() {}

    public init(records: [Record]) { self.records = records }

    public mutating func append(_ record: Record) { records.append(record) }

    /// One record's line, without the newline.
    public static func line(_ record: Record) -> String {
        switch record {
        case let .canvas(size, brush): "c \(size.width) \(size.height) \(format(brush))"
        case let .down(pen, p): "d \(pen) \(format(p.x)) \(format(p.y))"
        case let .move(pen, p): "m \(pen) \(format(p.x)) \(format(p.y))"
        case let .up(pen): "u \(pen)"
        case let .open(zone): "o \(zone)"
        }
    }

    /// The records as text, a line each.
    public var text: String {
        var out = ""
        for record in records { out += Self.line(record); out += "\n" }
        return out
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && Swift.abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// Reads saved strokes; `name` (the store and the deal) goes into errors. Strict:
    /// anything but the four records, a stroke before the first canvas line, a pen out
    /// of range, a number that is not a plain finite decimal, too many records or canvas
    /// changes, is an error naming the line.
    public init(parsing text: String, name: String) throws(StrokeLogError) {
        var lineNumber = 0
        var sawCanvas = false
        var changes = 0
        var lastSize: PixelSize?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.isEmpty { continue }
            func fail(_ problem: String) -> StrokeLogError { StrokeLogError(name: name, line: lineNumber, problem: problem) }
            guard records.count < Self.maximumRecords else { throw fail("more than \(Self.maximumRecords) records") }
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            func pen() throws(StrokeLogError) -> Int {
                guard fields[1].utf8.count <= 2, fields[1].utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                      let pen = Int(fields[1]), pen <= Self.maximumPen else {
                    throw fail("pen must be a number from 0 to \(Self.maximumPen)")
                }
                return pen
            }
            func point() throws(StrokeLogError) -> Point {
                guard let x = Trace.parseDecimal(fields[2]), let y = Trace.parseDecimal(fields[3]) else {
                    throw fail("coordinates must be plain finite decimals")
                }
                return Point(x: x, y: y)
            }
            switch fields[0] {
            case "c":
                guard fields.count == 4, let w = Trace.parseSide(fields[1]), let h = Trace.parseSide(fields[2]),
                      w * h <= Self.maximumPixels else {
                    throw fail("a canvas line is: c WIDTH HEIGHT BRUSH (sides 1 to \(Trace.maximumSide), at most \(Self.maximumPixels) pixels)")
                }
                guard let r = Trace.parseDecimal(fields[3]), r > 0, r <= Self.maximumBrush else {
                    throw fail("the brush radius must be a number greater than 0 and at most \(Int(Self.maximumBrush))")
                }
                let size = PixelSize(width: w, height: h)
                if let lastSize, lastSize != size {
                    changes += 1
                    guard changes <= Self.maximumCanvasChanges else { throw fail("more than \(Self.maximumCanvasChanges) canvas sizes") }
                }
                lastSize = size
                sawCanvas = true
                records.append(.canvas(size, brush: r))
            case "d", "m":
                guard fields.count == 4 else { throw fail("a pen line is: \(fields[0]) PEN X Y") }
                guard sawCanvas else { throw fail("a stroke before the first canvas line") }
                let pen = try pen(), p = try point()
                records.append(fields[0] == "d" ? .down(pen: pen, p) : .move(pen: pen, p))
            case "u":
                guard fields.count == 2 else { throw fail("an up line is: u PEN") }
                guard sawCanvas else { throw fail("a stroke before the first canvas line") }
                records.append(.up(pen: try pen()))
            case "o":
                guard fields.count == 2, fields[1].utf8.count <= 2, fields[1].utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                      let zone = Int(fields[1]), zone < ZoneCard.maximumZones else {
                    throw fail("an open line is: o ZONE (a number from 0 to \(ZoneCard.maximumZones - 1))")
                }
                guard sawCanvas else { throw fail("a zone opened before the first canvas line") }
                records.append(.open(zone: zone))
            default:
                throw fail("unknown record \(JSONText.quoted(String(fields[0].prefix(20))))")
            }
        }
    }

    /// Replays the strokes into masks made by `newMask` and returns the mask at `size`:
    /// the last canvas's, carried to `size` when that differs (as a resize would), or a
    /// fresh one when there are no strokes. `newMask(size, previous)` is the mask a
    /// canvas of that size starts with, keeping `previous` (resampled) when given:
    /// `Mask(size:keeping:cover:)` with the cover at that size, as `ScratchCanvas` does.
    public func replay(to size: PixelSize, newMask: (PixelSize, Mask?) -> Mask) -> Mask {
        var mask: Mask?
        var brush: Brush?
        // Each pen scratches as the canvas's pens do: on a mask with zones, the zone it
        // was pressed in alone (`Pens`).
        var pens = Pens()
        for record in records {
            switch record {
            case let .canvas(canvasSize, radius):
                brush = try? Brush(radius: radius)
                if mask?.size != canvasSize {
                    mask = newMask(canvasSize, mask)
                    pens.liftAll()
                }
            case let .down(pen, p):
                guard let brush, mask != nil else { continue }
                let dot = pens.press(pen, at: p, on: &mask!)
                mask!.stroke(from: dot.from, to: dot.to, brush: brush)
            case let .move(pen, p):
                guard let brush, mask != nil, let segment = pens.move(pen, to: p, on: &mask!) else { continue }
                mask!.stroke(from: segment.from, to: segment.to, brush: brush)
            case let .up(pen):
                pens.lift(pen)
            case let .open(zone):
                // On a mask with zones (a ticket's), as the key did: the zone counts as
                // started where it comes in the order, and is revealed whole.
                guard let zones = mask?.zones, zone < zones.count else { continue }
                mask!.markTouched(zone)
                mask!.revealZone(zone)
            }
        }
        if let mask, mask.size == size { return mask }
        return newMask(size, mask)
    }
}

/// Saved strokes that do not read: which store and deal, which line, what is wrong.
public struct StrokeLogError: Error, Equatable, CustomStringConvertible {
    public let name: String
    public let line: Int
    public let problem: String

    public init(name: String, line: Int, problem: String) {
        self.name = name
        self.line = line
        self.problem = problem
    }

    public var description: String { "\(name): saved strokes, line \(line): \(problem)" }
}
