import EngineTestSupport
import Testing
@testable import ScratchCore

/// The brush over a card with zones: it writes only inside scratchable zones, exactly
/// what it would write there without zones, and each zone's meter is exact.
struct ZoneMaskTests {
    let size = PixelSize(width: 240, height: 180)

    /// Three by three zones, the middle one an ellipse, with gaps between.
    var outlines: [ZoneOutline] {
        var zones: [ZoneOutline] = []
        for r in 0..<3 {
            for c in 0..<3 {
                let x = 10.5 + Double(c) * 75, y = 8 + Double(r) * 57
                zones.append(ZoneOutline(x: x, y: y, width: 68.3, height: 50,
                                         shape: r == 1 && c == 1 ? .ellipse : .rectangle))
            }
        }
        return zones
    }

    func inZone(_ zones: MaskZones, _ x: Int, _ y: Int) -> Int? {
        // From the outline's definition, not the span table: pixel centres inside.
        let cx = Double(x) + 0.5, cy = Double(y) + 0.5
        for (i, o) in zones.outlines.enumerated() {
            switch o.shape {
            case .rectangle:
                if cx >= o.x && cx < o.x + o.width && cy >= o.y && cy < o.y + o.height { return i }
            case .ellipse:
                let u = (cx - o.x - o.width / 2) / (o.width / 2), v = (cy - o.y - o.height / 2) / (o.height / 2)
                if u * u + v * v <= 1 { return i }
            }
        }
        return nil
    }

