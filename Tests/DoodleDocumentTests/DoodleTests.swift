import EngineTestSupport
import Foundation
import Testing
@testable import DoodleDocument
import ScratchCore

/// The doodle document: strokes in colour over a photo, against the brush formula
/// (computed independently in `referenceMask`), and undo against a fresh render.
struct DoodleTests {
    static let red = RGBA(r: 229, g: 57, b: 53)
    static let blue = RGBA(r: 30, g: 136, b: 229)
    static let green = RGBA(r: 67, g: 160, b: 71)

    /// A photo with every channel varying, opaque.
    static func photo(_ size: PixelSize) -> RGBAImage {
        var image = RGBAImage(size: size, filledWith: .white)
        for y in 0..<size.height {
            for x in 0..<size.width {
                image[x, y] = RGBA(r: UInt8((x * 7) & 255), g: UInt8((y * 5) & 255), b: UInt8(((x + y) * 3) & 255))
            }
        }
        return image
    }

    /// `colour` at coverage m (0...255) over an opaque pixel: round((u(255-m) + c·m) / 255).
    static func mix(_ under: RGBA, _ colour: RGBA, _ m: UInt8) -> RGBA {
        func channel(_ u: UInt8, _ c: UInt8) -> UInt8 {
            let under: Double = Double(u) * Double(255 - Int(m))
            let pen: Double = Double(c) * Double(m)
            return UInt8(((under + pen) / 255).rounded())
        }
        return RGBA(r: channel(under.r, colour.r), g: channel(under.g, colour.g), b: channel(under.b, colour.b))
    }

    /// The expected picture for layers of (colour, mask) over the photo, in order.
    static func expected(_ photo: RGBAImage, layers: [(RGBA, [UInt8])]) -> RGBAImage {
        var out = photo
        for (colour, mask) in layers {
            for y in 0..<photo.height {
                for x in 0..<photo.width { out[x, y] = mix(out[x, y], colour, mask[y * photo.width + x]) }
            }
        }
        return out
    }

    static func differingPixels(_ a: RGBAImage, _ b: RGBAImage) -> [String] {
        var out: [String] = []
        for y in 0..<a.height {
            for x in 0..<a.width where a[x, y] != b[x, y] { out.append("(\(x),\(y)): \(a[x, y]) vs \(b[x, y])") }
        }
        return Array(out.prefix(10))
    }

