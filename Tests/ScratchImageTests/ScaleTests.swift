import ScratchCore
import ScratchImage
import Testing
import Foundation

@Suite("scaledToFill")
struct ScaleTests {
    static func image(width: Int, height: Int, _ pixel: (Int, Int) -> RGBA) -> RGBAImage {
        var image = RGBAImage(size: PixelSize(width: width, height: height), filledWith: .black)
        for y in 0..<height { for x in 0..<width { image[x, y] = pixel(x, y) } }
        return image
    }

    /// How many pixels differ (keeps failure messages short for big images).
    static func differingPixels(_ a: RGBAImage, _ b: RGBAImage) -> Int {
        precondition(a.size == b.size)
        var count = 0
        for i in stride(from: 0, to: a.bytes.count, by: 4) where a.bytes[i..<i + 4] != b.bytes[i..<i + 4] {
            count += 1
        }
        return count
    }

    @Test func sameSizeIsIdentical() {
        let source = PNGTests.sampleImage(width: 31, height: 17)
        #expect(source.scaledToFill(source.size) == source)
    }

    @Test func halvingAveragesEachTwoByTwoBlockExactly() {
        // Each 2x2 block holds 0, 60, 120, 180 (+ a per-block offset): the mean is 90 + offset.
        let source = Self.image(width: 16, height: 10) { x, y in
            let v = UInt8(((x & 1) * 2 + (y & 1)) * 60 + (x / 2) * 3 + (y / 2) * 5)
            return RGBA(r: v, g: 255 - v, b: UInt8((x & 1) * 200), a: 255)
        }
        let half = source.scaledToFill(PixelSize(width: 8, height: 5))
        #expect(half.size == PixelSize(width: 8, height: 5))
        for y in 0..<5 {
            for x in 0..<8 {
                let mean = UInt8(90 + x * 3 + y * 5)
                #expect(half[x, y] == RGBA(r: mean, g: 255 - mean, b: 100, a: 255), "at \(x),\(y)")
            }
        }
    }

