import ScratchCore

/// One pen stroke of a doodle: a colour, a round brush and the points the pen went
/// through, in the document's pixels. One point is a dot; more are a polyline of
/// capsules (round caps and joints), exactly as `Mask.stroke` draws them.
public struct DoodleStroke: Equatable, Sendable {
    public var colour: RGBA
    public var brush: Brush
    public var points: [Point]

    public init(colour: RGBA, brush: Brush, points: [Point]) {
        self.colour = colour
        self.brush = brush
        self.points = points
    }

    /// The pixels this stroke may touch on a canvas of `size` (its points' box grown by
    /// the radius and the anti-aliased edge), clipped to the canvas.
    public func bounds(in size: PixelSize) -> PixelRect {
        let finite = points.filter(\.isFinite)
        guard !finite.isEmpty else { return .empty }
        let reach = brush.radius + 1
        let limit = Double(Swift.max(size.width, size.height)) + reach + 2
        func clamp(_ v: Double) -> Double { Swift.min(Swift.max(v, -limit), limit) }
        let minX = clamp(finite.map(\.x).min()! - reach), maxX = clamp(finite.map(\.x).max()! + reach)
        let minY = clamp(finite.map(\.y).min()! - reach), maxY = clamp(finite.map(\.y).max()! + reach)
        let rect = PixelRect(minX: Int(minX.rounded(.down)), minY: Int(minY.rounded(.down)),
                             maxX: Int(maxX.rounded(.up)), maxY: Int(maxY.rounded(.up)))
        return rect.intersection(PixelRect(size: size))
    }
}

/// A photo with a drawing over it: the photo plus an ordered list of strokes, at the
/// photo's own resolution. What it shows is the photo, then each stroke's coverage mask
/// (the anti-aliased capsule brush of `Mask`) composited in the stroke's colour, in
/// order. Consecutive strokes of one colour form a *run* whose coverage joins by max,
/// like the segments within one stroke, so overlapping lines of one colour show no
/// darker joints.
///
///     let doodle = Doodle(photo: photo)
///     var dirty = doodle.penDown(at: Point(x: 40, y: 40), colour: red, brush: try Brush(radius: 6))
///     dirty.formUnion(doodle.penMove(to: Point(x: 200, y: 90)))
///     doodle.penUp()
///     doodle.composite(dirty, into: framebuffer)
///     let merged = doodle.rendered()         // photo + drawing, for export
///     doodle.undo()
///
/// How it stays fast however many strokes there are:
/// - Drawing: the committed runs are flattened into one cached layer (`base`, RGBA);
///   the open run is one 8-bit mask over it. A pen event strokes the mask and changes
///   only the pixels the brush touched; a new colour flattens the previous run's box
///   into the layer.
/// - Undo: a checkpoint (the layer and the mask, shared copy-on-write, so taking one is
///   free and the copy is paid once by the next write) is kept every `interval`
///   strokes. Undo goes back to the last checkpoint at or before the new end and
///   replays at most `interval - 1` strokes. Checkpoints are thinned (the interval
///   doubles) when they would pass `checkpointBudget` bytes.
/// Undo restores the pixels exactly: byte-equal to drawing the remaining strokes afresh.
public final class Doodle {
    public let photo: RGBAImage
    public var size: PixelSize { photo.size }
    /// The strokes drawn, oldest first; the last one grows while the pen is down.
    public private(set) var strokes: [DoodleStroke] = []
    /// True between `penDown` and `penUp`.
    public private(set) var isPenDown = false

    /// Strokes between checkpoints (doubles as checkpoints are thinned).
    public private(set) var checkpointInterval: Int
    /// The most bytes the checkpoints may hold (each holds 5 bytes a pixel).
    public let checkpointBudget: Int
    /// How many checkpoints are kept now (the empty drawing is one).
    public var checkpointCount: Int { checkpoints.count }

    /// The drawing's state after some number of strokes.
    private struct State {
        /// The photo with every run but the open one, RGBA.
        var base: [UInt8]
        /// The open run's coverage, and its colour; nil when there is none.
        var run: Mask?
        var runColour: RGBA
        /// The pixels the open run has changed.
        var runBounds: PixelRect
    }

    private struct Checkpoint {
        let strokeCount: Int
        let state: State
    }

