import ScratchCore
import ScratchImage
import DoodleDocument

/// The doodle's two drawings over the picture: the document at the picture's resolution
/// (what is exported) and the view at the window's (what is shown), fitted to each other.
/// Each pen event strokes both; undo and clear go to both; a new window size fits the
/// view again and redraws the document's strokes into it.
final class DoodleDrawing {
    private let photo: RGBAImage
    /// Display pixels per point.
    private let scale: Double
    /// What is exported.
    let document: Doodle
    private var view: Doodle
    private var fit: DoodleFit
    static let background = RGBA(r: 0x30, g: 0x30, b: 0x30)

    /// The picture fitted within `area` (the screen) at `scale`.
    init(photo: RGBAImage, within area: PixelSize, scale: Double) {
        self.photo = photo
        self.scale = scale
        fit = DoodleFit(image: photo.size, within: area, scale: scale)
        document = Doodle(photo: photo)
        view = Doodle(photo: photo.scaledToFill(fit.view))
    }

    /// The view's size: the window's at first.
    var viewSize: PixelSize { fit.view }
    var isPenDown: Bool { view.isPenDown }

    /// A stroke starts at `point` (view pixels) in `colour`, `widthPoints` wide: the view's dirty area.
    func penDown(at point: Point, colour: RGBA, widthPoints: Double) -> PixelRect {
        let viewBrush = try! Brush(radius: widthPoints / 2 * scale)
        let documentBrush = try! Brush(radius: widthPoints / 2 * scale * fit.imagePixelsPerViewPixel)
        let dirty = view.penDown(at: point, colour: colour, brush: viewBrush)
        document.penDown(at: fit.toImage(point), colour: colour, brush: documentBrush)
        return dirty
    }

    func penMove(to point: Point) -> PixelRect {
        let dirty = view.penMove(to: point)
        document.penMove(to: fit.toImage(point))
        return dirty
    }

    func penUp() {
        view.penUp()
        document.penUp()
    }

    /// The last stroke undone: the view's area to repaint.
    func undo() -> PixelRect {
        defer { document.undo() }
        return view.undo()
    }

    /// Every stroke cleared: the view's area to repaint.
    func clear() -> PixelRect {
        defer { document.clear() }
        return view.clear()
    }

    /// A new window size: the view is fitted again and the drawing redrawn into it.
    func relayout(to size: PixelSize) {
        document.penUp()        // a resize ends the stroke in progress
        fit = DoodleFit(image: photo.size, within: size, scale: scale)
        view = Doodle(photo: photo.scaledToFill(fit.view))
        let viewPixelsPerImagePixel = 1 / fit.imagePixelsPerViewPixel
        for stroke in document.strokes {
            guard let brush = try? Brush(radius: stroke.brush.radius * viewPixelsPerImagePixel) else { continue }
            view.add(DoodleStroke(colour: stroke.colour, brush: brush, points: stroke.points.map(fit.toView)))
        }
    }

    /// Composites `area` of the view into `framebuffer`; outside the view (a window
    /// larger than the fitted picture), the background.
    func composite(_ area: PixelRect, into framebuffer: Framebuffer) {
        view.composite(area, into: framebuffer)
        let size = framebuffer.size
        framebuffer.fill(area.intersection(PixelRect(x: fit.view.width, y: 0, width: size.width, height: size.height)), Self.background)
        framebuffer.fill(area.intersection(PixelRect(x: 0, y: fit.view.height, width: size.width, height: size.height)), Self.background)
    }

    /// Composites `rect` of the view alone (under the swatch).
    func compositeView(_ rect: PixelRect, into framebuffer: Framebuffer) {
        view.composite(rect, into: framebuffer)
    }
}

extension Framebuffer {
    /// Fills `rect` with `colour`, opaque.
    func fill(_ rect: PixelRect, _ colour: RGBA) {
        guard !rect.isEmpty else { return }
        for y in rect.y..<rect.maxY {
            for x in rect.x..<rect.maxX { put(colour, x, y) }
        }
    }

    /// One pixel, opaque.
    @inline(__always)
    func put(_ c: RGBA, _ x: Int, _ y: Int) {
        let p = (baseAddress + y * bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
        p[layout.redOffset] = c.r
        p[layout.greenOffset] = c.g
        p[layout.blueOffset] = c.b
        p[layout.padOffset] = 255
    }
}
