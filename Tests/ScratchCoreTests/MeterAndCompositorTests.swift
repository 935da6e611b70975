import EngineTestSupport
import Testing
@testable import ScratchCore

struct MeterTests {
    @Test("the incremental meter equals a full recount after many random strokes")
    func meterMatchesRecount() throws {
        let size = PixelSize(width: 200, height: 150)
        var mask = Mask(size: size)
        var rng = SplitMix(seed: 42)
        for i in 0..<400 {
            let brush = try Brush(radius: rng.double(in: 0.3...6))
            let a = Point(x: rng.double(in: -40...240), y: rng.double(in: -40...190))
            let b = i % 5 == 0 ? a : Point(x: a.x + rng.double(in: -50...50), y: a.y + rng.double(in: -50...50))
            mask.stroke(from: a, to: b, brush: brush)
            if i % 50 == 0 { #expect(mask.revealedPixels == mask.recountRevealedPixels()) }
        }
        #expect(mask.revealedPixels == mask.recountRevealedPixels())
        #expect(mask.revealedPixels > 0 && mask.revealedPixels < size.pixelCount)
        #expect(mask.revealedFraction == Double(mask.revealedPixels) / Double(size.pixelCount))
    }

    @Test("transparent cover pixels are revealed from the start and do not count")
    func transparentCover() throws {
        var cover = RGBAImage(size: PixelSize(width: 10, height: 10), filledWith: RGBA(r: 200, g: 200, b: 200))
        for x in 0..<10 { cover[x, 0] = RGBA(r: 0, g: 0, b: 0, a: 0) }           // row 0: a hole
        cover[0, 1] = RGBA(r: 9, g: 9, b: 9, a: 1)                              // translucent still counts
        var mask = Mask(revealingTransparentPixelsOf: cover)
        #expect(mask.unscratchablePixels == 10)
        #expect(mask[5, 0] == 255 && mask[0, 1] == 0)
        #expect(mask.revealedFraction == 0)
        mask.stroke(from: Point(x: -5, y: 5), to: Point(x: 15, y: 5), brush: try Brush(radius: 30))
        #expect(mask.revealedFraction == 1)
    }

    @Test func revealAllAndCanvasReset() throws {
        let image = RGBAImage(size: PixelSize(width: 16, height: 8), filledWith: .white)
        let canvas = try ScratchCanvas(cover: image, prize: image, layout: .bgrx, brush: Brush(radius: 2))
        canvas.penDown(at: Point(x: 4, y: 4))
        #expect(canvas.revealedFraction > 0)
        #expect(canvas.revealAll() == PixelRect(size: image.size))
        #expect(canvas.revealedFraction == 1)
        canvas.reset()
        #expect(canvas.revealedFraction == 0)
        #expect(!canvas.isPenDown)
    }

    @Test("a resized canvas keeps the scratched state, scaled")
    func resizeKeepsState() throws {
        let small = RGBAImage(size: PixelSize(width: 100, height: 50), filledWith: .white)
        let canvas = try ScratchCanvas(cover: small, prize: small, layout: .bgrx, brush: Brush(radius: 10))
        canvas.penDown(at: Point(x: 25, y: 25))
        canvas.penMove(to: Point(x: 75, y: 25))
        let big = RGBAImage(size: PixelSize(width: 200, height: 100), filledWith: .white)
        let resized = try ScratchCanvas(cover: big, prize: big, layout: .bgrx, brush: Brush(radius: 20), keeping: canvas.mask)
        #expect(resized.mask[100, 50] == 255)
        #expect(resized.mask[5, 5] == 0)
        #expect(abs(resized.revealedFraction - canvas.revealedFraction) < 0.02)
    }

    @Test func coverAndPrizeMustMatch() throws {
        let a = RGBAImage(size: PixelSize(width: 4, height: 4), filledWith: .white)
        let b = RGBAImage(size: PixelSize(width: 5, height: 4), filledWith: .white)
        #expect(throws: CanvasError.self) { try ScratchCanvas(cover: a, prize: b, layout: .bgrx, brush: Brush(radius: 1)) }
    }
}

struct CompositorTests {
    /// A mask whose pixel x holds the value x: every mask value once.
    func canvasWithEveryMaskValue(cover: RGBA, prize: RGBA, layout: PixelLayout) throws -> ScratchCanvas {
        let size = PixelSize(width: 256, height: 1)
        let canvas = try ScratchCanvas(cover: RGBAImage(size: size, filledWith: cover),
                                       prize: RGBAImage(size: size, filledWith: prize), layout: layout, brush: Brush(radius: 1))
        canvas.mask.withUnsafeBytes { bytes in
            let p = UnsafeMutablePointer(mutating: bytes.baseAddress!)
            for v in 0..<256 { p[v] = UInt8(v) }
        }
        return canvas
    }