    private var state: State
    private var checkpoints: [Checkpoint]
    private var lastPoint: Point?

    /// - Parameters:
    ///   - checkpointInterval: strokes between undo checkpoints (at least 1).
    ///   - checkpointBudget: bytes the checkpoints may hold before they are thinned.
    public init(photo: RGBAImage, checkpointInterval: Int = 16, checkpointBudget: Int = 256 << 20) {
        self.photo = photo
        self.checkpointInterval = Swift.max(1, checkpointInterval)
        self.checkpointBudget = checkpointBudget
        state = State(base: photo.bytes, run: nil, runColour: .black, runBounds: .empty)
        checkpoints = [Checkpoint(strokeCount: 0, state: state)]
    }

    // MARK: - Drawing

    /// Starts a stroke with a dot at `point`; returns the rectangle that changed.
    @discardableResult
    public func penDown(at point: Point, colour: RGBA, brush: Brush) -> PixelRect {
        if isPenDown { penUp() }
        takeCheckpointIfDue()
        strokes.append(DoodleStroke(colour: colour, brush: brush, points: [point]))
        isPenDown = true
        lastPoint = point
        return draw(from: point, to: point, colour: colour, brush: brush)
    }

    /// Continues the stroke to `point`; ignored while the pen is up.
    @discardableResult
    public func penMove(to point: Point) -> PixelRect {
        guard isPenDown, let last = lastPoint, let stroke = strokes.last else { return .empty }
        strokes[strokes.count - 1].points.append(point)
        lastPoint = point
        return draw(from: last, to: point, colour: stroke.colour, brush: stroke.brush)
    }

    /// Ends the stroke.
    public func penUp() {
        isPenDown = false
        lastPoint = nil
    }

    /// Draws a whole stroke; returns the rectangle that changed.
    @discardableResult
    public func add(_ stroke: DoodleStroke) -> PixelRect {
        guard let first = stroke.points.first else { return .empty }
        var dirty = penDown(at: first, colour: stroke.colour, brush: stroke.brush)
        for point in stroke.points.dropFirst() { dirty.formUnion(penMove(to: point)) }
        penUp()
        return dirty
    }

    /// Removes the last stroke (ending it if the pen is down) and returns the rectangle
    /// to repaint; `.empty` when there is nothing to undo.
    @discardableResult
    public func undo() -> PixelRect {
        penUp()
        guard let removed = strokes.popLast() else { return .empty }
        let count = strokes.count
        checkpoints.removeAll { $0.strokeCount > count }
        let checkpoint = checkpoints.last!        // the one at 0 always stays
        state = checkpoint.state
        for stroke in strokes[checkpoint.strokeCount...] { replay(stroke) }
        return removed.bounds(in: size)
    }

    /// Removes every stroke; returns the rectangle to repaint.
    @discardableResult
    public func clear() -> PixelRect {
        penUp()
        guard !strokes.isEmpty else { return .empty }
        strokes.removeAll()
        checkpoints.removeSubrange(1...)
        state = checkpoints[0].state
        return PixelRect(size: size)
    }

    // MARK: - Pixels

    /// What the doodle shows at one pixel.
    public subscript(x: Int, y: Int) -> RGBA {
        precondition(PixelRect(size: size).contains(x: x, y: y), "pixel (\(x), \(y)) is outside \(size)")
        let i = (y * size.width + x) * 4
        let b = state.base
        let under = RGBA(r: b[i], g: b[i + 1], b: b[i + 2], a: b[i + 3])
        guard let run = state.run else { return under }
        return Doodle.over(under, state.runColour, Int(run[x, y]))
    }

    /// The photo with the drawing merged, at the photo's resolution.
    public func rendered() -> RGBAImage {
        var bytes = state.base
        if let run = state.run { Doodle.flatten(run, colour: state.runColour, rect: state.runBounds, into: &bytes, width: size.width) }
        return RGBAImage(size: size, bytes: bytes)!
    }

    /// The photo with `strokes` drawn afresh, with no cache and no checkpoints: the
    /// reference that the incremental drawing and undo must equal byte for byte.
    public static func render(photo: RGBAImage, strokes: [DoodleStroke]) -> RGBAImage {
        let doodle = Doodle(photo: photo, checkpointInterval: Int.max, checkpointBudget: 0)
        for stroke in strokes { doodle.add(stroke) }
        return doodle.rendered()
    }

