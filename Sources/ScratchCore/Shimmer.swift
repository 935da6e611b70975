/// The kiosk's invitation to touch: a soft band of light that sweeps across the foil,
/// then rests. It lightens what the framebuffer already shows, so the card underneath
/// is composited as usual and the band costs only the pixels it passes over.
///
///     let shimmer = Shimmer(canvas: size)
///     let now = shimmer.centre(at: t)
///     let area = shimmer.redraw(canvas, into: framebuffer, from: before, to: now)
public struct Shimmer: Sendable {
    public let canvas: PixelSize
    /// How long one sweep takes, and the rest between sweeps, in seconds.
    public var sweep: Double = 1.4
    public var rest: Double = 3.6
    /// How much the band's centre lightens toward white (0...1).
    public var strength: Double = 0.45
    /// The band's half width in pixels, measured along x.
    public let halfWidth: Double
    /// How far the band leans: x shifts by `slant` pixels per row.
    public let slant: Double = 0.5

    public init(canvas: PixelSize) {
        self.canvas = canvas
        halfWidth = Swift.max(12, Double(canvas.width) / 14)
    }

    /// Where the band is at time `t` (seconds since the card appeared): the x of its
    /// centre on row 0, or nil while it rests.
    public func centre(at t: Double) -> Double? {
        guard t >= 0 else { return nil }
        let cycle = sweep + rest
        let phase = t.truncatingRemainder(dividingBy: cycle)
        guard phase < sweep else { return nil }
        // From wholly left of the card to wholly right of it, leaning included.
        let start = -halfWidth - slant * Double(canvas.height)
        let end = Double(canvas.width) + halfWidth
        return start + (end - start) * (phase / sweep)
    }

    /// The columns of `row` that a band centred at `centre` lightens.
    public func span(row: Int, centre: Double) -> ClosedRange<Int>? {
        let mid = centre + slant * (Double(row) + 0.5)
        let lo = Swift.max(0, mid - halfWidth), hi = Swift.min(Double(canvas.width - 1), mid + halfWidth)
        guard lo <= hi else { return nil }
        return Int(lo)...Int(hi)
    }

    /// Moves the band on the screen from `old` to `new` (either may be nil: no band):
    /// row by row, composites the card where either band lies, then lightens under the
    /// new one. Returns the rectangle of what was redrawn.
    public func redraw(_ canvas: ScratchCanvas, into framebuffer: Framebuffer, from old: Double?, to new: Double?) -> PixelRect {
        guard old != nil || new != nil else { return .empty }
        // The bump's lift for each quarter-pixel offset from the band's centre line.
        let steps = Int(halfWidth * 4) + 1
        var lift = [Int](repeating: 0, count: steps)
        for i in 0..<steps {
            let d = Double(i) / 4 / halfWidth
            lift[i] = d < 1 ? Int(((1 - d * d) * (1 - d * d) * strength * 256).rounded()) : 0
        }
        let layout = framebuffer.layout
        var redrawn = PixelRect.empty
        return lift.withUnsafeBufferPointer { liftTable in
        for row in 0..<Swift.min(canvas.size.height, framebuffer.size.height) {
            let newSpan = new.flatMap { span(row: row, centre: $0) }
            let oldSpan = old.flatMap { span(row: row, centre: $0) }
            let first: Int, last: Int
            switch (oldSpan, newSpan) {
            case (nil, nil): continue
            case let (a?, nil), let (nil, a?): (first, last) = (a.lowerBound, a.upperBound)
            case let (a?, b?): (first, last) = (Swift.min(a.lowerBound, b.lowerBound), Swift.max(a.upperBound, b.upperBound))
            }
            let rowRect = PixelRect(x: first, y: row, width: last - first + 1, height: 1)
            canvas.composite(rowRect, into: framebuffer)
            redrawn.formUnion(rowRect)
            guard let newSpan, let centre = new else { continue }
            let mid = centre + slant * (Double(row) + 0.5)
            let line = (framebuffer.baseAddress + row * framebuffer.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in newSpan {
                let offset = Int(Swift.abs(Double(x) + 0.5 - mid) * 4)
                guard offset < steps else { continue }
                let k = liftTable[offset]
                guard k > 0 else { continue }
                let p = line + x * 4
                p[layout.redOffset] = UInt8(Int(p[layout.redOffset]) + ((255 - Int(p[layout.redOffset])) * k) >> 8)
                p[layout.greenOffset] = UInt8(Int(p[layout.greenOffset]) + ((255 - Int(p[layout.greenOffset])) * k) >> 8)
                p[layout.blueOffset] = UInt8(Int(p[layout.blueOffset]) + ((255 - Int(p[layout.blueOffset])) * k) >> 8)
            }
        }
        return redrawn
        }
    }
}
