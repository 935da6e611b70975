/// The kiosk's invitation to touch: a soft band of light that sweeps across the foil,
/// then rests. It lightens what the framebuffer already shows, so the card underneath
/// is composited as usual and the band costs only the pixels it passes over.
///
///     let shimmer = Shimmer(canvas: size)
///     if let band = shimmer.band(at: t) { ... composite band.bounds, then shimmer.apply(band, to: fb) }
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

    /// The pixels a band centred at `centre` touches.
    public func bounds(centre: Double) -> PixelRect {
        let minX = centre - halfWidth, maxX = centre + halfWidth + slant * Double(canvas.height)
        let lo = Int(Swift.max(0, Swift.min(Double(canvas.width), minX.rounded(.down))))
        let hi = Int(Swift.max(0, Swift.min(Double(canvas.width), maxX.rounded(.up))))
        return PixelRect(x: lo, y: 0, width: hi - lo, height: canvas.height)
    }

    /// Lightens the framebuffer under the band centred at `centre`, within `clip`.
    public func apply(centre: Double, to framebuffer: Framebuffer, clip: PixelRect) {
        let area = clip.intersection(bounds(centre: centre)).intersection(PixelRect(size: framebuffer.size))
        guard !area.isEmpty else { return }
        let width = halfWidth
        for row in area.y..<area.maxY {
            let mid = centre + slant * (Double(row) + 0.5)
            let first = Swift.max(area.x, Int(Swift.max(0, mid - width)))
            let last = Swift.min(area.maxX - 1, Int(Swift.max(0, mid + width)))
            guard first <= last else { continue }
            let line = (framebuffer.baseAddress + row * framebuffer.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in first...last {
                let d = Swift.abs(Double(x) + 0.5 - mid) / width
                guard d < 1 else { continue }
                // A smooth bump: 1 at the centre, 0 at the edges.
                let bump = (1 - d * d) * (1 - d * d)
                let lift = Int((bump * strength * 256).rounded())
                guard lift > 0 else { continue }
                let o = x * 4
                for c in [framebuffer.layout.redOffset, framebuffer.layout.greenOffset, framebuffer.layout.blueOffset] {
                    let v = Int(line[o + c])
                    line[o + c] = UInt8(v + ((255 - v) * lift) >> 8)
                }
            }
        }
    }
}