    func expected(_ c: UInt8, _ p: UInt8, _ m: Int) -> UInt8 {
        UInt8(((Double(c) * Double(255 - m) + Double(p) * Double(m)) / 255).rounded())
    }

    @Test("every mask value blends to the exactly rounded formula",
          arguments: [PixelLayout.bgrx, .rgbx, .xrgb, .xbgr])
    func everyMaskValue(layout: PixelLayout) throws {
        let pairs: [(RGBA, RGBA)] = [(RGBA(r: 0, g: 255, b: 128), RGBA(r: 255, g: 0, b: 127)),
                                     (RGBA(r: 192, g: 192, b: 200), RGBA(r: 10, g: 90, b: 250)),
                                     (RGBA(r: 1, g: 2, b: 3), RGBA(r: 254, g: 253, b: 252))]
        for (cover, prize) in pairs {
            let canvas = try canvasWithEveryMaskValue(cover: cover, prize: prize, layout: layout)
            let framebuffer = Framebuffer(size: canvas.size, layout: layout)
            canvas.composite(PixelRect(size: canvas.size), into: framebuffer)
            for m in 0..<256 {
                let want = RGBA(r: expected(cover.r, prize.r, m), g: expected(cover.g, prize.g, m), b: expected(cover.b, prize.b, m))
                #expect(framebuffer[m, 0] == want, "mask \(m)")
                let raw = framebuffer.baseAddress.load(fromByteOffset: m * 4 + layout.padOffset, as: UInt8.self)
                #expect(raw == 255)
            }
        }
    }

