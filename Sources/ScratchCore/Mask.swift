import CInstructions

/// The scratch mask: one byte per pixel, 0 = covered, 255 = revealed. The brush joins it
/// by max, so a stroke never covers anything again and scratching twice changes nothing.
///
/// It also is the reveal meter: it counts the pixels at or above 128 as the brush writes
/// them, so the revealed fraction is exact at every moment and never needs a rescan.
///
///     var mask = Mask(size: PixelSize(width: 640, height: 480))
///     let brush = try Brush(radius: 20)
///     let dirty = mask.stroke(from: Point(x: 10, y: 10), to: Point(x: 200, y: 90), brush: brush)
///     print(dirty, mask.revealedFraction)
public struct Mask {
    public let size: PixelSize
    var storage: MaskStorage
    /// The card's scratch zones and their meters; nil for a card that scratches anywhere.
    public internal(set) var zones: MaskZones?

    /// Pixels that are revealed from the start and do not count toward the fraction:
    /// where the cover is fully transparent.
    public let unscratchablePixels: Int

    /// A mask with every pixel covered.
    public init(size: PixelSize) {
        precondition(size.width > 0 && size.height > 0, "a mask needs at least one pixel")
        self.size = size
        self.storage = MaskStorage(size: size)
        self.unscratchablePixels = 0
    }

    /// A covered mask, revealed from the start where the cover's alpha is 0: there the
    /// prize shows through, and those pixels do not count toward the revealed fraction.
    public init(revealingTransparentPixelsOf cover: RGBAImage) {
        self.init(size: cover.size, keeping: nil, cover: cover)
    }

    /// A mask for `cover`, carrying over the scratched state of `previous` scaled to the
    /// cover's size (for a window that changed size).
    public init(size: PixelSize, keeping previous: Mask?, cover: RGBAImage?) {
        self.size = size
        self.storage = previous.map { $0.storage.resampled(from: $0.size, to: size) } ?? MaskStorage(size: size)
        var transparent = 0
        if let cover {
            precondition(cover.size == size, "the cover must be the mask's size")
            let p = storage.bytes
            cover.bytes.withUnsafeBufferPointer { rgba in
                for i in 0..<size.pixelCount where rgba[i * 4 + 3] == 0 {
                    p[i] = 255
                    transparent += 1
                }
            }
        }
        self.unscratchablePixels = transparent
        storage.recount()
    }

    /// The mask value of one pixel.
    public subscript(x: Int, y: Int) -> UInt8 {
        precondition(PixelRect(size: size).contains(x: x, y: y), "pixel (\(x), \(y)) is outside \(size)")
        return storage.bytes[y * size.width + x]
    }

    /// How many mask bytes the brush has visited so far (the sum of the row spans it
    /// read): for benchmarks that count the bytes an event touches.
    public var bytesVisitedByBrush: Int { storage.visited }

    /// How many pixels have a mask value of 128 or more, unscratchable ones included.
    public var revealedPixels: Int { storage.revealed }

    /// The exact fraction of the scratchable pixels whose mask value is 128 or more;
    /// 1 when nothing is scratchable. With zones, of the zones' pixels.
    public var revealedFraction: Double {
        if let zones { return zones.revealedFraction }
        let scratchable = size.pixelCount - unscratchablePixels
        return scratchable == 0 ? 1 : Double(storage.revealed - unscratchablePixels) / Double(scratchable)
    }

    /// Strokes the capsule from `a` to `b` (a dot when they are equal) into the mask and
    /// returns the rectangle of pixels whose value changed (`.empty` when none did).
    /// Points anywhere are accepted: what falls outside the canvas is clipped; a stroke
    /// with a coordinate that is not a number changes nothing.
    @discardableResult
    public mutating func stroke(from a: Point, to b: Point, brush: Brush) -> PixelRect {
        var painter = MaskOnly()
        return stroke(from: a, to: b, brush: brush, painter: &painter)
    }

    /// Strokes like `stroke(from:to:brush:)` and paints each pixel it changes straight
    /// away through `painter`, instead of keeping it as damage for a later composite.
    mutating func stroke<Painter: StrokePainter>(from a: Point, to b: Point, brush: Brush,
                                                 painter: inout Painter) -> PixelRect {
        guard !a.x.isNaN, !a.y.isNaN, !b.x.isNaN, !b.y.isNaN else { return .empty }
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        if zones != nil { return strokeZones(from: a, to: b, radius: brush.radius, painter: &painter) }
        return storage.stroke(from: a, to: b, radius: brush.radius, size: size, painter: &painter)
    }

