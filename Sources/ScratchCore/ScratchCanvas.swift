/// One scratch card in the engine: a cover, a prize and the mask between them, with the
/// pen that scratches it. Everything the user sees is `lerp(cover, prize, mask)`.
///
///     let canvas = try ScratchCanvas(cover: cover, prize: prize, layout: .bgrx,
///                                    brush: Brush(radius: 20))
///     var dirty = canvas.penDown(at: Point(x: 40, y: 40))
///     dirty.formUnion(canvas.penMove(to: Point(x: 90, y: 60)))
///     canvas.composite(dirty, into: framebuffer)
public final class ScratchCanvas {
    public let size: PixelSize
    public let layout: PixelLayout
    /// The mask, and with it the reveal meter.
    public internal(set) var mask: Mask
    /// The brush for the next stroke.
    public var brush: Brush

    /// Mutable only for a zone's prize (`setPrize`); unchecked, so the reads on every
    /// event cost no dynamic exclusivity check (they never overlap a write: one thread).
    @exclusivity(unchecked) var pixels: CardPixels
    /// The cover as given, for `reset()` (where it is transparent the prize shows);
    /// nil for an opaque one.
    private let coverImage: RGBAImage?
    /// The pens that are down: each one's last point and, on a card with zones, the zone
    /// it scratches (decided at its press: one touch is one pick).
    private var pens = Pens()
    private var pendingSpans: [Compositor.Span] = []
    /// What strokes painted straight into a framebuffer since the last `compositeChanges`.
    private var painted = PixelRect.empty
    private var paintedPixels = 0

    /// Whether a stroke given a framebuffer paints into it at once. On a canvas too big
    /// for the caches (over 4 << 20 = 4,194,304 pixels; 4K is 8.3 million) that measured
    /// 8-10% less time per event on card-4k than keeping the damage and compositing it
    /// after; on smaller canvases it measured -5 to +4%, so they keep the damage. Tests
    /// set it.
    var paintsDirectly: Bool

    /// - Parameter keeping: a mask whose scratched state carries over, scaled to this size.
    /// - Throws: `CanvasError.sizeMismatch` unless cover and prize have the same size.
    public init(cover: RGBAImage, prize: RGBAImage, layout: PixelLayout, brush: Brush,
                keeping previous: Mask? = nil) throws(CanvasError) {
        guard cover.size == prize.size else { throw .sizeMismatch(cover: cover.size, prize: prize.size) }
        size = cover.size
        self.layout = layout
        self.brush = brush
        self.coverImage = cover
        self.pixels = CardPixels(cover: cover, prize: prize, layout: layout)
        self.mask = Mask(size: cover.size, keeping: previous, cover: cover)
        self.paintsDirectly = cover.size.pixelCount > 4 << 20
    }

    /// A canvas over an opaque cover and a prize already drawn in the framebuffer's
    /// layout (`LayoutImage`): no conversion, every pixel scratchable.
    /// - Parameter keeping: a mask whose scratched state carries over, scaled to this size.
    /// - Throws: `CanvasError.sizeMismatch` unless cover and prize have the same size.
    public init(cover: LayoutImage, prize: LayoutImage, brush: Brush, keeping previous: Mask? = nil) throws(CanvasError) {
        guard cover.size == prize.size else { throw .sizeMismatch(cover: cover.size, prize: prize.size) }
        precondition(cover.layout == prize.layout, "cover and prize must be in the same layout")
        size = cover.size
        layout = cover.layout
        self.brush = brush
        coverImage = nil
        pixels = CardPixels(cover: cover, prize: prize)
        mask = Mask(size: cover.size, keeping: previous, cover: nil)
        paintsDirectly = cover.size.pixelCount > 4 << 20
    }

    /// A canvas over the opaque cover `framebuffer` shows now (a drawing made straight
    /// into it) and the prize `prize()` returns, in the framebuffer's layout, every pixel
    /// scratchable. `prize` is called once the cover's pixels are taken: it may wait
    /// for a drawing on another thread. Without `keeping`, the framebuffer already shows
    /// this canvas (nothing is scratched): the first frame needs no composite.
    /// - Parameter keeping: a mask whose scratched state carries over, scaled to this size.
    public init(coverShownIn framebuffer: Framebuffer, prize: () -> LayoutImage, brush: Brush, keeping previous: Mask? = nil) {
        size = framebuffer.size
        layout = framebuffer.layout
        self.brush = brush
        coverImage = nil
        pixels = CardPixels(coverIn: framebuffer, prize: prize)
        mask = Mask(size: size, keeping: previous, cover: nil)
        paintsDirectly = size.pixelCount > 4 << 20
    }

    /// The exact fraction of the scratchable area revealed so far.
    public var revealedFraction: Double { mask.revealedFraction }

    /// True while any pen is down.
    public var isPenDown: Bool { !pens.isEmpty }