    @Test("the one-pixel blend is the rounded formula for every byte of cover and prize, in each of its four lanes")
    func blendEveryByte() {
        // Each channel of the pair gets a different byte, so a lane mixed up with another
        // shows; over the 256 steps every byte value appears in every channel of cover and
        // prize, and at every mask value from 0 to 255.
        var pair = [UInt8](repeating: 0, count: 8)
        var out: UInt32 = 0
        var wrong: [String] = []
        for t in 0..<256 {
            for step in 0..<256 {
                for k in 0..<8 { pair[k] = UInt8((step &* (k * 2 + 1) &+ k &* 37 &+ t) & 255) }
                pair.withUnsafeBytes { source in
                    withUnsafeMutableBytes(of: &out) { Compositor.blend(UInt64(t), source.baseAddress!, $0.baseAddress!) }
                }
                for k in 0..<4 {
                    let got = UInt8(truncatingIfNeeded: out >> (8 * k))
                    let want = expected(pair[k], pair[k + 4], t)
                    if got != want && wrong.count < 5 { wrong.append("t \(t), cover \(pair[k]), prize \(pair[k + 4]): \(got), not \(want)") }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test("a translucent cover shows the prize through it, before any scratching")
    func coverAlpha() throws {
        let size = PixelSize(width: 3, height: 1)
        var cover = RGBAImage(size: size, filledWith: RGBA(r: 255, g: 255, b: 255, a: 255))
        cover[1, 0] = RGBA(r: 255, g: 255, b: 255, a: 128)
        cover[2, 0] = RGBA(r: 255, g: 0, b: 0, a: 0)
        let prize = RGBAImage(size: size, filledWith: RGBA(r: 0, g: 0, b: 0))
        let canvas = try ScratchCanvas(cover: cover, prize: prize, layout: .bgrx, brush: Brush(radius: 1))
        let framebuffer = Framebuffer(size: size, layout: .bgrx)
        canvas.composite(PixelRect(size: size), into: framebuffer)
        #expect(framebuffer[0, 0] == .white)
        #expect(framebuffer[1, 0] == RGBA(r: 128, g: 128, b: 128))
        #expect(framebuffer[2, 0] == .black)
    }

    @Test("compositing a rectangle writes inside it and nowhere else, on padded rows")
    func rectangleOnly() throws {
        let size = PixelSize(width: 37, height: 23)
        let canvas = try ScratchCanvas(cover: RGBAImage(size: size, filledWith: RGBA(r: 10, g: 20, b: 30)),
                                       prize: RGBAImage(size: size, filledWith: RGBA(r: 200, g: 100, b: 50)),
                                       layout: .bgrx, brush: Brush(radius: 6))
        canvas.penDown(at: Point(x: 18, y: 11))
        let stride = size.width * 4 + 12
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * size.height, alignment: 16)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 7, count: stride * size.height)
        let framebuffer = Framebuffer(borrowing: memory, size: size, bytesPerRow: stride, layout: .bgrx)
        let rect = PixelRect(x: 9, y: 4, width: 19, height: 13)
        canvas.composite(rect, into: framebuffer)
        for y in 0..<size.height {
            for x in 0..<(stride / 4) {
                let raw = memory.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
                if x < size.width && rect.contains(x: x, y: y) {
                    let m = Int(canvas.mask[x, y])
                    #expect(framebuffer[x, y] == RGBA(r: expected(10, 200, m), g: expected(20, 100, m), b: expected(30, 50, m)))
                } else {
                    #expect(raw == 0x0707_0707, "(\(x), \(y)) was written")
                }
            }
        }
    }

    @Test("compositing the changes equals compositing everything")
    func changesMatchFullComposite() throws {
        let size = PixelSize(width: 150, height: 100)
        var coverImage = RGBAImage(size: size, filledWith: .white)
        var prizeImage = RGBAImage(size: size, filledWith: .black)
        for y in 0..<size.height {
            for x in 0..<size.width {
                coverImage[x, y] = RGBA(r: UInt8(x), g: UInt8(y), b: 99)
                prizeImage[x, y] = RGBA(r: 255 - UInt8(x), g: 50, b: UInt8(y * 2))
            }
        }
        let canvas = try ScratchCanvas(cover: coverImage, prize: prizeImage, layout: .rgbx, brush: Brush(radius: 5.5))
        let incremental = Framebuffer(size: size, layout: .rgbx)
        canvas.composite(PixelRect(size: size), into: incremental)
        var rng = SplitMix(seed: 3)
        canvas.penDown(at: Point(x: 20, y: 20))
        for step in 0..<60 {
            let dirty = canvas.penMove(to: Point(x: rng.double(in: -10...160), y: rng.double(in: -10...110)))
            let (rect, pixels, _) = canvas.compositeChanges(into: incremental)
            #expect(rect.union(dirty) == rect || dirty.isEmpty, "step \(step)")
            #expect(pixels <= rect.area)
        }
        let full = Framebuffer(size: size, layout: .rgbx)
        canvas.composite(PixelRect(size: size), into: full)
        #expect(incremental.rgbaImage() == full.rgbaImage())
    }
}

/// Strokes that paint the pixels they change as they go (`paintsDirectly`, as a 4K
/// canvas does) against the damage path, on small canvases where the test sets it.
struct DirectPaintingTests {
    func texturedCanvas(_ size: PixelSize, radius: Double) throws -> ScratchCanvas {
        var cover = RGBAImage(size: size, filledWith: .white)
        var prize = RGBAImage(size: size, filledWith: .black)
        for y in 0..<size.height {
            for x in 0..<size.width {
                cover[x, y] = RGBA(r: UInt8(truncatingIfNeeded: x * 3), g: UInt8(truncatingIfNeeded: y * 5), b: 99,
                                   a: x % 17 == 0 ? 128 : 255)
                prize[x, y] = RGBA(r: UInt8(truncatingIfNeeded: 255 - x), g: 50, b: UInt8(truncatingIfNeeded: y * 2))
            }
        }
        return try ScratchCanvas(cover: cover, prize: prize, layout: .bgrx, brush: Brush(radius: radius))
    }

    /// Every pixel where two framebuffers differ.
    func differences(_ a: RGBAImage, _ b: RGBAImage) -> [(Int, Int)] {
        var out: [(Int, Int)] = []
        for y in 0..<a.size.height {
            for x in 0..<a.size.width where a[x, y] != b[x, y] { out.append((x, y)) }
        }
        return out
    }

    @Test("painting while stroking leaves the pixels compositing the damage would, and reports where",
          arguments: [false, true])
    func sameAsDamage(mixed: Bool) throws {
        let size = PixelSize(width: 173, height: 121)
        let painting = try texturedCanvas(size, radius: 4.5)
        painting.paintsDirectly = true
        let reference = try texturedCanvas(size, radius: 4.5)
        let painted = Framebuffer(size: size, layout: .bgrx)
        let composited = Framebuffer(size: size, layout: .bgrx)
        painting.composite(PixelRect(size: size), into: painted)
        reference.composite(PixelRect(size: size), into: composited)
        var rng = SplitMix(seed: 19)
        var before = painted.rgbaImage()
        for step in 0..<300 {
            // Two pens, dots and moves, some far off the canvas, brushes of many sizes;
            // with `mixed`, one stroke in three keeps its damage (a put was in flight).
            let pen = Int(rng.next() % 2)
            let brush = try Brush(radius: rng.double(in: 0.4...14))
            painting.brush = brush
            reference.brush = brush
            let target: Framebuffer? = mixed && step % 3 == 0 ? nil : painted
            let point = Point(x: rng.double(in: -30...203), y: rng.double(in: -30...151))
            if rng.next() % 6 == 0 || !painting.isPenDown(pen) {
                painting.penDown(at: point, pen: pen, drawingInto: target)
                reference.penDown(at: point, pen: pen)
            } else {
                painting.penMove(to: point, pen: pen, drawingInto: target)
                reference.penMove(to: point, pen: pen)
            }
            if rng.next() % 4 == 0 {
                let (rect, pixels, paintedPixels) = painting.compositeChanges(into: painted)
                reference.compositeChanges(into: composited)
                let after = painted.rgbaImage()
                let outside = differences(before, after).filter { !rect.contains(x: $0.0, y: $0.1) }
                #expect(outside.isEmpty, "step \(step): \(outside.count) pixels changed outside \(rect), as \(outside.prefix(3))")
                #expect(pixels >= paintedPixels && pixels <= rect.area + paintedPixels)
                #expect(differences(after, composited.rgbaImage()).count == 0, "step \(step)")
                before = after
            }
        }
        painting.compositeChanges(into: painted)
        reference.compositeChanges(into: composited)
        let maskDifferences = painting.mask.withUnsafeBytes { a in
            reference.mask.withUnsafeBytes { b in zip(a, b).filter { $0 != $1 }.count }
        }
        #expect(maskDifferences == 0)
        #expect(painting.mask.revealedPixels == reference.mask.revealedPixels)
        #expect(differences(painted.rgbaImage(), composited.rgbaImage()).count == 0)
        let full = Framebuffer(size: size, layout: .bgrx)
        painting.composite(PixelRect(size: size), into: full)
        #expect(differences(painted.rgbaImage(), full.rgbaImage()).count == 0)
    }

    @Test("a framebuffer of another size or layout is not painted: the damage is kept")
    func otherFramebufferKeepsDamage() throws {
        let canvas = try texturedCanvas(PixelSize(width: 40, height: 30), radius: 5)
        canvas.paintsDirectly = true
        for other in [Framebuffer(size: PixelSize(width: 41, height: 30), layout: .bgrx),
                      Framebuffer(size: PixelSize(width: 40, height: 30), layout: .rgbx)] {
            let untouched = other.rgbaImage()
            canvas.penDown(at: Point(x: 20, y: 15), drawingInto: other)
            canvas.penMove(to: Point(x: 30, y: 10), drawingInto: other)
            #expect(other.rgbaImage() == untouched)
            let (rect, pixels, painted) = canvas.compositeChanges(into: Framebuffer(size: canvas.size, layout: .bgrx))
            #expect(painted == 0 && pixels > 0 && rect.contains(x: 20, y: 15) && rect.contains(x: 30, y: 10))
            canvas.reset()
        }
    }

    @Test("only a canvas over 4 million pixels paints as it strokes")
    func paintsOnlyLargeCanvases() throws {
        let white = { (size: PixelSize) in RGBAImage(size: size, filledWith: .white) }
        let hd = PixelSize(width: 1920, height: 1080), uhd = PixelSize(width: 3840, height: 2160)
        #expect(try !ScratchCanvas(cover: white(hd), prize: white(hd), layout: .bgrx, brush: Brush(radius: 4)).paintsDirectly)
        let big = try ScratchCanvas(cover: white(uhd), prize: white(uhd), layout: .bgrx, brush: Brush(radius: 48))
        #expect(big.paintsDirectly)
        let framebuffer = Framebuffer(size: uhd, layout: .bgrx)
        big.penDown(at: Point(x: 100, y: 100), drawingInto: framebuffer)
        big.penMove(to: Point(x: 130, y: 110), drawingInto: framebuffer)
        let (rect, pixels, painted) = big.compositeChanges(into: framebuffer)
        #expect(painted == pixels && painted > 0 && rect.contains(x: 100, y: 100) && rect.contains(x: 130, y: 110))
        #expect(framebuffer[110, 105] == .white && framebuffer[300, 300] == RGBA(r: 0, g: 0, b: 0))
    }
}

struct GeometryTests {
    @Test func unionAndIntersection() {
        let a = PixelRect(x: 0, y: 0, width: 10, height: 10)
        let b = PixelRect(x: 5, y: 8, width: 10, height: 10)
        #expect(a.union(b) == PixelRect(x: 0, y: 0, width: 15, height: 18))
        #expect(a.intersection(b) == PixelRect(x: 5, y: 8, width: 5, height: 2))
        #expect(a.union(.empty) == a && PixelRect.empty.union(a) == a)
        #expect(a.intersection(PixelRect(x: 10, y: 0, width: 3, height: 3)) == .empty)
        #expect(PixelRect(x: 3, y: 3, width: 0, height: 9).area == 0)
    }

    @Test func layoutsFromVisualMasks() {
        #expect(PixelLayout(redMask: 0xFF0000, greenMask: 0xFF00, blueMask: 0xFF, littleEndian: true) == .bgrx)
        #expect(PixelLayout(redMask: 0xFF0000, greenMask: 0xFF00, blueMask: 0xFF, littleEndian: false) == .xrgb)
        #expect(PixelLayout(redMask: 0xFF, greenMask: 0xFF00, blueMask: 0xFF0000, littleEndian: true) == .rgbx)
        #expect(PixelLayout(redMask: 0xF800, greenMask: 0x7E0, blueMask: 0x1F, littleEndian: true) == nil)
        #expect(PixelLayout.bgrx.padOffset == 3 && PixelLayout.xrgb.padOffset == 0)
    }
}

/// The fade a revealed card runs through: the composite with every mask value lifted.
struct FadeTests {
    @Test("the fade composite lifts every mask value toward the prize, exactly")
    func fadeComposite() throws {
        let size = PixelSize(width: 256, height: 1)
        let canvas = try ScratchCanvas(cover: RGBAImage(size: size, filledWith: RGBA(r: 0, g: 100, b: 255)),
                                       prize: RGBAImage(size: size, filledWith: RGBA(r: 255, g: 0, b: 10)),
                                       layout: .bgrx, brush: Brush(radius: 1))
        canvas.mask.withUnsafeBytes { bytes in
            let p = UnsafeMutablePointer(mutating: bytes.baseAddress!)
            for v in 0..<256 { p[v] = UInt8(v) }
        }
        let framebuffer = Framebuffer(size: size, layout: .bgrx)
        canvas.composite(PixelRect(size: size), into: framebuffer, fade: 1)
        for x in 0..<256 { #expect(framebuffer[x, 0] == RGBA(r: 255, g: 0, b: 10)) }
        canvas.composite(PixelRect(size: size), into: framebuffer, fade: 0.5)
        for m in [0, 100, 255] {
            let lifted = Double(m) + Double(255 - m) * (128.0 / 255)
            let expected = UInt8((Double(255) * lifted.rounded() / 255).rounded())
            #expect(framebuffer[m, 0].r == expected, "mask \(m)")
        }
    }
}

/// Touch events become strokes through `Fingers` and the canvas's pens: synthetic
/// touches straight into the engine here; real ones through a server in TouchAppTests.
struct FingersTests {
    @Test("two fingers scratch at once, each from its own last point; a third waits")
    func twoFingers() throws {
        var fingers = Fingers(maximum: 2)
        let image = RGBAImage(size: PixelSize(width: 100, height: 60), filledWith: .white)
        let canvas = try ScratchCanvas(cover: image, prize: image, layout: .bgrx, brush: Brush(radius: 3))
        let first = fingers.begin(101), second = fingers.begin(202)
        let a = try #require(first), b = try #require(second)
        #expect(a != b && a > 0 && b > 0)
        let third = fingers.begin(303)
        #expect(third == nil, "a third finger is ignored")
        canvas.penDown(at: Point(x: 10, y: 10), pen: a)
        canvas.penDown(at: Point(x: 10, y: 50), pen: b)
        canvas.penMove(to: Point(x: 90, y: 10), pen: a)
        canvas.penMove(to: Point(x: 90, y: 50), pen: b)
        // Two separate bands; nothing joined the fingers to each other.
        #expect(canvas.mask[50, 10] == 255 && canvas.mask[50, 50] == 255)
        #expect(canvas.mask[50, 30] == 0)
        let lifted = fingers.end(101)
        #expect(lifted == a)
        let again = fingers.begin(303)
        #expect(again == a, "a lifted finger's pen is free again")
    }

    @Test("with a limit of 1, a second finger does nothing")
    func oneFinger() {
        var fingers = Fingers(maximum: 1)
        let one = fingers.begin(1), two = fingers.begin(2)
        #expect(one == 1 && two == nil)
        #expect(fingers.pen(of: 2) == nil)
        let ended = fingers.end(2)
        #expect(ended == nil)
        #expect(fingers.count == 1)
    }
}