    @Test("random strokes with zones leave exactly the no-zone mask inside scratchable zones and 0 elsewhere")
    func zonesClipTheBrushExactly() throws {
        var plain = Mask(size: size)
        var zoned = Mask(size: size)
        zoned.setZones(outlines)
        zoned.setScratchable(4, false)            // the ellipse is locked from the start
        var rng = SplitMix(seed: 26)
        var last = Point(x: 120, y: 90)
        for i in 0..<600 {
            let brush = try Brush(radius: rng.double(in: 0.4...14))
            // Mostly strokes that go on from the last one (the brush's skip behind them).
            let a = i % 7 == 0 ? Point(x: rng.double(in: -30...270), y: rng.double(in: -30...210)) : last
            let b = i % 11 == 0 ? a : Point(x: a.x + rng.double(in: -30...30), y: a.y + rng.double(in: -30...30))
            plain.stroke(from: a, to: b, brush: brush)
            zoned.stroke(from: a, to: b, brush: brush)
            last = b
        }
        let zones = try #require(zoned.zones)
        var differ = 0, outsideWritten = 0
        for y in 0..<size.height {
            for x in 0..<size.width {
                let zone = inZone(zones, x, y)
                #expect(zones.zone(atX: x, y: y) == zone, "pixel (\(x), \(y))")
                let expected = zone != nil && zone != 4 ? plain[x, y] : 0
                if zoned[x, y] != expected { differ += 1 }
                if zone == nil && zoned[x, y] != 0 { outsideWritten += 1 }
            }
        }
        #expect(differ == 0)
        #expect(outsideWritten == 0)
        #expect(zoned.revealedPixels == zoned.recountRevealedPixels())
        for i in 0..<9 {
            var n = 0
            zones.forEachSpan(of: i) { row, first, last in
                for x in first...last where zoned[x, row] >= 128 { n += 1 }
            }
            #expect(zones.revealedCounts[i] == n, "zone \(i)")
            if i != 4 { #expect(n > 0, "zone \(i) was scratched") }
        }
        #expect(zones.revealedCounts[4] == 0)
        #expect(!zones.touchOrder.contains(4))
        let total = zones.pixelCounts.reduce(0, +)
        #expect(zoned.revealedFraction == Double(zones.revealedCounts.reduce(0, +)) / Double(total))
    }

    @Test("zones take ink in the order touched, and a touch limit leaves the rest alone")
    func touchOrderAndLimit() throws {
        var mask = Mask(size: size)
        mask.setZones(outlines, touchLimit: 3)
        let brush = try Brush(radius: 6)
        func centre(_ i: Int) -> Point {
            let o = outlines[i]
            return Point(x: o.x + o.width / 2, y: o.y + o.height / 2)
        }
        for i in [7, 2, 5] { mask.stroke(from: centre(i), to: centre(i), brush: brush) }
        #expect(mask.zones?.touchOrder == [7, 2, 5])
        // A fourth zone does not scratch; the started ones still do.
        #expect(mask.stroke(from: centre(0), to: centre(0), brush: brush) == .empty)
        #expect(mask.zones?.revealedCounts[0] == 0)
        let before = mask.zones!.revealedCounts[2]
        mask.stroke(from: centre(2), to: Point(x: centre(2).x + 20, y: centre(2).y), brush: brush)
        #expect(mask.zones!.revealedCounts[2] > before)
        // A stroke across the gap between zone 0 and zone 1 writes nothing at all.
        let gap = Point(x: 10.5 + 68.3 + 3, y: 30)
        #expect(mask.stroke(from: gap, to: Point(x: gap.x, y: gap.y + 10), brush: try Brush(radius: 2)) == .empty)
        #expect(mask.zones?.touchOrder == [7, 2, 5])
    }

    @Test("a locked zone does not scratch; revealing a zone fills it and its meter")
    func lockAndReveal() throws {
        let image = RGBAImage(size: size, filledWith: .white)
        let canvas = try ScratchCanvas(cover: image, prize: image, layout: .bgrx, brush: Brush(radius: 5))
        canvas.setZones(outlines)
        canvas.setScratchable(1, false)
        #expect(canvas.penDown(at: Point(x: 120, y: 30)) == .empty)
        canvas.penUp()
        #expect(canvas.zones?.touchOrder == [])
        let rect = canvas.revealZone(1)
        #expect(rect == canvas.zones!.bounds[1])
        #expect(canvas.zones!.revealedFraction(1) == 1)
        #expect(canvas.zones!.revealedCounts[1] == canvas.zones!.pixelCounts[1])
        #expect(canvas.mask.revealedPixels == canvas.mask.recountRevealedPixels())
        #expect(abs(canvas.revealedFraction - 1.0 / 9) < 0.01)
        // Reset keeps the zones, fresh.
        canvas.reset()
        #expect(canvas.zones?.count == 9 && canvas.zones?.revealedCounts[1] == 0 && canvas.revealedFraction == 0)
    }

    @Test("a zone's prize is set when chosen and shows where it is scratched; fading opens the zone only")
    func prizeAndFade() throws {
        let cover = RGBAImage(size: size, filledWith: RGBA(r: 200, g: 200, b: 200))
        let prize = RGBAImage(size: size, filledWith: RGBA(r: 0, g: 0, b: 0))
        let canvas = try ScratchCanvas(cover: cover, prize: prize, layout: .bgrx, brush: Brush(radius: 8))
        canvas.setZones(outlines)
        let zone = canvas.zones!.bounds[0]
        canvas.setPrize(RGBAImage(size: zone.size, filledWith: RGBA(r: 255, g: 0, b: 0)), x: zone.x, y: zone.y)
        let framebuffer = Framebuffer(size: size, layout: .bgrx)
        canvas.composite(PixelRect(size: size), into: framebuffer)
        canvas.penDown(at: Point(x: Double(zone.x + 20), y: Double(zone.y + 20)))
        canvas.compositeChanges(into: framebuffer)
        #expect(framebuffer[zone.x + 20, zone.y + 20] == RGBA(r: 255, g: 0, b: 0))
        #expect(framebuffer[zone.x + 50, zone.y + 40] == RGBA(r: 200, g: 200, b: 200))
        canvas.composite(zone: 0, fade: 1, into: framebuffer)
        #expect(framebuffer[zone.x + 50, zone.y + 40] == RGBA(r: 255, g: 0, b: 0))
        // Outside the zone the cover stays.
        #expect(framebuffer[zone.maxX + 2, zone.y + 2] == RGBA(r: 200, g: 200, b: 200))
    }

    @Test("on a canvas that paints as it goes, a zone's first stroke waits for its prize; later ones paint it")
    func firstTouchWaitsForThePrize() throws {
        let cover = RGBAImage(size: size, filledWith: RGBA(r: 200, g: 200, b: 200))
        let prize = RGBAImage(size: size, filledWith: RGBA(r: 0, g: 0, b: 0))
        let canvas = try ScratchCanvas(cover: cover, prize: prize, layout: .bgrx, brush: Brush(radius: 8))
        canvas.paintsDirectly = true
        canvas.setZones(outlines)
        let zone = canvas.zones!.bounds[3]
        let framebuffer = Framebuffer(size: size, layout: .bgrx)
        canvas.composite(PixelRect(size: size), into: framebuffer)
        let at = Point(x: Double(zone.x + 20), y: Double(zone.y + 20))
        canvas.penDown(at: at, drawingInto: framebuffer)
        // Nothing of the zone shows yet: its prize is not chosen.
        #expect(framebuffer[zone.x + 20, zone.y + 20] == RGBA(r: 200, g: 200, b: 200))
        #expect(canvas.zones?.touchOrder == [3])
        canvas.setPrize(RGBAImage(size: zone.size, filledWith: RGBA(r: 0, g: 0, b: 255)), x: zone.x, y: zone.y)
        canvas.compositeChanges(into: framebuffer)
        #expect(framebuffer[zone.x + 20, zone.y + 20] == RGBA(r: 0, g: 0, b: 255))
        canvas.penMove(to: Point(x: at.x + 25, y: at.y), drawingInto: framebuffer)
        #expect(framebuffer[zone.x + 45, zone.y + 20] == RGBA(r: 0, g: 0, b: 255))
    }

    func centre(_ i: Int) -> Point { Point(x: outlines[i].x + outlines[i].width / 2, y: outlines[i].y + outlines[i].height / 2) }
    /// The centre of the gap between zone `i` and the zone to its right.
    func gapRight(of i: Int) -> Point { Point(x: (outlines[i].x + outlines[i].width + outlines[i + 1].x) / 2, y: centre(i).y) }
    /// The centre of the gap between zone `i` and the zone below it.
    func gapBelow(_ i: Int) -> Point { Point(x: centre(i).x, y: (outlines[i].y + outlines[i].height + outlines[i + 3].y) / 2) }

    func zonedCanvas(radius: Double) throws -> ScratchCanvas {
        let image = RGBAImage(size: size, filledWith: .white)
        let canvas = try ScratchCanvas(cover: image, prize: image, layout: .bgrx, brush: Brush(radius: radius))
        canvas.setZones(outlines)
        return canvas
    }

    @Test("one touch, one zone: a pen scratches the zone it was pressed in alone, whatever the brush; a new press may start another")
    func penKeepsItsZone() throws {
        // A brush three times as wide as the gaps (radius 20, gaps under 7 px).
        let canvas = try zonedCanvas(radius: 20)
        // Pen 0 from zone 0 across the gaps into zones 1 and 2; pen 1 meanwhile in zone 3.
        canvas.penDown(at: centre(0))
        canvas.penDown(at: centre(3), pen: 1)
        canvas.penMove(to: centre(1))
        canvas.penMove(to: Point(x: centre(3).x + 20, y: centre(3).y + 30), pen: 1)
        canvas.penMove(to: centre(2))
        #expect(canvas.zones?.touchOrder == [0, 3])
        for zone in [1, 2, 4, 5, 6, 7, 8] { #expect(canvas.zones!.revealedCounts[zone] == 0, "zone \(zone)") }
        // Zone 0 took the stroke up to its edge.
        #expect(canvas.mask[Int(outlines[0].x + outlines[0].width) - 2, Int(centre(0).y)] == 255)
        canvas.penUp()
        canvas.penDown(at: centre(1))
        #expect(canvas.zones?.touchOrder == [0, 3, 1])
    }

    @Test("a press in a gap or where four zones meet, with a brush wider than the gap, writes nothing, nor does its pen when it moves into a zone")
    func pressInAGap() throws {
        let canvas = try zonedCanvas(radius: 20)
        let corner = Point(x: gapRight(of: 0).x, y: gapBelow(0).y)
        for press in [gapRight(of: 0), gapRight(of: 4), gapBelow(0), gapBelow(5), corner, Point(x: 2, y: 2)] {
            let before = canvas.mask.withUnsafeBytes { Array($0) }
            #expect(canvas.penDown(at: press).isEmpty, "press at \(press)")
            #expect(canvas.penMove(to: centre(4)).isEmpty, "moved from \(press)")
            canvas.penUp()
            #expect(canvas.mask.withUnsafeBytes { Array($0) } == before)
        }
        #expect(canvas.zones?.touchOrder == [])
    }

    @Test("a press in a locked or opened zone, or one past the touch limit, writes nowhere, even moving into a scratchable zone")
    func pressInAClosedZone() throws {
        let canvas = try zonedCanvas(radius: 20)
        canvas.setTouchLimit(2)
        canvas.penDown(at: centre(0)); canvas.penUp()
        canvas.setScratchable(0, false)                 // opened
        canvas.setScratchable(8, false)                 // locked
        for zone in [0, 8] {
            canvas.penDown(at: centre(zone))
            #expect(canvas.penMove(to: centre(4)).isEmpty)
            canvas.penUp()
        }
        #expect(canvas.zones?.touchOrder == [0])
        // Two fingers pressed at once in two fresh zones with one pick left: one takes it.
        canvas.penDown(at: centre(4), pen: 1)
        canvas.penDown(at: centre(5), pen: 2)
        canvas.penMove(to: Point(x: centre(5).x + 5, y: centre(5).y), pen: 2)
        #expect(canvas.zones?.touchOrder == [0, 4])
        #expect(canvas.zones!.revealedCounts[5] == 0)
        canvas.allPensUp()
        #expect(canvas.penDown(at: centre(7)).isEmpty)
        #expect(canvas.zones?.touchOrder == [0, 4])
    }
}