    @Test func checkerboardHalvesToItsMean() {
        let source = Self.image(width: 20, height: 20) { x, y in
            (x + y) & 1 == 0 ? RGBA(r: 10, g: 20, b: 30) : RGBA(r: 250, g: 220, b: 130)
        }
        let half = source.scaledToFill(PixelSize(width: 10, height: 10))
        #expect(half.bytes == RGBAImage(size: PixelSize(width: 10, height: 10),
                                        filledWith: RGBA(r: 130, g: 120, b: 80)).bytes)
    }

    @Test func wideSourceIsCroppedCentred() {
        // 80x20 into 20x10: scale 1/2 (the height decides), the middle 40 columns show.
        // Columns 0..<20 red, 20..<60 green, 60..<80 blue; columns 20 and 21 white.
        let red = RGBA(r: 255, g: 0, b: 0), green = RGBA(r: 0, g: 255, b: 0), blue = RGBA(r: 0, g: 0, b: 255)
        let source = Self.image(width: 80, height: 20) { x, _ in
            x < 20 ? red : x < 22 ? .white : x < 60 ? green : blue
        }
        let out = source.scaledToFill(PixelSize(width: 20, height: 10))
        for y in 0..<10 {
            #expect(out[0, y] == .white)
            for x in 1..<20 { #expect(out[x, y] == green, "at \(x),\(y)") }
        }
    }

    @Test func tallSourceIsCroppedCentred() {
        // 10x40 into 10x20 at scale 1: rows 10..<30 show, copied exactly.
        let source = Self.image(width: 10, height: 40) { x, y in RGBA(r: UInt8(y * 5), g: UInt8(x * 20), b: 7) }
        let out = source.scaledToFill(PixelSize(width: 10, height: 20))
        for y in 0..<20 {
            for x in 0..<10 { #expect(out[x, y] == source[x, y + 10]) }
        }
    }

    @Test func enlargingIsCroppedCentredAndSmooth() {
        // 4x2 into 4x4: scale 2, the middle 2 columns show, enlarged.
        let source = Self.image(width: 4, height: 2) { x, _ in RGBA(r: UInt8(x * 80), g: 0, b: 0) }
        let out = source.scaledToFill(PixelSize(width: 4, height: 4), enlargingWith: .bilinear)
        let row = (0..<4).map { out[$0, 0].r }
        // Pixel centres map to source x 0.75, 1.25, 1.75, 2.25 (r = 80 * x).
        #expect(row == [60, 100, 140, 180])
        for y in 1..<4 { #expect((0..<4).map { out[$0, y].r } == row) }
    }

    @Test(arguments: [(37, 23, 100, 61), (37, 23, 11, 7), (37, 23, 29, 29), (5, 5, 333, 17)])
    func solidColourStaysSolid(sw: Int, sh: Int, tw: Int, th: Int) {
        let colour = RGBA(r: 12, g: 200, b: 99, a: 255)
        let translucent = RGBA(r: 240, g: 17, b: 3, a: 77)
        for c in [colour, translucent] {
            let out = RGBAImage(size: PixelSize(width: sw, height: sh), filledWith: c)
                .scaledToFill(PixelSize(width: tw, height: th))
            #expect(out.size == PixelSize(width: tw, height: th))
            #expect(Self.differingPixels(out, RGBAImage(size: out.size, filledWith: c)) == 0, "\(c) at \(out[0, 0])")
        }
    }

    @Test(arguments: [(30, 10, 7, 3), (31, 10, 12, 4), (6, 2, 27, 9)])
    func transparencyDoesNotDarken(sw: Int, sh: Int, tw: Int, th: Int) {
        // Left half opaque orange, right half fully transparent black.
        let orange = RGBA(r: 250, g: 140, b: 20, a: 255)
        let source = Self.image(width: sw, height: sh) { x, _ in
            x < sw / 2 ? orange : RGBA(r: 0, g: 0, b: 0, a: 0)
        }
        let out = source.scaledToFill(PixelSize(width: tw, height: th))
        var sawPartial = false
        for y in 0..<th {
            for x in 0..<tw {
                let p = out[x, y]
                if p.a == 0 { continue }
                if p.a < 255 { sawPartial = true }
                #expect(p.r == orange.r && p.g == orange.g && p.b == orange.b, "at \(x),\(y): \(p)")
            }
        }
        #expect(sawPartial)
        #expect(out[0, 0] == orange)
        #expect(out[tw - 1, 0].a == 0)
    }

    @Test func fractionalShrinkWeighsPartialPixels() {
        // 3 columns into 2 (and 3 rows into 2): output pixel 0 covers source [0, 1.5),
        // so it is (a + b / 2) / 1.5; pixel 1 covers [1.5, 3), (b / 2 + c) / 1.5.
        let source = Self.image(width: 3, height: 3) { x, _ in RGBA(r: [0, 90, 240][x], g: 0, b: 0) }
        let out = source.scaledToFill(PixelSize(width: 2, height: 2))
        #expect(out[0, 0].r == 30)
        #expect(out[1, 0].r == 190)
        #expect(out[0, 1] == out[0, 0])
    }

    @Test func singlePixelGrowsToAnything() {
        let one = RGBAImage(size: PixelSize(width: 1, height: 1), filledWith: RGBA(r: 9, g: 8, b: 7, a: 200))
        let out = one.scaledToFill(PixelSize(width: 640, height: 400))
        #expect(out.size == PixelSize(width: 640, height: 400))
        #expect(Self.differingPixels(out, RGBAImage(size: out.size, filledWith: RGBA(r: 9, g: 8, b: 7, a: 200))) == 0)
    }

    // MARK: - Enlarging filters

    /// PSNR in dB over R, G and B.
    static func psnr(_ a: RGBAImage, _ b: RGBAImage) -> Double {
        var sum = 0.0
        for i in stride(from: 0, to: a.bytes.count, by: 4) {
            for c in 0..<3 { let d = Double(a.bytes[i + c]) - Double(b.bytes[i + c]); sum += d * d }
        }
        return 10 * log10(255 * 255 / max(1e-9, sum / Double(a.size.pixelCount * 3)))
    }

    /// A picture with what photos and drawings have: smooth shading, fine texture, and
    /// hard-edged shapes (a disc, bars, a thin line).
    static let picture = image(width: 256, height: 160) { x, y in
        let fx = Double(x), fy = Double(y)
        var v = 120 + 50 * sin(fx / 9) * cos(fy / 13) + 20 * sin((fx + 2 * fy) / 3.7)
        if (fx - 70) * (fx - 70) + (fy - 80) * (fy - 80) < 900 { v = 235 }
        if x >= 150 && x < 230 && (x / 10) % 2 == 0 && y > 30 && y < 130 { v = 15 }
        if y == 140 || y == 141 { v = 250 }
        let b = UInt8(max(0, min(255, v))), g = UInt8(max(0, min(255, 255 - v)))
        return RGBA(r: b, g: g, b: UInt8((x * 3 + y) % 256), a: 255)
    }

    @Test("shrunk 4x and enlarged back, Lanczos-3 (the standard) and Catmull-Rom come closer to the original than bilinear")
    func sharpFiltersBeatBilinear() {
        let original = Self.picture
        let small = original.scaledToFill(PixelSize(width: 64, height: 40))
        let bilinear = Self.psnr(original, small.scaledToFill(original.size, enlargingWith: .bilinear))
        let cubic = Self.psnr(original, small.scaledToFill(original.size, enlargingWith: .catmullRom))
        let lanczos = Self.psnr(original, small.scaledToFill(original.size, enlargingWith: .lanczos3))
        let standard = Self.psnr(original, small.scaledToFill(original.size))
        #expect(EnlargingFilter.standard == .lanczos3)
        #expect(standard == lanczos)
        #expect(cubic > bilinear + 0.3, "catmull-rom \(cubic) dB, bilinear \(bilinear) dB")
        #expect(lanczos > bilinear + 0.3, "lanczos-3 \(lanczos) dB, bilinear \(bilinear) dB")
    }

    @Test("a hard edge enlarged 8x rises more steeply with Lanczos-3 and Catmull-Rom than bilinear")
    func edgesStaySharp() {
        let step = Self.image(width: 16, height: 4) { x, _ in x < 8 ? RGBA(r: 10, g: 10, b: 10) : RGBA(r: 245, g: 245, b: 245) }
        /// The largest rise between neighbouring pixels of row 16.
        func steepest(_ filter: EnlargingFilter) -> Int {
            let big = step.scaledToFill(PixelSize(width: 128, height: 32), enlargingWith: filter)
            return (1..<128).map { Int(big[$0, 16].r) - Int(big[$0 - 1, 16].r) }.max()!
        }
        let bilinear = steepest(.bilinear), lanczos = steepest(.lanczos3), cubic = steepest(.catmullRom)
        #expect((29...30).contains(bilinear), "bilinear rises 235 over 8 px: \(bilinear)")
        #expect(lanczos >= 34 && cubic >= 34, "lanczos \(lanczos), catmull-rom \(cubic), bilinear \(bilinear)")
        // Far from the edge, the flat areas are exact.
        let big = step.scaledToFill(PixelSize(width: 128, height: 32))
        #expect(big[2, 3] == RGBA(r: 10, g: 10, b: 10) && big[125, 30] == RGBA(r: 245, g: 245, b: 245))
    }

    @Test("the kernels: 1 at their centre, 0 at the other whole pixels, and what they are in between")
    func kernels() {
        for filter in EnlargingFilter.allCases {
            #expect(filter.weight(0) == 1)
            for d in 1...4 { #expect(abs(filter.weight(Double(d))) < 1e-12 && abs(filter.weight(-Double(d))) < 1e-12) }
        }
        #expect(EnlargingFilter.bilinear.weight(0.25) == 0.75)
        #expect(EnlargingFilter.catmullRom.weight(0.5) == 0.5625 && EnlargingFilter.catmullRom.weight(1.5) == -0.0625)
        #expect(abs(EnlargingFilter.lanczos3.weight(0.5) - 0.6079271) < 1e-6)
        #expect(EnlargingFilter.lanczos3.weight(1.5) < 0 && EnlargingFilter.lanczos3.weight(2.5) > 0)
    }
}