    @Test("a click makes a dot of the pen's width: the colour inside, the formula's edge", arguments: [0.5, 2.5, 6, 13.25])
    func dot(radius: Double) throws {
        let size = PixelSize(width: 48, height: 40)
        let photo = Self.photo(size)
        let doodle = Doodle(photo: photo)
        let centre = Point(x: 20.3, y: 18.7)
        let dirty = doodle.penDown(at: centre, colour: Self.red, brush: try Brush(radius: radius))
        doodle.penUp()
        let mask = referenceMask(size: size, strokes: [(centre, centre)], radius: radius)
        let want = Self.expected(photo, layers: [(Self.red, mask)])
        #expect(Self.differingPixels(doodle.rendered(), want).isEmpty)
        #expect(doodle.rendered() == want)
        // The dirty rectangle holds every changed pixel.
        for y in 0..<size.height {
            for x in 0..<size.width where mask[y * size.width + x] != 0 { #expect(dirty.contains(x: x, y: y)) }
        }
        // Full colour within radius - 0.5 of the centre; the photo beyond radius + 0.5.
        if radius >= 2 {
            #expect(doodle[20, 18] == Self.red)
            #expect(doodle[20 + Int(radius) + 2, 18] == photo[20 + Int(radius) + 2, 18])
        }
    }

    @Test("a drag draws a round-capped line of the pen's width, anti-aliased by the formula")
    func line() throws {
        let size = PixelSize(width: 80, height: 50)
        let photo = Self.photo(size)
        let doodle = Doodle(photo: photo)
        let brush = try Brush(radius: 5)
        let points = [Point(x: 10.5, y: 25.5), Point(x: 40, y: 25.5), Point(x: 70, y: 12)]
        doodle.add(DoodleStroke(colour: Self.blue, brush: brush, points: points))
        let mask = referenceMask(size: size, strokes: [(points[0], points[0]), (points[0], points[1]), (points[1], points[2])], radius: 5)
        #expect(Self.differingPixels(doodle.rendered(), Self.expected(photo, layers: [(Self.blue, mask)])).isEmpty)
        // Width: along x = 25 the rows within 4.5 of y = 25.5 are the pen's colour; rows at
        // distance 5 (y = 20 and 30: centres 20.5 and 30.5) are half covered.
        for y in 21...29 { #expect(doodle[25, y] == Self.blue, "row \(y)") }
        #expect(doodle[25, 20] == Self.mix(photo[25, 20], Self.blue, 128))
        #expect(doodle[25, 30] == Self.mix(photo[25, 30], Self.blue, 128))
        #expect(doodle[25, 19] == photo[25, 19] && doodle[25, 31] == photo[25, 31])
        // Round cap: 5 px beyond the start point, half covered; 6 px, untouched.
        #expect(doodle[5, 25] == Self.mix(photo[5, 25], Self.blue, 128))
        #expect(doodle[4, 25] == photo[4, 25])
    }

    @Test("overlapping strokes of one colour join by max: no darker joints; another colour goes over")
    func noDarkerJoints() throws {
        let size = PixelSize(width: 60, height: 60)
        let photo = RGBAImage(size: size, filledWith: .white)
        let brush = try Brush(radius: 4.3)
        let a = (Point(x: 5, y: 30.2), Point(x: 55, y: 30.2))
        let b = (Point(x: 30.4, y: 5), Point(x: 31, y: 55))
        let c = (Point(x: 8, y: 8), Point(x: 50, y: 50))
        let doodle = Doodle(photo: photo)
        doodle.add(DoodleStroke(colour: Self.red, brush: brush, points: [a.0, a.1]))
        doodle.add(DoodleStroke(colour: Self.red, brush: brush, points: [b.0, b.1]))
        let maskA = referenceMask(size: size, strokes: [a], radius: 4.3)
        let maskB = referenceMask(size: size, strokes: [b], radius: 4.3)
        let joined = zip(maskA, maskB).map { max($0, $1) }
        #expect(Self.differingPixels(doodle.rendered(), Self.expected(photo, layers: [(Self.red, joined)])).isEmpty)
        // Nowhere darker than either stroke alone: the red channel of white + red only goes
        // down with more coverage, so compare it against each single stroke.
        let alone = [Self.expected(photo, layers: [(Self.red, maskA)]), Self.expected(photo, layers: [(Self.red, maskB)])]
        for y in 0..<60 {
            for x in 0..<60 {
                let darkest = alone.map { Int($0[x, y].g) }.min()!
                #expect(Int(doodle[x, y].g) >= darkest, "(\(x), \(y))")
            }
        }
        // Composited twice, the edge where the strokes cross would be darker: the max is not.
        let twice = Self.expected(photo, layers: [(Self.red, maskA), (Self.red, maskB)])
        #expect(Self.differingPixels(doodle.rendered(), twice).count > 0)

        // A blue stroke, then red again: blue over the first red run, red over blue.
        doodle.add(DoodleStroke(colour: Self.blue, brush: brush, points: [c.0, c.1]))
        doodle.add(DoodleStroke(colour: Self.red, brush: brush, points: [a.0, a.1]))
        let maskC = referenceMask(size: size, strokes: [c], radius: 4.3)
        let want = Self.expected(photo, layers: [(Self.red, joined), (Self.blue, maskC), (Self.red, maskA)])
        #expect(Self.differingPixels(doodle.rendered(), want).isEmpty)
    }

    /// Random strokes in three colours (so runs of one colour come and go).
    static func randomStrokes(_ count: Int, size: PixelSize, seed: UInt64) throws -> [DoodleStroke] {
        var rng = SplitMix(seed: seed)
        let colours = [red, blue, green]
        var strokes: [DoodleStroke] = []
        for _ in 0..<count {
            let n = Int(rng.next() % 6) + 1
            var points: [Point] = []
            var p = Point(x: rng.unit() * Double(size.width), y: rng.unit() * Double(size.height))
            for _ in 0..<n {
                points.append(p)
                p = Point(x: p.x + (rng.unit() - 0.5) * 30, y: p.y + (rng.unit() - 0.5) * 30)
            }
            strokes.append(DoodleStroke(colour: colours[Int(rng.next() % 3)], brush: try Brush(radius: 0.5 + rng.unit() * 6),
                                        points: points))
        }
        return strokes
    }

    @Test("undo restores the pixels exactly: byte-equal to a fresh render without the stroke", arguments: [1, 3, 16])
    func undoIsExact(interval: Int) throws {
        let size = PixelSize(width: 70, height: 50)
        let photo = Self.photo(size)
        let strokes = try Self.randomStrokes(40, size: size, seed: UInt64(interval))
        let doodle = Doodle(photo: photo, checkpointInterval: interval)
        for stroke in strokes { doodle.add(stroke) }
        #expect(doodle.rendered() == Doodle.render(photo: photo, strokes: strokes))
        var kept = strokes
        var rng = SplitMix(seed: 99)
        for step in 0..<60 {
            if rng.next() % 3 == 0, let extra = try Self.randomStrokes(1, size: size, seed: UInt64(step) + 1000).first {
                doodle.add(extra)
                kept.append(extra)
            } else {
                let before = doodle.rendered()
                let dirty = doodle.undo()
                if kept.popLast() == nil { #expect(dirty.isEmpty); continue }
                let after = doodle.rendered()
                #expect(after == Doodle.render(photo: photo, strokes: kept), "step \(step)")
                // Nothing outside the rectangle undo returned has changed.
                for y in 0..<size.height {
                    for x in 0..<size.width where !dirty.contains(x: x, y: y) {
                        if before[x, y] != after[x, y] { Issue.record("(\(x), \(y)) changed outside \(dirty)") }
                    }
                }
            }
            #expect(doodle.strokes == kept)
        }
    }

    @Test("undo while the pen is down removes the stroke in progress; clear empties; undo of nothing is a no-op")
    func undoWhileDrawingAndClear() throws {
        let photo = Self.photo(PixelSize(width: 30, height: 30))
        let doodle = Doodle(photo: photo)
        #expect(doodle.undo().isEmpty)
        doodle.penDown(at: Point(x: 5, y: 5), colour: Self.red, brush: try Brush(radius: 3))
        doodle.penMove(to: Point(x: 20, y: 20))
        #expect(doodle.isPenDown)
        #expect(!doodle.undo().isEmpty)
        #expect(!doodle.isPenDown && doodle.strokes.isEmpty)
        #expect(doodle.rendered() == photo)
        doodle.penMove(to: Point(x: 25, y: 5))     // pen up: ignored
        #expect(doodle.rendered() == photo)
        doodle.add(DoodleStroke(colour: Self.blue, brush: try Brush(radius: 3), points: [Point(x: 10, y: 10)]))
        #expect(doodle.clear() == PixelRect(size: photo.size))
        #expect(doodle.rendered() == photo && doodle.strokes.isEmpty)
    }

    @Test("checkpoints stay within their budget; undo stays exact after thinning")
    func checkpointBudget() throws {
        let size = PixelSize(width: 40, height: 30)
        let photo = Self.photo(size)
        let perCheckpoint = size.pixelCount * 5
        let doodle = Doodle(photo: photo, checkpointInterval: 2, checkpointBudget: perCheckpoint * 4)
        let strokes = try Self.randomStrokes(50, size: size, seed: 7)
        for stroke in strokes { doodle.add(stroke) }
        #expect(doodle.checkpointCount <= 4)
        #expect(doodle.checkpointInterval >= 16)
        var kept = strokes
        for _ in 0..<30 {
            doodle.undo()
            kept.removeLast()
            #expect(doodle.rendered() == Doodle.render(photo: photo, strokes: kept))
        }
    }

    @Test("composite writes what rendered() holds, in the framebuffer's layout", arguments: [PixelLayout.bgrx, .rgbx, .xrgb])
    func compositeMatchesRendered(layout: PixelLayout) throws {
        let size = PixelSize(width: 50, height: 40)
        let photo = Self.photo(size)
        let doodle = Doodle(photo: photo)
        for stroke in try Self.randomStrokes(12, size: size, seed: 3) { doodle.add(stroke) }
        let framebuffer = Framebuffer(size: PixelSize(width: 60, height: 45), layout: layout)
        doodle.composite(PixelRect(size: framebuffer.size), into: framebuffer)
        let shown = framebuffer.rgbaImage(), rendered = doodle.rendered()
        for y in 0..<size.height {
            for x in 0..<size.width where shown[x, y] != rendered[x, y] {
                Issue.record("(\(x), \(y)): \(shown[x, y]) vs \(rendered[x, y])")
            }
        }
        #expect(shown[55, 42] == .black, "outside the doodle nothing is written")
    }

    @Test("over a transparent photo the pen's colour is kept and the alpha rises with coverage")
    func translucentPhoto() throws {
        let photo = RGBAImage(size: PixelSize(width: 20, height: 20), filledWith: RGBA(r: 0, g: 0, b: 0, a: 0))
        let doodle = Doodle(photo: photo)
        doodle.penDown(at: Point(x: 10.5, y: 10.5), colour: Self.red, brush: try Brush(radius: 4))
        #expect(doodle[10, 10] == Self.red)
        let edge = doodle[10, 14]          // distance 4: coverage 0.5
        #expect(edge.r == Self.red.r && edge.g == Self.red.g && edge.b == Self.red.b && edge.a == 128)
        #expect(doodle[0, 0] == RGBA(r: 0, g: 0, b: 0, a: 0))
    }

    @Test("the view fits the screen keeping the aspect, at scale 1 never enlarged; points map both ways")
    func fit() {
        let big = DoodleFit(image: PixelSize(width: 1600, height: 1200), within: PixelSize(width: 640, height: 480))
        #expect(big.view == PixelSize(width: 640, height: 480))
        #expect(big.toImage(Point(x: 100.5, y: 40.5)) == Point(x: 251.25, y: 101.25))
        #expect(big.imagePixelsPerViewPixel == 2.5)
        let wide = DoodleFit(image: PixelSize(width: 2000, height: 500), within: PixelSize(width: 640, height: 480))
        #expect(wide.view == PixelSize(width: 640, height: 160))
        let small = DoodleFit(image: PixelSize(width: 300, height: 200), within: PixelSize(width: 640, height: 480))
        #expect(small.view == PixelSize(width: 300, height: 200))
        #expect(small.toImage(Point(x: 3, y: 4)) == Point(x: 3, y: 4))
    }

    @Test("at scale 2 a small picture shows at its size in points (2 px each), still within the screen")
    func fitAtScale() {
        let small = DoodleFit(image: PixelSize(width: 300, height: 200), within: PixelSize(width: 1280, height: 960), scale: 2)
        #expect(small.view == PixelSize(width: 600, height: 400))
        #expect(small.imagePixelsPerViewPixel == 0.5)
        #expect(small.toImage(Point(x: 100, y: 50)) == Point(x: 50, y: 25))
        let capped = DoodleFit(image: PixelSize(width: 800, height: 400), within: PixelSize(width: 1280, height: 960), scale: 2)
        #expect(capped.view == PixelSize(width: 1280, height: 640), "the screen caps it first")
    }

    @Test("a stroke drawn on the scaled view lands at the mapped place of the full-size document")
    func viewAndDocumentLineUp() throws {
        let photo = RGBAImage(size: PixelSize(width: 400, height: 300), filledWith: .white)
        let fit = DoodleFit(image: photo.size, within: PixelSize(width: 160, height: 120))
        #expect(fit.view == PixelSize(width: 160, height: 120))
        let view = Doodle(photo: RGBAImage(size: fit.view, filledWith: .white))
        let document = Doodle(photo: photo)
        let viewRadius = 3.0
        let path = [Point(x: 20.5, y: 30.5), Point(x: 120.5, y: 30.5), Point(x: 120.5, y: 100.5)]
        view.penDown(at: path[0], colour: Self.green, brush: try Brush(radius: viewRadius))
        document.penDown(at: fit.toImage(path[0]), colour: Self.green,
                         brush: try Brush(radius: viewRadius * fit.imagePixelsPerViewPixel))
        for p in path.dropFirst() {
            view.penMove(to: p)
            document.penMove(to: fit.toImage(p))
        }
        let image = document.rendered()
        #expect(image.size == photo.size)
        // Along the path, both show the pen's colour at corresponding places.
        for p in [Point(x: 70.5, y: 30.5), Point(x: 120.5, y: 60.5), Point(x: 20.5, y: 30.5)] {
            let q = fit.toImage(p)
            #expect(view[Int(p.x), Int(p.y)] == Self.green)
            #expect(image[Int(q.x), Int(q.y)] == Self.green)
        }
        // The line is 2 x 3 view px thick: 7.5 image px either side of the centre line.
        #expect(image[175, 76 + 6] == Self.green && image[175, 76 - 6] == Self.green)
        #expect(image[175, 76 + 9] == .white && image[175, 76 - 9] == .white)
        #expect(image[50, 250] == .white)
    }

    @Test("the default export name never overwrites: the input nor an earlier export")
    func defaultExportPath() {
        var existing: Set<String> = ["photo.png"]
        let first = DoodleExport.defaultPath(forInput: "/pics/photo.png", in: ".") { existing.contains($0) }
        #expect(first == "photo-doodle.png")
        existing.insert(first)
        let second = DoodleExport.defaultPath(forInput: "/pics/photo.png", in: ".") { existing.contains($0) }
        #expect(second == "photo-doodle-2.png")
        existing.insert(second)
        #expect(DoodleExport.defaultPath(forInput: "photo.png", in: "out") { existing.contains($0) } == "out/photo-doodle.png")
        // An input that is itself named like an export is not overwritten either.
        let tricky = DoodleExport.defaultPath(forInput: "x-doodle.png", in: ".") { ["x-doodle-doodle.png"].contains($0) }
        #expect(tricky == "x-doodle-doodle-2.png")
        #expect(DoodleExport.defaultPath(forInput: ".hidden", in: ".") { _ in false } == ".hidden-doodle.png")
    }

    @Test("undo cost with 1,000 strokes on a 1600x1200 photo")
    func undoCost() throws {
        let size = PixelSize(width: 1600, height: 1200)
        let photo = RGBAImage(size: size, filledWith: RGBA(r: 240, g: 230, b: 220))
        let doodle = Doodle(photo: photo)
        let strokes = try Self.randomStrokes(1000, size: size, seed: 11).map {
            DoodleStroke(colour: $0.colour, brush: try Brush(radius: $0.brush.radius * 2), points: $0.points)
        }
        let drawStart = DispatchTime.now().uptimeNanoseconds
        for stroke in strokes { doodle.add(stroke) }
        let drawMs = Double(DispatchTime.now().uptimeNanoseconds - drawStart) / 1e6
        var times: [Double] = []
        for _ in 0..<20 {
            let start = DispatchTime.now().uptimeNanoseconds
            doodle.undo()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        times.sort()
        print("doodle undo: 1000 strokes on \(size) drawn in \(Int(drawMs)) ms; undo median \(times[10]) ms, max \(times[19]) ms;"
              + " checkpoints \(doodle.checkpointCount), interval \(doodle.checkpointInterval)")
        #expect(times[10] < 1000, "an undo must not redraw 1,000 strokes")
        #expect(doodle.strokes.count == 980)
    }
}
