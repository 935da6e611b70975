import EngineTestSupport
import Testing
@testable import ScratchCore

struct BrushTests {
    static let radii: [Double] = [0.2, 0.5, 0.75, 1, 1.5, 3.3, 8, 24]

    @Test("a dot matches the formula pixel by pixel", arguments: radii)
    func dot(radius: Double) throws {
        let size = PixelSize(width: 64, height: 48)
        var mask = Mask(size: size)
        let centre = Point(x: 30.3, y: 20.8)
        mask.stroke(from: centre, to: centre, brush: try Brush(radius: radius))
        let expected = referenceMask(size: size, strokes: [(centre, centre)], radius: radius)
        #expect(differences(bytes(of: mask), expected, width: size.width) == [])
    }

    @Test("segments at many angles match the formula", arguments: radii)
    func segments(radius: Double) throws {
        let size = PixelSize(width: 80, height: 60)
        let brush = try Brush(radius: radius)
        let ends: [(Point, Point)] = [
            (Point(x: 10, y: 10), Point(x: 70, y: 10)),          // horizontal, on pixel edges
            (Point(x: 40.5, y: 5.5), Point(x: 40.5, y: 55.5)),   // vertical, on pixel centres
            (Point(x: 5.2, y: 50.7), Point(x: 72.9, y: 8.1)),    // steep-ish diagonal
            (Point(x: 20.1, y: 30.3), Point(x: 21.4, y: 30.9)),  // a tiny segment
            (Point(x: 60, y: 40), Point(x: 12.25, y: 41.75)),    // almost horizontal, leftwards
        ]
        for (a, b) in ends {
            var mask = Mask(size: size)
            mask.stroke(from: a, to: b, brush: brush)
            let expected = referenceMask(size: size, strokes: [(a, b)], radius: radius)
            #expect(differences(bytes(of: mask), expected, width: size.width) == [], "stroke \(a) -> \(b)")
        }
    }

    @Test func centreIsRevealedEdgeIsSmoothOutsideIsUntouched() throws {
        let size = PixelSize(width: 100, height: 100)
        var mask = Mask(size: size)
        mask.stroke(from: Point(x: 20, y: 50.25), to: Point(x: 80, y: 50.25), brush: try Brush(radius: 10))
        #expect(mask[50, 50] == 255)      // on the path
        #expect(mask[50, 41] == 255)      // d = 8.75: coverage 1
        #expect(mask[50, 40] == 191)      // d = 9.75: coverage 0.75
        #expect(mask[50, 60] == 64)       // d = 10.25: coverage 0.25
        #expect(mask[50, 39] == 0)        // d = 10.75: outside
        #expect(mask[50, 61] == 0)
        #expect(mask[89, 50] == 254)      // beyond the end: d = 9.503 from the end point
        #expect(mask[90, 50] == 0)
        #expect(mask[0, 0] == 0 && mask[99, 99] == 0)
    }

    @Test func reversedStrokeIsIdentical() throws {
        let size = PixelSize(width: 90, height: 70)
        let brush = try Brush(radius: 6.5)
        let a = Point(x: 12.7, y: 60.2), b = Point(x: 77.1, y: 9.9)
        var forward = Mask(size: size), backward = Mask(size: size)
        forward.stroke(from: a, to: b, brush: brush)
        backward.stroke(from: b, to: a, brush: brush)
        #expect(bytes(of: forward) == bytes(of: backward))
    }

    @Test func dotIsMirrorSymmetric() throws {
        let size = PixelSize(width: 41, height: 41)
        var mask = Mask(size: size)
        let centre = Point(x: 20.5, y: 20.5)   // the centre of pixel (20, 20)
        mask.stroke(from: centre, to: centre, brush: try Brush(radius: 12.3))
        for y in 0..<41 {
            for x in 0..<41 {
                #expect(mask[x, y] == mask[40 - x, y])
                #expect(mask[x, y] == mask[x, 40 - y])
                #expect(mask[x, y] == mask[y, x])
            }
        }
    }

    @Test func scratchingTwiceChangesNothing() throws {
        let size = PixelSize(width: 64, height: 64)
        let brush = try Brush(radius: 5)
        var mask = Mask(size: size)
        let first = mask.stroke(from: Point(x: 3, y: 7), to: Point(x: 60, y: 50), brush: brush)
        let before = bytes(of: mask)
        let count = mask.revealedPixels
        let second = mask.stroke(from: Point(x: 3, y: 7), to: Point(x: 60, y: 50), brush: brush)
        #expect(!first.isEmpty)
        #expect(second == .empty)
        #expect(bytes(of: mask) == before)
        #expect(mask.revealedPixels == count)
    }