    /// Reveals every pixel; returns the rectangle that changed.
    @discardableResult
    public mutating func revealAll() -> PixelRect {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let changed = storage.fill(255, size: size)
        if zones != nil { zones!.recount(storage.bytes, width: size.width) }
        return changed
    }

    /// Counts every pixel as changed, for the next `takeDamage` (a picture replaced
    /// under a mask that did not change).
    mutating func damageAll() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        for row in 0..<size.height { storage.addDamage(row: row, first: 0, last: size.width - 1) }
        storage.damagedRows = 0..<size.height
    }

    /// Hands over what changed since the last call, row by row: `body(row, first, last)`
    /// for each row whose columns `first ... last` hold every change in it. Returns the
    /// bounding rectangle of those spans. A compositor that repaints just these spans
    /// touches far fewer pixels than one that repaints the bounding rectangle.
    @discardableResult
    public mutating func takeDamage(_ body: (_ row: Int, _ first: Int, _ last: Int) -> Void) -> PixelRect {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        var bounds = PixelRect.empty
        storage.takeDamage { row, first, last in
            bounds.formUnion(PixelRect(x: first, y: row, width: last - first + 1, height: 1))
            body(row, first, last)
        }
        return bounds
    }

    /// Calls `body` with the mask's bytes, row by row, `size.width` bytes per row.
    public func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(storage.bytes))
    }

    /// Counts the revealed pixels from scratch: for tests of the incremental meter.
    public func recountRevealedPixels() -> Int {
        withUnsafeBytes { $0.reduce(0) { $0 + ($1 >= 128 ? 1 : 0) } }
    }
}

/// The integer nearest to `x` (ties to even) without the range checks of `Int(_:)`:
/// adding 1.5·2^52 leaves the rounded value in the low bits of the sum. Only for
/// |x| < 2^31; callers clamp first.
@inline(__always)
func nearestInt(_ x: Double) -> Int {
    Int(Int32(truncatingIfNeeded: (x + 6_755_399_441_055_744.0).bitPattern))
}

/// The larger of two numbers that are not NaN. `Swift.max` answers its second argument
/// when they are equal (+0 and -0 included), which the processor's max instruction does
/// not, so the compiler makes it a compare and a branch; this one is a single `maxsd`.
@inline(__always)
func maximum(_ a: Double, _ b: Double) -> Double { a > b ? a : b }

/// The smaller of two numbers that are not NaN, in a single `minsd` (see `maximum`).
@inline(__always)
func minimum(_ a: Double, _ b: Double) -> Double { a < b ? a : b }