    /// True while the given pen is down.
    public func isPenDown(_ pen: Int) -> Bool { pens.isDown(pen) }

    /// Starts a stroke: a dot at `point`. Returns the rectangle that changed. Each pen
    /// (the mouse, or one finger of several) strokes from its own last point.
    ///
    /// With `framebuffer` (of the canvas's size and layout, and free to write: not being
    /// read by a display server), the changed pixels are painted into it at once, row by
    /// row while the brush is there, instead of waiting for `compositeChanges`, which then
    /// only reports them.
    ///
    /// On a card with zones the pen scratches the zone under `point` alone until it is
    /// lifted; pressed in a gap, on the artwork, or in a zone it may not scratch (opened,
    /// locked), it scratches nothing (`Pens`).
    @discardableResult
    public func penDown(at point: Point, pen: Int = 0, drawingInto framebuffer: Framebuffer? = nil) -> PixelRect {
        let segment = pens.press(pen, at: point, on: &mask)
        return stroke(from: segment.from, to: segment.to, drawingInto: framebuffer)
    }

    /// Continues the pen's stroke from its last point to `point`; ignored while it is up.
    /// `framebuffer` as for `penDown`.
    @discardableResult
    public func penMove(to point: Point, pen: Int = 0, drawingInto framebuffer: Framebuffer? = nil) -> PixelRect {
        guard let segment = pens.move(pen, to: point, on: &mask) else { return .empty }
        return stroke(from: segment.from, to: segment.to, drawingInto: framebuffer)
    }

    private func stroke(from a: Point, to b: Point, drawingInto framebuffer: Framebuffer?) -> PixelRect {
        guard paintsDirectly, let framebuffer, framebuffer.size == size, framebuffer.layout == layout else {
            return mask.stroke(from: a, to: b, brush: brush)
        }
        // The next stroke's lines are asked for where this one's motion leads; not for a
        // dot, and not for a jump (or a coordinate that is not a number).
        let dx = b.x - a.x, dy = b.y - a.y
        let moved = Swift.abs(dx) < 1024 && Swift.abs(dy) < 1024 && (dx != 0 || dy != 0)
        let ahead = moved ? (dx: Int(dx.rounded()), dy: Int(dy.rounded())) : nil
        let rect = pixels.bytes.withUnsafeBytes { pairs in
            var painter = DirectPainter(pairs: pairs.baseAddress!, into: framebuffer,
                                        width: size.width, height: size.height, ahead: ahead)
            let rect = mask.stroke(from: a, to: b, brush: brush, painter: &painter)
            paintedPixels += painter.painted
            return rect
        }
        painted.formUnion(rect)
        return rect
    }

    /// Ends the pen's stroke.
    public func penUp(pen: Int = 0) { pens.lift(pen) }

    /// Ends every stroke.
    public func allPensUp() { pens.liftAll() }

    /// Reveals the whole card; returns the rectangle that changed.
    @discardableResult
    public func revealAll() -> PixelRect { mask.revealAll() }

    /// Covers the card again, as new (its zones too, if it has them).
    public func reset() {
        pens.liftAll()
        let zones = mask.zones
        mask = coverImage.map { Mask(revealingTransparentPixelsOf: $0) } ?? Mask(size: size)
        if let zones { mask.setZones(zones.outlines, touchLimit: zones.touchLimit) }
    }

    /// Writes every pixel whose mask changed since the last call into the framebuffer,
    /// row span by row span, and returns the bounding rectangle of what was written (the
    /// area to put on screen), how many pixels were written, and of those how many the
    /// strokes had painted already (given a framebuffer: see `penMove`).
    @discardableResult
    public func compositeChanges(into framebuffer: Framebuffer) -> (rect: PixelRect, pixels: Int, painted: Int) {
        pendingSpans.removeAll(keepingCapacity: true)
        let rect = mask.takeDamage { row, first, last in
            pendingSpans.append(Compositor.Span(row: row, first: first, last: last))
        }
        Compositor.prefetch(pixels, into: framebuffer, spans: pendingSpans)
        let composited = Compositor.composite(pixels, mask: mask, into: framebuffer, spans: pendingSpans)
        defer { painted = .empty; paintedPixels = 0 }
        return (rect.union(painted), composited + paintedPixels, paintedPixels)
    }

    /// Writes what the card shows inside `rect` (clipped to the canvas and the
    /// framebuffer) into the framebuffer, which must be in this canvas's layout.
    public func composite(_ rect: PixelRect, into framebuffer: Framebuffer) {
        Compositor.composite(pixels, mask: mask, rect: rect, into: framebuffer)
    }
}

public enum CanvasError: Error, Equatable, CustomStringConvertible {
    case sizeMismatch(cover: PixelSize, prize: PixelSize)

    public var description: String {
        switch self {
        case .sizeMismatch(let c, let p): "the cover (\(c)) and the prize (\(p)) must have the same size"
        }
    }
}
