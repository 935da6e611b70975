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
    public private(set) var mask: Mask
    /// The brush for the next stroke.
    public var brush: Brush

    let pixels: CardPixels
    private let coverImage: RGBAImage
    /// The last point of each pen that is down.
    private var pens: [Int: Point] = [:]
    private var pendingSpans: [Compositor.Span] = []

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
    }

    /// The exact fraction of the scratchable area revealed so far.
    public var revealedFraction: Double { mask.revealedFraction }

    /// True while any pen is down.
    public var isPenDown: Bool { !pens.isEmpty }

    /// True while the given pen is down.
    public func isPenDown(_ pen: Int) -> Bool { pens[pen] != nil }

    /// Starts a stroke: a dot at `point`. Returns the rectangle that changed. Each pen
    /// (the mouse, or one finger of several) strokes from its own last point.
    @discardableResult
    public func penDown(at point: Point, pen: Int = 0) -> PixelRect {
        pens[pen] = point
        return mask.stroke(from: point, to: point, brush: brush)
    }

    /// Continues the pen's stroke from its last point to `point`; ignored while it is up.
    @discardableResult
    public func penMove(to point: Point, pen: Int = 0) -> PixelRect {
        guard let last = pens[pen] else { return .empty }
        pens[pen] = point
        return mask.stroke(from: last, to: point, brush: brush)
    }

    /// Ends the pen's stroke.
    public func penUp(pen: Int = 0) { pens[pen] = nil }

    /// Ends every stroke.
    public func allPensUp() { pens.removeAll(keepingCapacity: true) }

    /// Reveals the whole card; returns the rectangle that changed.
    @discardableResult
    public func revealAll() -> PixelRect { mask.revealAll() }

    /// Covers the card again, as new.
    public func reset() {
        pens.removeAll()
        mask = Mask(revealingTransparentPixelsOf: coverImage)
    }

    /// Writes every pixel whose mask changed since the last call into the framebuffer,
    /// row span by row span, and returns the bounding rectangle of what was written (the
    /// area to put on screen) and how many pixels were composited.
    @discardableResult
    public func compositeChanges(into framebuffer: Framebuffer) -> (rect: PixelRect, pixels: Int) {
        pendingSpans.removeAll(keepingCapacity: true)
        let rect = mask.takeDamage { row, first, last in
            pendingSpans.append(Compositor.Span(row: row, first: first, last: last))
        }
        Compositor.prefetch(pixels, into: framebuffer, spans: pendingSpans)
        let pixels = Compositor.composite(pixels, mask: mask, into: framebuffer, spans: pendingSpans)
        return (rect, pixels)
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
