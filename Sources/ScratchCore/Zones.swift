/// The outline of a scratch zone in device pixels: a rectangle, or the ellipse inscribed
/// in it. A pixel belongs to the zone when its centre lies inside the outline (on a
/// rectangle's left or top edge counts, on its right or bottom edge does not).
public struct ZoneOutline: Hashable, Sendable {
    public enum Shape: String, Hashable, Sendable { case rectangle, ellipse }

    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var shape: Shape

    public init(x: Double, y: Double, width: Double, height: Double, shape: Shape = .rectangle) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.shape = shape
    }

    /// The columns of `row` whose pixel centres lie inside, clipped to `0 ..< width`
    /// columns; first > last when none.
    func columns(row: Int, canvasWidth: Int) -> (first: Int, last: Int) {
        let cy = Double(row) + 0.5
        var lo: Double, hi: Double       // centres x + 0.5 in [lo, hi) (rectangle) or [lo, hi]
        switch shape {
        case .rectangle:
            guard cy >= y, cy < y + height else { return (1, 0) }
            lo = x; hi = x + width
            // Columns c with lo <= c + 0.5 < hi.
            let first = Swift.max(0, Int((lo - 0.5).rounded(.up)))
            let last = Swift.min(canvasWidth - 1, Int((hi - 0.5).rounded(.up)) - 1)
            return (first, last)
        case .ellipse:
            let rx = width / 2, ry = height / 2
            guard rx > 0, ry > 0 else { return (1, 0) }
            let v = (cy - (y + ry)) / ry
            guard v * v <= 1 else { return (1, 0) }
            let half = rx * (1 - v * v).squareRoot()
            lo = x + rx - half; hi = x + rx + half
            let first = Swift.max(0, Int((lo - 0.5).rounded(.up)))
            let last = Swift.min(canvasWidth - 1, Int((hi - 0.5).rounded(.down)))
            return (first, last)
        }
    }
}

/// The zones of a mask and their meters: which pixels each zone holds (one span per row:
/// both shapes are convex), how many of them are revealed, whether the brush may write
/// there, and the order in which zones first took ink. The brush writes only inside
/// scratchable zones; with `touchLimit`, no more than that many zones ever take ink.
public struct MaskZones: Sendable {
    public let outlines: [ZoneOutline]
    /// The bounding box of each zone's pixels (`.empty` for a zone with none).
    public let bounds: [PixelRect]
    /// How many pixels each zone holds.
    public let pixelCounts: [Int]
    /// How many of each zone's pixels have a mask value of 128 or more.
    public internal(set) var revealedCounts: [Int]
    /// Whether the brush may write in each zone (false: locked).
    public internal(set) var scratchable: [Bool]
    /// The zones in the order they first had a pixel changed by the brush.
    public internal(set) var touchOrder: [Int] = []
    /// At most this many zones take ink; a stroke leaves the others alone. nil: no limit.
    public internal(set) var touchLimit: Int?
    /// Which zones the next stroke may write in (its pen's, `Pens`).
    var reach = ZoneReach.any

    /// Per zone, the first and last column of each of its rows from `bounds[i].y`, as
    /// Int32 pairs: what the brush clips its rows with.
    let spans: [[Int32]]
    var touched: [Bool]

    init(outlines: [ZoneOutline], size: PixelSize) {
        self.outlines = outlines
        var bounds: [PixelRect] = [], counts: [Int] = [], spans: [[Int32]] = []
        for outline in outlines {
            let top = Swift.max(0, Int(outline.y.rounded(.down)) - 1)
            let bottom = Swift.min(size.height - 1, Int((outline.y + outline.height).rounded(.up)) + 1)
            var rows: [(Int, Int, Int)] = []
            if top <= bottom {
                for row in top...bottom {
                    let c = outline.columns(row: row, canvasWidth: size.width)
                    if c.first <= c.last { rows.append((row, c.first, c.last)) }
                }
            }
            guard let firstRow = rows.first?.0, let lastRow = rows.last?.0 else {
                bounds.append(.empty); counts.append(0); spans.append([]); continue
            }
            var table = [Int32](repeating: 0, count: (lastRow - firstRow + 1) * 2)
            for k in 0..<(lastRow - firstRow + 1) { table[k * 2] = 1; table[k * 2 + 1] = 0 }
            var minX = Int.max, maxX = Int.min, count = 0
            for (row, first, last) in rows {
                table[(row - firstRow) * 2] = Int32(first)
                table[(row - firstRow) * 2 + 1] = Int32(last)
                minX = Swift.min(minX, first); maxX = Swift.max(maxX, last)
                count += last - first + 1
            }
            bounds.append(PixelRect(minX: minX, minY: firstRow, maxX: maxX, maxY: lastRow))
            counts.append(count)
            spans.append(table)
        }
        self.bounds = bounds
        self.pixelCounts = counts
        self.spans = spans
        self.revealedCounts = Array(repeating: 0, count: outlines.count)
        self.scratchable = Array(repeating: true, count: outlines.count)
        self.touched = Array(repeating: false, count: outlines.count)
    }