    @Test func overlappingStrokesJoinByMax() throws {
        let size = PixelSize(width: 60, height: 40)
        let brush = try Brush(radius: 4.2)
        let strokes = [(Point(x: 5, y: 20), Point(x: 30, y: 18)), (Point(x: 30, y: 18), Point(x: 55, y: 30)),
                       (Point(x: 20, y: 5), Point(x: 25, y: 35))]
        var mask = Mask(size: size)
        for (a, b) in strokes { mask.stroke(from: a, to: b, brush: brush) }
        #expect(differences(bytes(of: mask), referenceMask(size: size, strokes: strokes, radius: 4.2), width: 60) == [])
    }

    @Test("a polyline of short segments (each starting where the last ended) matches the formula",
          arguments: [0.5, 1.5, 3.3, 8, 24])
    func continuedStrokes(radius: Double) throws {
        let size = PixelSize(width: 96, height: 72)
        let brush = try Brush(radius: radius)
        var rng = SplitMix(seed: 11)
        // Short steps in every direction, turning back over itself, standing still, a
        // vertical and a horizontal step, and a walk off the canvas and back.
        var points = [Point(x: 40.3, y: 30.7)]
        for _ in 0..<60 {
            let last = points[points.count - 1]
            points.append(Point(x: last.x + rng.double(in: -4...4), y: last.y + rng.double(in: -4...4)))
        }
        let last = points[points.count - 1]
        points += [last, Point(x: last.x, y: last.y + 3), Point(x: last.x + 3, y: last.y + 3),
                   Point(x: last.x - 2, y: last.y + 1), Point(x: -30, y: 10), Point(x: -29, y: 11), Point(x: 20, y: 20)]
        var mask = Mask(size: size)
        var strokes = [(points[0], points[0])]
        mask.stroke(from: points[0], to: points[0], brush: brush)
        for (a, b) in zip(points, points.dropFirst()) {
            mask.stroke(from: a, to: b, brush: brush)
            strokes.append((a, b))
        }
        #expect(differences(bytes(of: mask), referenceMask(size: size, strokes: strokes, radius: radius),
                            width: size.width) == [])
        #expect(mask.revealedPixels == mask.recountRevealedPixels())
    }

    @Test("the dirty rectangle is exactly the box of the pixels that changed")
    func dirtyRectangle() throws {
        let size = PixelSize(width: 120, height: 90)
        let brush = try Brush(radius: 7.7)
        var mask = Mask(size: size)
        var rng = SplitMix(seed: 7)
        for _ in 0..<40 {
            let before = bytes(of: mask)
            let a = Point(x: rng.double(in: -20...140), y: rng.double(in: -20...110))
            let b = Point(x: rng.double(in: -20...140), y: rng.double(in: -20...110))
            let dirty = mask.stroke(from: a, to: b, brush: brush)
            let after = bytes(of: mask)
            var box = PixelRect.empty
            for i in 0..<after.count where after[i] != before[i] {
                box.formUnion(PixelRect(x: i % size.width, y: i / size.width, width: 1, height: 1))
            }
            #expect(dirty == box)
        }
    }

    @Test("strokes running off every edge are clipped and still match the formula")
    func clipping() throws {
        let size = PixelSize(width: 50, height: 40)
        let brush = try Brush(radius: 6)
        let strokes = [(Point(x: -30, y: 20), Point(x: 25, y: 20)), (Point(x: 25, y: -15), Point(x: 25, y: 70)),
                       (Point(x: 80, y: -10), Point(x: -20, y: 60)), (Point(x: 49.9, y: 39.9), Point(x: 300, y: 200)),
                       (Point(x: -7, y: -7), Point(x: -7, y: -7))]
        for (a, b) in strokes {
            var mask = Mask(size: size)
            mask.stroke(from: a, to: b, brush: brush)
            #expect(differences(bytes(of: mask), referenceMask(size: size, strokes: [(a, b)], radius: 6), width: 50) == [],
                    "stroke \(a) -> \(b)")
        }
    }

    @Test("points anywhere never crash; far away changes nothing; not-a-number changes nothing")
    func hostilePoints() throws {
        let size = PixelSize(width: 32, height: 32)
        let brush = try Brush(radius: 3)
        var mask = Mask(size: size)
        let far: [Double] = [1e300, -1e300, .infinity, -.infinity, Double.greatestFiniteMagnitude, 1e9, -1e9]
        for x in far {
            for y in far {
                #expect(mask.stroke(from: Point(x: x, y: y), to: Point(x: x, y: y), brush: brush) == .empty)
            }
        }
        #expect(mask.stroke(from: Point(x: .nan, y: 3), to: Point(x: 3, y: 3), brush: brush) == .empty)
        #expect(mask.revealedPixels == 0)
        // A stroke between two far-away points that crosses the canvas still reveals it.
        let across = mask.stroke(from: Point(x: -1e12, y: 16), to: Point(x: 1e12, y: 16), brush: brush)
        #expect(across == PixelRect(x: 0, y: 13, width: 32, height: 6))   // rows whose centres lie within 3.5
        #expect(mask[16, 16] == 255)
        // A huge brush covers everything without trouble.
        var huge = Mask(size: size)
        huge.stroke(from: Point(x: 5, y: 5), to: Point(x: 5, y: 5), brush: try Brush(radius: 1e200))
        #expect(huge.revealedPixels == size.pixelCount)
    }

    @Test("a radius that is not finite and positive is rejected",
          arguments: [0, -5, -0.0, .nan, .infinity, -.infinity])
    func invalidRadius(radius: Double) {
        #expect(throws: BrushError.self) { try Brush(radius: radius) }
    }
}