/// `minimum` of each lane, in a single `minpd` (`pointwiseMin` keeps NaN's rules and
/// comes out as branches per lane).
@inline(__always)
func lesser(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> SIMD2<Double> { a.replacing(with: b, where: b .< a) }

/// `maximum` of each lane, in a single `maxpd`.
@inline(__always)
func greater(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> SIMD2<Double> { a.replacing(with: b, where: b .> a) }

/// The mask's bytes and its running count, behind the copy-on-write of `Mask`.
final class MaskStorage {
    let size: PixelSize
    let bytes: UnsafeMutableBufferPointer<UInt8>
    var revealed = 0
    /// Bytes the brush has visited (read), summed over its row spans.
    var visited = 0
    /// The end point and radius of the last stroke when it was drawn whole (not clipped):
    /// its end disk is in the mask, so a stroke that starts there can skip the pixels
    /// behind its start, whose nearest point is that start (see `stroke`).
    var lastEnd: (point: Point, radius: Double)?
    /// What changed since the damage was last taken: for each row, the first and last
    /// column changed (first > last when none), and the rows that have any.
    let damageSpans: UnsafeMutableBufferPointer<Int32>
    /// The brush's plan for each row of a stroke (first and last column, first and last
    /// of the inside): scratch space, allocated once.
    let rowPlan: UnsafeMutableBufferPointer<Int32>
    var damagedRows = 0..<0

    init(size: PixelSize) {
        self.size = size
        bytes = .allocate(capacity: size.pixelCount)
        bytes.initialize(repeating: 0)
        damageSpans = .allocate(capacity: size.height * 2)
        rowPlan = .allocate(capacity: size.height * 4)
        for row in 0..<size.height { clearDamage(row: row) }
    }

    deinit {
        bytes.deallocate()
        damageSpans.deallocate()
        rowPlan.deallocate()
    }

    func copy() -> MaskStorage {
        let other = MaskStorage(size: size)
        _ = other.bytes.update(fromContentsOf: bytes)
        _ = other.damageSpans.update(fromContentsOf: damageSpans)
        other.damagedRows = damagedRows
        other.revealed = revealed
        other.visited = visited
        other.lastEnd = lastEnd
        return other
    }

    @inline(__always)
    func clearDamage(row: Int) {
        damageSpans[row * 2] = Int32.max
        damageSpans[row * 2 + 1] = -1
    }

    /// Widens one row's damage span; the caller widens `damagedRows` to hold the row
    /// (once per stroke, not once per row).
    @inline(__always)
    func addDamage(row: Int, first: Int, last: Int) {
        damageSpans[row * 2] = Swift.min(damageSpans[row * 2], Int32(truncatingIfNeeded: first))
        damageSpans[row * 2 + 1] = Swift.max(damageSpans[row * 2 + 1], Int32(truncatingIfNeeded: last))
    }

    /// Calls `body(row, first, last)` for each damaged row, then forgets the damage.
    func takeDamage(_ body: (Int, Int, Int) -> Void) {
        for row in damagedRows {
            let first = Int(damageSpans[row * 2]), last = Int(damageSpans[row * 2 + 1])
            if first <= last {
                body(row, first, last)
                clearDamage(row: row)
            }
        }
        damagedRows = 0..<0
    }

    func recount() {
        revealed = bytes.reduce(0) { $0 + ($1 >= 128 ? 1 : 0) }
    }

    /// Bilinear resampling, for a canvas that changed size.
    func resampled(from old: PixelSize, to new: PixelSize) -> MaskStorage {
        let out = MaskStorage(size: new)
        let sx = Double(old.width) / Double(new.width), sy = Double(old.height) / Double(new.height)
        for y in 0..<new.height {
            let fy = Swift.min(Swift.max((Double(y) + 0.5) * sy - 0.5, 0), Double(old.height - 1))
            let y0 = Int(fy), y1 = Swift.min(y0 + 1, old.height - 1), wy = fy - Double(y0)
            for x in 0..<new.width {
                let fx = Swift.min(Swift.max((Double(x) + 0.5) * sx - 0.5, 0), Double(old.width - 1))
                let x0 = Int(fx), x1 = Swift.min(x0 + 1, old.width - 1), wx = fx - Double(x0)
                func at(_ i: Int, _ j: Int) -> Double { Double(bytes[j * old.width + i]) }
                let top = at(x0, y0) * (1 - wx) + at(x1, y0) * wx
                let bottom = at(x0, y1) * (1 - wx) + at(x1, y1) * wx
                out.bytes[y * new.width + x] = UInt8(Swift.min(255, (top * (1 - wy) + bottom * wy + 0.5)))
            }
        }
        out.recount()
        return out
    }

    func fill(_ value: UInt8, size: PixelSize) -> PixelRect {
        var changed = false
        for i in bytes.indices where bytes[i] != value {
            bytes[i] = value
            changed = true
        }
        recount()
        guard changed else { return .empty }
        for row in 0..<size.height { addDamage(row: row, first: 0, last: size.width - 1) }
        damagedRows = 0..<size.height
        return PixelRect(size: size)
    }

    /// The brush, row by row: each row's span within reach of the segment is computed
    /// directly; its inner part (coverage 1) is filled 8 bytes at a time, and only the
    /// anti-aliased ends need a distance per pixel. A stroke that continues the last one
    /// skips what that one already revealed (see `continues`). The painter is told each
    /// row's columns while planning, each edge pixel's value, and the inside it filled.
    func stroke<Painter: StrokePainter, Clip: RowClip>(from a: Point, to b: Point, radius r: Double, size: PixelSize,
                                                       painter: inout Painter, clip: Clip = NoClip()) -> PixelRect {
        let width = size.width, height = size.height
        let outer = r + 0.5                 // coverage > 0 strictly inside this distance
        let inner = r - 0.5                 // coverage is 1 within this distance
        // Keep the arithmetic finite and in range, whatever came in.
        let far = 1e12
        func tame(_ p: Point) -> Point {
            Point(x: Swift.min(Swift.max(p.x, -far), far), y: Swift.min(Swift.max(p.y, -far), far))
        }
        let margin = Swift.min(outer, 1e9) + 2
        guard let (p, q) = clipSegment(tame(a), tame(b), minX: -margin, minY: -margin,
                                       maxX: Double(width) + margin, maxY: Double(height) + margin)
        else { return .empty }
        let chord = CapsuleChord(from: p, to: q)
        // A stroke that goes on from where the last one ended, with the same radius: every
        // pixel whose nearest point of the segment is A (projection t <= 0) would get the
        // coverage of the disk around A, which the last stroke already gave it (the mask
        // joins by max and never goes down). Such pixels are skipped: with one pixel of
        // slack, the columns where the projection is below -1 pixel. A dot there changes
        // nothing at all. Half the work of a stroke made of short segments.
        let continues = lastEnd.map { $0.point == a && $0.radius == r } ?? false && p == a
        lastEnd = p == a && q == b ? (b, r) : nil
        if continues && chord.lengthSquared == 0 { return .empty }

        let rowLo = Swift.max(0, Swift.min(p.y, q.y) - outer - 0.5)
        let rowHi = Swift.min(Double(height - 1), Swift.max(p.y, q.y) + outer - 0.5)
        guard rowLo <= rowHi else { return .empty }
        var firstRow = Int(rowLo.rounded(.up)), lastRow = Int(rowHi)
        if Clip.clips {
            // A zone's rows only.
            firstRow = Swift.max(firstRow, clip.firstRow)
            lastRow = Swift.min(lastRow, clip.lastRow)
        }

        var minX = Int.max, maxX = Int.min, minY = Int.max, maxY = Int.min
        var revealedNow = revealed
        var visitedNow = visited
        let base = bytes.baseAddress!
        let lastColumn = width - 1
        let columnLimit = Double(width)
        // A mask too big for the caches (4K: 8 MB) misses on most rows a stroke reaches;
        // a smaller one is mostly cached, and asking for its lines only costs (card-4k
        // -3 to -5% per event, card-1080p and mouse-1000hz +1 to +2% when always on).
        let prefetchesRows = bytes.count > 4 << 20

        // Pixel columns whose centres lie in [lo, hi], clipped to the canvas; first > last
        // when none (also for lo > hi: ceil(lo - 0.5) > floor(hi - 0.5)). Clamped first, so
        // the conversions without range checks stay in range, infinities included.
        @inline(__always) func columns(_ lo: Double, _ hi: Double) -> (first: Int, last: Int) {
            let l = minimum(maximum(lo - 0.5, -1), columnLimit)
            let h = minimum(maximum(hi - 0.5, -1), columnLimit)
            let nl = nearestInt(l), nh = nearestInt(h)
            let first = Double(nl) < l ? nl &+ 1 : nl        // ceil(l)
            let last = Double(nh) > h ? nh &- 1 : nh         // floor(h)
            return (Swift.max(first, 0), Swift.min(last, lastColumn))
        }
        // The same for the two lanes of a pair of chords at once. Clamping to [-0.5, width]
        // and [-1, width - 0.5] instead of [-1, width] gives the same columns, already
        // within [0, width] and [-1, width - 1]. The nearest integer's bits come from the
        // same sum as in `nearestInt`; a comparison's true lane is all ones, -1.
        let magic = SIMD2<Double>(repeating: 6_755_399_441_055_744.0)
        @inline(__always) func columns(_ lo: SIMD2<Double>, _ hi: SIMD2<Double>)
            -> (first: SIMD2<Int64>, last: SIMD2<Int64>) {
            let l = lesser(greater(lo - 0.5, SIMD2(repeating: -0.5)), SIMD2(repeating: columnLimit))
            let h = lesser(greater(hi - 0.5, SIMD2(repeating: -1)), SIMD2(repeating: columnLimit - 0.5))
            let ml = l + magic, mh = h + magic
            let up = (ml - magic) .< l, down = (mh - magic) .> h
            return (unsafeBitCast(ml, to: SIMD2<Int64>.self) &- unsafeBitCast(up, to: SIMD2<Int64>.self),
                    unsafeBitCast(mh, to: SIMD2<Int64>.self) &+ unsafeBitCast(down, to: SIMD2<Int64>.self))
        }
        /// A lane of those: the column is in its low 32 bits.
        @inline(__always) func column(_ bits: Int64) -> Int { Int(Int32(truncatingIfNeeded: bits)) }
        let reach = Reach(outer: outer, inner: inner, length: chord.length)

        if firstRow <= lastRow {
            // Two passes. The first plans every row (its columns, and which of them are
            // inside) from the geometry alone, reading no mask bytes; the second visits
            // the mask with the plan. Two small loops measured about 5% faster than one
            // loop doing both.
            let plan = rowPlan
            for row in firstRow...lastRow {
                let cy = Double(row) + 0.5
                let both = chord.spans(y: cy, reach: reach)
                let found = columns(both.lo, both.hi)       // lanes: outer, inner
                var first = column(found.first[0]), last = column(found.last[0])
                var fillFirst = column(found.first[1]), fillLast = column(found.last[1])
                if continues {
                    // Keep (x - ax)·dx + h·dy > -|AB| for pixel centres x = column + 0.5,
                    // that is column > c; nearest(c) - 1 <= floor(c) and nearest(c) + 1 >
                    // c keep a column of slack on the safe side.
                    let ha = cy - p.y
                    let slack = -chord.length - ha * chord.dy
                    let c = minimum(maximum(p.x + slack * chord.inverseDx - 0.5, -2), columnLimit + 2)
                    var allowedFirst = 0, allowedLast = lastColumn
                    if chord.dx > 0 { allowedFirst = Swift.max(0, nearestInt(c) &- 1) }
                    else if chord.dx < 0 { allowedLast = Swift.min(lastColumn, nearestInt(c) &+ 1) }
                    else if slack >= 0 { allowedFirst = width }
                    // Pixels within `inner` of A are 255 already: the last stroke ended
                    // there with this radius. Where those columns join the ones skipped
                    // behind A, skip them too: for a short segment most of each row's
                    // inside (the first 8-byte words, 255 from the last stroke) is there.
                    let (skipFirst, skipLast) = columns(both.diskA.lo, both.diskA.hi)
                    if skipFirst <= skipLast {
                        if chord.dx > 0 {
                            if skipFirst <= allowedFirst { allowedFirst = Swift.max(allowedFirst, skipLast &+ 1) }
                        } else if chord.dx < 0 {
                            if skipLast >= allowedLast { allowedLast = Swift.min(allowedLast, skipFirst &- 1) }
                        }
                    }
                    first = Swift.max(first, allowedFirst)
                    last = Swift.min(last, allowedLast)
                }
                if Clip.clips {
                    // A zone's columns only: the inside and the edges shrink with them.
                    let zone = clip.span(row: row)
                    first = Swift.max(first, zone.first)
                    last = Swift.min(last, zone.last)
                }
                fillFirst = Swift.max(fillFirst, first)
                fillLast = Swift.min(fillLast, last)
                if fillFirst > fillLast { fillFirst = last &+ 1; fillLast = last }
                if prefetchesRows && first <= last {
                    // Ask for the row's mask lines now: the second pass finds them in cache.
                    scratch_prefetch_write(base + (row &* width &+ first))
                    scratch_prefetch_write(base + (row &* width &+ last))
                }
                if first <= last { painter.prefetch(row: row, first: first, last: last) }
                let k = (row &- firstRow) &* 4
                plan[k] = Int32(truncatingIfNeeded: first)
                plan[k &+ 1] = Int32(truncatingIfNeeded: last)
                plan[k &+ 2] = Int32(truncatingIfNeeded: fillFirst)
                plan[k &+ 3] = Int32(truncatingIfNeeded: fillLast)
            }

            for row in firstRow...lastRow {
                let k = (row &- firstRow) &* 4
                let first = Int(plan[k]), last = Int(plan[k &+ 1])
                if first > last { continue }
                let fillFirst = Int(plan[k &+ 2]), fillLast = Int(plan[k &+ 3])
                let cy = Double(row) + 0.5
                let line = base + row &* width
                visitedNow &+= last &- first &+ 1
                var rowMin = Int.max, rowMax = Int.min

                // The anti-aliased ends: a distance per pixel. No branch on whether the
                // pixel changes: the max is stored back, and the meter and the row's
                // bounds move only when it grew.
                @inline(__always) func edge(_ x: Int) {
                    let old = line[x]
                    if old == 255 { return }
                    let coverage = outer - chord.distance(x: Double(x) + 0.5, y: cy)
                    // Int(c·255 + 0.5) for c clamped to [0, 1], as floor of a value >= 0.5.
                    let scaled = minimum(maximum(coverage, 0), 1) * 255 + 0.5
                    let n = nearestInt(scaled)
                    let value = Double(n) > scaled ? n &- 1 : n
                    let grew = value > Int(old)
                    let now = grew ? UInt8(truncatingIfNeeded: value) : old
                    line[x] = now
                    painter.blend(row: row, x: x, value: now)
                    // The count of pixels >= 128 goes up by one when the top bit turns on.
                    revealedNow &+= grew ? (value &>> 7) &- Int(old &>> 7) : 0
                    rowMin = grew ? Swift.min(rowMin, x) : rowMin
                    rowMax = grew ? Swift.max(rowMax, x) : rowMax
                }
                var x = first
                while x < fillFirst { edge(x); x &+= 1 }

                // The inside: 255, eight bytes at a time, skipping what is already 255.
                if fillFirst <= fillLast {
                    let raw = UnsafeMutableRawPointer(line)
                    var fillMin = Int.max, lastAt = -1, lastMissing: UInt64 = 0
                    // Sets the bytes of the word at `at` that `bits` selects to 255.
                    @inline(__always) func word(at: Int, bits: UInt64) {
                        let old = raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                        let missing = ~old & bits       // little-endian: byte k is bits 8k ..< 8k+8
                        if missing != 0 {
                            // Bytes below 128 have their top bit clear: add those bits up.
                            let low = (missing & 0x8080_8080_8080_8080) &>> 7
                            revealedNow &+= Int(truncatingIfNeeded: (low &* 0x0101_0101_0101_0101) &>> 56)
                            raw.storeBytes(of: old | bits, toByteOffset: at, as: UInt64.self)
                            fillMin = Swift.min(fillMin, at &+ missing.trailingZeroBitCount &>> 3)
                            lastAt = at
                            lastMissing = missing
                        }
                    }
                    let end = fillLast &+ 1
                    var i = fillFirst
                    while i &+ 8 <= end { word(at: i, bits: ~0); i &+= 8 }
                    if i < end {
                        // The last 1 to 7 bytes: one word of the row that holds them,
                        // masked. Preferably the word that starts at them, so it does not
                        // overlap the word just stored (a load that straddles an earlier
                        // store waits for it to reach the cache instead of being forwarded);
                        // at the end of a row, the word that ends with them.
                        let at = i &+ 8 <= width ? i : end &- 8
                        if at >= 0 {
                            let bits = ((1 as UInt64) &<< UInt64(truncatingIfNeeded: (end &- i) &* 8) &- 1) &<< UInt64(truncatingIfNeeded: (i &- at) &* 8)
                            word(at: at, bits: bits)
                            // It reads bytes beside the span too.
                            visitedNow &+= Swift.max(0, first &- at) &+ Swift.max(0, at &+ 8 &- (last &+ 1))
                        } else {
                            while i < end {
                                let old = line[i]
                                if old != 255 {
                                    if old < 128 { revealedNow += 1 }
                                    line[i] = 255
                                    painter.blend(row: row, x: i, value: 255)
                                    fillMin = Swift.min(fillMin, i)
                                    rowMax = Swift.max(rowMax, i)
                                }
                                i += 1
                            }
                        }
                    }
                    rowMin = Swift.min(rowMin, fillMin)
                    if lastAt >= 0 {
                        let fillMax = lastAt &+ 7 &- lastMissing.leadingZeroBitCount &>> 3
                        rowMax = Swift.max(rowMax, fillMax)
                        painter.reveal(row: row, first: fillMin, last: fillMax)
                    }
                    x = end
                }
                while x <= last { edge(x); x &+= 1 }

                if rowMin <= rowMax {
                    if !Painter.paints { addDamage(row: row, first: rowMin, last: rowMax) }
                    minX = Swift.min(minX, rowMin)
                    maxX = Swift.max(maxX, rowMax)
                    if minY == Int.max { minY = row }
                    maxY = row
                }
            }
        }
        if minY <= maxY && !Painter.paints {
            damagedRows = damagedRows.isEmpty ? minY..<(maxY + 1)
                : Swift.min(damagedRows.lowerBound, minY)..<Swift.max(damagedRows.upperBound, maxY + 1)
        }
        revealed = revealedNow
        visited = visitedNow
        return minY == Int.max ? .empty : PixelRect(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    }
}