    /// Writes what the doodle shows inside `rect` (clipped to the doodle and the
    /// framebuffer) into the framebuffer, in its layout. Alpha is dropped: a
    /// translucent photo shows as it would over black.
    public func composite(_ rect: PixelRect, into framebuffer: Framebuffer) {
        let rect = rect.intersection(PixelRect(size: size)).intersection(PixelRect(size: framebuffer.size))
        guard !rect.isEmpty else { return }
        let width = size.width
        let layout = framebuffer.layout
        let r = layout.redOffset, g = layout.greenOffset, b = layout.blueOffset, pad = layout.padOffset
        let colour = state.runColour
        func write(_ row: Int, _ maskRow: UnsafePointer<UInt8>?, _ base: UnsafePointer<UInt8>) {
            let out = (framebuffer.baseAddress + row * framebuffer.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in rect.x..<rect.maxX {
                let s = base + (row * width + x) * 4
                var pixel = RGBA(r: s[0], g: s[1], b: s[2], a: s[3])
                if let maskRow, maskRow[x] != 0 { pixel = Doodle.over(pixel, colour, Int(maskRow[x])) }
                if pixel.a != 255 {
                    pixel = RGBA(r: UInt8(blend255(0, Int(pixel.r), Int(pixel.a))), g: UInt8(blend255(0, Int(pixel.g), Int(pixel.a))),
                                 b: UInt8(blend255(0, Int(pixel.b), Int(pixel.a))))
                }
                let o = out + x * 4
                o[r] = pixel.r; o[g] = pixel.g; o[b] = pixel.b; o[pad] = 255
            }
        }
        state.base.withUnsafeBufferPointer { base in
            if let run = state.run {
                run.withUnsafeBytes { mask in
                    for row in rect.y..<rect.maxY { write(row, mask.baseAddress! + row * width, base.baseAddress!) }
                }
            } else {
                for row in rect.y..<rect.maxY { write(row, nil, base.baseAddress!) }
            }
        }
    }

    // MARK: - Inside

    private func takeCheckpointIfDue() {
        let count = strokes.count
        guard count % checkpointInterval == 0, checkpoints.last!.strokeCount != count else { return }
        checkpoints.append(Checkpoint(strokeCount: count, state: state))
        let perCheckpoint = Swift.max(1, size.pixelCount * 5)
        let allowed = Swift.max(2, checkpointBudget / perCheckpoint)
        while checkpoints.count > allowed && checkpointInterval < Int.max / 2 {
            checkpointInterval *= 2
            let interval = checkpointInterval
            checkpoints.removeAll { $0.strokeCount % interval != 0 }
        }
    }

    /// One segment (a dot when `a == b`) of the current stroke: a new colour first
    /// flattens the open run into the layer and starts a new one.
    private func draw(from a: Point, to b: Point, colour: RGBA, brush: Brush) -> PixelRect {
        if state.run == nil || state.runColour != colour {
            if let run = state.run {
                Doodle.flatten(run, colour: state.runColour, rect: state.runBounds, into: &state.base, width: size.width)
            }
            state.run = Mask(size: size)
            state.runColour = colour
            state.runBounds = .empty
        }
        let dirty = state.run!.stroke(from: a, to: b, brush: brush)
        state.runBounds.formUnion(dirty)
        return dirty
    }

    private func replay(_ stroke: DoodleStroke) {
        guard let first = stroke.points.first else { return }
        _ = draw(from: first, to: first, colour: stroke.colour, brush: stroke.brush)
        var last = first
        for point in stroke.points.dropFirst() {
            _ = draw(from: last, to: point, colour: stroke.colour, brush: stroke.brush)
            last = point
        }
    }

    /// `colour` with coverage `m` (0...255) over `under`, straight alpha. Over an opaque
    /// pixel this is `blend255` per channel: `round((under·(255-m) + colour·m) / 255)`.
    @inline(__always)
    static func over(_ under: RGBA, _ colour: RGBA, _ m: Int) -> RGBA {
        if m == 0 { return under }
        if under.a == 255 {
            return RGBA(r: UInt8(blend255(Int(under.r), Int(colour.r), m)),
                        g: UInt8(blend255(Int(under.g), Int(colour.g), m)),
                        b: UInt8(blend255(Int(under.b), Int(colour.b), m)))
        }
        // Translucent photo: the opaque colour at coverage m over it ("over", straight alpha).
        let ua = Int(under.a)
        let outA = m * 255 + ua * (255 - m)              // alpha x 255²
        guard outA > 0 else { return RGBA(r: 0, g: 0, b: 0, a: 0) }
        func channel(_ u: UInt8, _ c: UInt8) -> UInt8 {
            let numerator = Int(c) * m * 255 + Int(u) * ua * (255 - m)
            return UInt8(Swift.min(255, (numerator * 2 + outA) / (outA * 2)))
        }
        return RGBA(r: channel(under.r, colour.r), g: channel(under.g, colour.g), b: channel(under.b, colour.b),
                    a: UInt8((outA + 127) / 255))
    }

    /// Composites `colour` through `mask` onto the RGBA `bytes` inside `rect`.
    static func flatten(_ mask: Mask, colour: RGBA, rect: PixelRect, into bytes: inout [UInt8], width: Int) {
        let rect = rect.intersection(PixelRect(size: mask.size))
        guard !rect.isEmpty else { return }
        bytes.withUnsafeMutableBufferPointer { out in
            mask.withUnsafeBytes { m in
                for row in rect.y..<rect.maxY {
                    for x in rect.x..<rect.maxX {
                        let t = Int(m[row * width + x])
                        guard t != 0 else { continue }
                        let i = (row * width + x) * 4
                        let p = over(RGBA(r: out[i], g: out[i + 1], b: out[i + 2], a: out[i + 3]), colour, t)
                        out[i] = p.r; out[i + 1] = p.g; out[i + 2] = p.b; out[i + 3] = p.a
                    }
                }
            }
        }
    }
}

/// How a picture is fitted to a screen or window, and how points and lengths map
/// between the two: the view keeps the picture's aspect and is never larger than it.
///
///     let fit = DoodleFit(image: PixelSize(width: 1600, height: 1200), within: screen)
///     let inImage = fit.toImage(Point(x: 100.5, y: 40.5))
public struct DoodleFit: Equatable, Sendable {
    public let image: PixelSize
    public let view: PixelSize