/// Random polylines against the formula, stroke by stroke: the brush's fast paths (the
/// continued stroke's skips, the chords, the eight-byte fill) must leave every pixel, the
/// meter, the dirty rectangle and the damage spans exactly as the formula says.
struct BrushFuzzTests {
    /// One stroke of the formula into `reference`, over the whole canvas.
    static func apply(_ a: Point, _ b: Point, radius: Double, to reference: inout [UInt8], size: PixelSize) {
        let one = referenceMask(size: size, strokes: [(a, b)], radius: radius)
        for i in reference.indices { reference[i] = max(reference[i], one[i]) }
    }

    @Test("random continued polylines match the formula, with exact meter, dirty rectangle and damage",
          arguments: [0.5, 1.5, 3.3, 7.25, 12.7, 30, 48])
    func continuedPolylines(radius: Double) throws {
        // Room for a few brush widths: the 4K trace's radius 48 needs a larger canvas.
        let size = PixelSize(width: max(72, Int(radius * 3.5)), height: max(56, Int(radius * 2.5)))
        var rng = SplitMix(seed: UInt64(radius * 1000))
        var brush = try Brush(radius: radius)
        var mask = Mask(size: size)
        var reference = [UInt8](repeating: 0, count: size.pixelCount)
        var last: Point?
        for step in 0..<160 {
            var a: Point, b: Point
            let roll = rng.unit()
            if last == nil || roll < 0.06 {
                // Pen down somewhere (sometimes off the canvas): a dot.
                a = Point(x: rng.double(in: -10...Double(size.width + 10)), y: rng.double(in: -10...Double(size.height + 10)))
                b = a
            } else {
                a = last!
                // Mostly short steps like a pointer's, sometimes long ones, sometimes
                // straight along an axis, sometimes none.
                let length = roll < 0.8 ? rng.double(in: 0...radius * 1.2 + 2) : rng.double(in: 0...60)
                var ux = rng.double(in: -1...1), uy = rng.double(in: -1...1)
                let norm = (ux * ux + uy * uy).squareRoot()
                if norm > 1e-3 { ux /= norm; uy /= norm } else { ux = 1; uy = 0 }
                var dx = length * ux, dy = length * uy
                if roll > 0.9 { dx = 0 } else if roll > 0.85 { dy = 0 } else if roll > 0.83 { dx = 0; dy = 0 }
                b = Point(x: a.x + dx, y: a.y + dy)
            }
            if roll > 0.98 { brush = try Brush(radius: radius * rng.double(in: 0.5...1.5)) }
            let before = bytes(of: mask)
            let dirty = mask.stroke(from: a, to: b, brush: brush)
            BrushFuzzTests.apply(a, b, radius: brush.radius, to: &reference, size: size)
            let after = bytes(of: mask)
            #expect(differences(after, reference, width: size.width) == [], "step \(step): \(a) -> \(b)")
            var box = PixelRect.empty
            var spans = [Int: (Int, Int)]()
            for i in 0..<after.count where after[i] != before[i] {
                let x = i % size.width, y = i / size.width
                box.formUnion(PixelRect(x: x, y: y, width: 1, height: 1))
                spans[y] = spans[y].map { (min($0.0, x), max($0.1, x)) } ?? (x, x)
            }
            #expect(dirty == box, "step \(step)")
            var taken = [Int: (Int, Int)]()
            mask.takeDamage { row, first, last in taken[row] = (first, last) }
            #expect(taken.count == spans.count && taken.allSatisfy { row, span in
                spans[row].map { $0 == span } ?? false }, "step \(step)")
            #expect(mask.revealedPixels == mask.recountRevealedPixels(), "step \(step)")
            last = roll > 0.97 ? nil : b
            if last == nil { brush = try Brush(radius: radius) }
        }
    }
}