    public var count: Int { outlines.count }

    /// The revealed fraction of zone `i` (1 for a zone with no pixels).
    public func revealedFraction(_ i: Int) -> Double {
        pixelCounts[i] == 0 ? 1 : Double(revealedCounts[i]) / Double(pixelCounts[i])
    }

    /// The revealed fraction of all zones' pixels together: the card's meter.
    public var revealedFraction: Double {
        let total = pixelCounts.reduce(0, +)
        return total == 0 ? 1 : Double(revealedCounts.reduce(0, +)) / Double(total)
    }

    /// Whether zone `i` has taken ink.
    public func isTouched(_ i: Int) -> Bool { touched[i] }

    /// The zone whose pixels hold pixel (x, y), if any.
    public func zone(atX x: Int, y: Int) -> Int? {
        for i in outlines.indices where bounds[i].contains(x: x, y: y) {
            let k = (y - bounds[i].y) * 2
            if x >= Int(spans[i][k]) && x <= Int(spans[i][k + 1]) { return i }
        }
        return nil
    }

    /// Calls `body(row, first, last)` for each row of zone `i`'s pixels.
    public func forEachSpan(of i: Int, _ body: (_ row: Int, _ first: Int, _ last: Int) -> Void) {
        let table = spans[i], top = bounds[i].y
        var k = 0
        while k < table.count {
            let first = Int(table[k]), last = Int(table[k + 1])
            if first <= last { body(top + k / 2, first, last) }
            k += 2
        }
    }

    /// Counts each zone's revealed pixels from the mask's bytes.
    mutating func recount(_ bytes: UnsafeMutableBufferPointer<UInt8>, width: Int) {
        for i in outlines.indices {
            var n = 0
            forEachSpan(of: i) { row, first, last in
                for x in first...last where bytes[row * width + x] >= 128 { n += 1 }
            }
            revealedCounts[i] = n
            if n > 0 && !touched[i] { touched[i] = true; touchOrder.append(i) }
        }
    }
}

/// How the brush clips each row of a stroke: not at all (a card without zones), or to
/// one zone's span. The brush is generic over it, so the unclipped brush is the same
/// code as before zones existed.
protocol RowClip {
    static var clips: Bool { get }
    var firstRow: Int { get }
    var lastRow: Int { get }
    /// The columns the brush may write on `row` (first > last: none).
    func span(row: Int) -> (first: Int, last: Int)
}

struct NoClip: RowClip {
    static var clips: Bool { false }
    var firstRow: Int { Int.min }
    var lastRow: Int { Int.max }
    @inline(__always) func span(row: Int) -> (first: Int, last: Int) { (Int.min, Int.max) }
}

/// One zone's spans, rows `firstRow ... lastRow`.
struct ZoneClip: RowClip {
    static var clips: Bool { true }
    let spans: UnsafePointer<Int32>
    let firstRow: Int
    let lastRow: Int
    @inline(__always) func span(row: Int) -> (first: Int, last: Int) {
        let k = (row &- firstRow) &* 2
        return (Int(spans[k]), Int(spans[k &+ 1]))
    }
}

/// Where a picture of `source` size sits when fitted whole into `target`, centred: one
/// scale for both axes, and the offset of its top-left corner. A promoter's ticket
/// artwork is placed so, and its zones with it (`ZoneCard.outlines(in:)`).
public struct Fitted: Equatable, Sendable {
    public let scale: Double
    public let x: Double
    public let y: Double

    public init(_ source: PixelSize, into target: PixelSize) {
        let scale = Swift.min(Double(target.width) / Double(Swift.max(source.width, 1)),
                              Double(target.height) / Double(Swift.max(source.height, 1)))
        self.scale = scale
        x = (Double(target.width) - Double(source.width) * scale) / 2
        y = (Double(target.height) - Double(source.height) * scale) / 2
    }

    /// `outline`, given in the source's points, in the target's pixels.
    public func place(_ outline: ZoneOutline) -> ZoneOutline {
        ZoneOutline(x: x + outline.x * scale, y: y + outline.y * scale,
                    width: outline.width * scale, height: outline.height * scale, shape: outline.shape)
    }
}