    /// The largest view of the image's aspect (rounded to whole pixels, at least 1x1)
    /// inside `bounds`, and no larger than the image at `scale` device pixels per image
    /// pixel (an image is a 96-dpi picture: at scale 2 its points are 2 pixels each).
    public init(image: PixelSize, within bounds: PixelSize, scale: Double = 1) {
        let s = Swift.min(scale, Double(bounds.width) / Double(image.width), Double(bounds.height) / Double(image.height))
        self.image = image
        view = s == 1 ? image : PixelSize(width: Swift.max(1, Int((Double(image.width) * s).rounded())),
                                          height: Swift.max(1, Int((Double(image.height) * s).rounded())))
    }

    /// A fit with a given view size (stretched if the aspects differ).
    public init(image: PixelSize, view: PixelSize) {
        self.image = image
        self.view = view
    }

    public var scaleX: Double { Double(view.width) / Double(image.width) }
    public var scaleY: Double { Double(view.height) / Double(image.height) }
    /// Image pixels per view pixel (the mean of the two axes).
    public var imagePixelsPerViewPixel: Double { 2 / (scaleX + scaleY) }

    public func toImage(_ p: Point) -> Point { Point(x: p.x / scaleX, y: p.y / scaleY) }
    public func toView(_ p: Point) -> Point { Point(x: p.x * scaleX, y: p.y * scaleY) }
}

/// Where exports go when the user did not name a file.
public enum DoodleExport {
    /// `<name>-doodle.png` in `folder` for an input `…/<name>.png`, or
    /// `<name>-doodle-2.png`, `-3`, … : the first that `exists` says is free, so nothing,
    /// the input included, is ever overwritten.
    public static func defaultPath(forInput input: String, in folder: String, exists: (String) -> Bool) -> String {
        var name = input.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? "doodle"
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        let prefix = folder.isEmpty || folder == "." ? "" : (folder.hasSuffix("/") ? folder : folder + "/")
        var n = 1
        while true {
            let path = prefix + name + (n == 1 ? "-doodle.png" : "-doodle-\(n).png")
            if !exists(path) { return path }
            n += 1
        }
    }
}
