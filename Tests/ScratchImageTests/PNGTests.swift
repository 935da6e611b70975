@preconcurrency import Glibc
import CPNG
import Foundation
import ScratchCore
import ScratchImage
import Testing

@Suite("PNG decoding and encoding")
struct PNGTests {
    /// A deterministic image whose alpha runs through 0, partial and 255.
    static func sampleImage(width: Int = 13, height: Int = 9) -> RGBAImage {
        var random = TestRandom(state: 0x5EED_1234)
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<bytes.count { bytes[i] = random.byte() }
        for i in stride(from: 3, to: bytes.count, by: 4) where i % 12 == 3 { bytes[i] = 255 }
        return RGBAImage(size: PixelSize(width: width, height: height), bytes: bytes)!
    }

    @Test func roundTripKeepsEveryByteIncludingAlpha() throws {
        let image = Self.sampleImage()
        #expect(image.bytes.enumerated().contains { $0.offset % 4 == 3 && $0.element == 0 })
        let png = try PNGFile.encode(image)
        #expect(Array(png.prefix(8)) == TestPNG.signature)
        let back = try PNGFile.decode(png, name: "mem.png")
        #expect(back.size == image.size)
        // Colour under alpha 0 is kept too: the file stores straight alpha as given.
        #expect(back == image)
    }

    @Test func roundTripThroughAFile() throws {
        let folder = ScratchFolder()
        let image = Self.sampleImage(width: 40, height: 3)
        try PNGFile.write(image, to: folder.file("a.png"))
        #expect(try PNGFile.read(path: folder.file("a.png")) == image)
    }

    @Test func decodesGray() throws {
        let values: [UInt8] = [0, 1, 127, 128, 200, 255]
        let png = TestPNG.encode8(width: 3, height: 2, format: cpng_format_gray(), bytes: values)
        let image = try PNGFile.decode(png, name: "gray.png")
        #expect(image.size == PixelSize(width: 3, height: 2))
        for (i, v) in values.enumerated() {
            #expect(image[i % 3, i / 3] == RGBA(r: v, g: v, b: v, a: 255))
        }
    }

    @Test func decodesGrayWithAlpha() throws {
        let values: [UInt8] = [10, 255, 200, 128, 90, 0]  // (grey, alpha) pairs
        let png = TestPNG.encode8(width: 3, height: 1, format: cpng_format_ga(), bytes: values)
        let image = try PNGFile.decode(png, name: "ga.png")
        #expect(image[0, 0] == RGBA(r: 10, g: 10, b: 10, a: 255))
        #expect(image[1, 0] == RGBA(r: 200, g: 200, b: 200, a: 128))
        #expect(image[2, 0].a == 0)
    }

    @Test func decodesRGB() throws {
        let values: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 12, 34, 56]
        let png = TestPNG.encode8(width: 2, height: 2, format: cpng_format_rgb(), bytes: values)
        let image = try PNGFile.decode(png, name: "rgb.png")
        #expect(image[0, 0] == RGBA(r: 255, g: 0, b: 0))
        #expect(image[1, 0] == RGBA(r: 0, g: 255, b: 0))
        #expect(image[0, 1] == RGBA(r: 0, g: 0, b: 255))
        #expect(image[1, 1] == RGBA(r: 12, g: 34, b: 56))
    }

    @Test func decodes16BitLinear() throws {
        // 16-bit linear RGBA (libpng writes a 16-bit file with gAMA 1.0). Opaque pixels:
        // black, white, and linear 0.2, which is sRGB 0.4845 = 123.5 of 255.
        let samples: [UInt16] = [0, 0, 0, 65535, 65535, 65535, 65535, 65535, 13107, 13107, 13107, 65535]
        let png = samples.withUnsafeBytes {
            TestPNG.encode(width: 3, height: 1, format: cpng_format_linear_rgb_alpha(), pixels: $0.baseAddress!)
        }
        #expect(png[24] == 16, "IHDR bit depth should be 16")
        let image = try PNGFile.decode(png, name: "deep.png")
        #expect(image[0, 0] == RGBA(r: 0, g: 0, b: 0))
        #expect(image[1, 0] == RGBA(r: 255, g: 255, b: 255))
        let mid = image[2, 0]
        #expect((123...124).contains(mid.r) && mid.r == mid.g && mid.g == mid.b && mid.a == 255)
    }

    @Test func decodesPaletteWithTransparency() throws {
        let colormap: [UInt8] = [255, 0, 0, 255,   0, 128, 255, 255,   20, 40, 60, 128,   0, 0, 0, 0]
        let indices: [UInt8] = [0, 1, 2, 3, 3, 2, 1, 0]
        let png = indices.withUnsafeBytes {
            TestPNG.encode(width: 4, height: 2, format: cpng_format_rgba_colormap(), pixels: $0.baseAddress!,
                           colormap: colormap, colormapEntries: 4)
        }
        #expect(png[25] == 3, "IHDR colour type should be 3 (palette)")
        let image = try PNGFile.decode(png, name: "palette.png")
        #expect(image[0, 0] == RGBA(r: 255, g: 0, b: 0))
        #expect(image[1, 0] == RGBA(r: 0, g: 128, b: 255))
        #expect(image[2, 0] == RGBA(r: 20, g: 40, b: 60, a: 128))
        #expect(image[3, 0].a == 0)
        #expect(image[3, 1] == RGBA(r: 255, g: 0, b: 0))
    }

    @Test func decodesInterlaced16BitGrayFixture() throws {
        let url = try #require(Bundle.module.url(forResource: "interlaced-7x5", withExtension: "png",
                                                 subdirectory: "Fixtures"))
        let bytes = try PNGFile.read(path: url.path)
        // The file really is interlaced: IHDR's last byte is the interlace method.
        let raw = try [UInt8](Data(contentsOf: url))
        #expect(raw[28] == 1)
        #expect(bytes.size == PixelSize(width: 7, height: 5))
        // ImageMagick's gradient: white at the top, black at the bottom, rows uniform.
        for x in 0..<7 {
            #expect(bytes[x, 0] == RGBA(r: 255, g: 255, b: 255))
            #expect(bytes[x, 4] == RGBA(r: 0, g: 0, b: 0))
            #expect(bytes[x, 2] == bytes[0, 2])
        }
        #expect(bytes[0, 1].r > bytes[0, 2].r && bytes[0, 2].r > bytes[0, 3].r)
        #expect((100...160).contains(bytes[0, 2].r))
    }

    // MARK: - Bad input

    @Test func missingFile() {
        let folder = ScratchFolder()
        let path = folder.file("nothing.png")
        #expect(throws: ImageError(path: path, problem: "no such file")) {
            try PNGFile.read(path: path)
        }
    }

    @Test func textFileIsNotAPNG() throws {
        let folder = ScratchFolder()
        let path = folder.file("notes.png")
        try "hello, this is text\n".write(toFile: path, atomically: false, encoding: .utf8)
        let error = #expect(throws: ImageError.self) { try PNGFile.read(path: path) }
        #expect(error == ImageError(path: path, problem: "not a PNG file"))
        #expect(error?.description == "\(path): not a PNG file")
    }

    @Test func emptyFile() throws {
        let folder = ScratchFolder()
        let path = folder.file("empty.png")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let error = #expect(throws: ImageError.self) { try PNGFile.read(path: path) }
        #expect(error?.path == path)
        #expect(error?.problem.hasPrefix("not a PNG file") == true)
    }

    @Test func folderIsNotAPNG() {
        let folder = ScratchFolder()
        let error = #expect(throws: ImageError.self) { try PNGFile.read(path: folder.path) }
        #expect(error == ImageError(path: folder.path, problem: "is a folder, not a PNG file"))
    }

    @Test(arguments: [9, 20, 33, 60, 0.5, 0.9] as [Double])
    func truncatedPNG(keep: Double) throws {
        let png = try PNGFile.encode(Self.sampleImage(width: 64, height: 64))
        let count = keep < 1 ? Int(Double(png.count) * keep) : Int(keep)
        let cut = Array(png.prefix(count))
        let error = #expect(throws: ImageError.self) { try PNGFile.decode(cut, name: "cut.png") }
        #expect(error?.path == "cut.png")
        #expect(error?.problem.hasPrefix("truncated PNG") == true, "\(String(describing: error))")
    }

    @Test func corruptImageData() throws {
        var png = try PNGFile.encode(Self.sampleImage(width: 32, height: 32))
        // Scramble the middle of the IDAT payload: its CRC no longer matches.
        for i in (png.count / 2)..<(png.count / 2 + 16) { png[i] ^= 0x5A }
        let error = #expect(throws: ImageError.self) { try PNGFile.decode(png, name: "bad.png") }
        #expect(error?.path == "bad.png")
        #expect(error?.problem.hasPrefix("damaged PNG") == true, "\(String(describing: error))")
    }

    @Test func hugeDeclaredSizeIsRefusedBeforeAllocating() throws {
        let folder = ScratchFolder()
        let path = folder.file("big.png")
        let bytes = TestPNG.header(width: 100_000, height: 100_000)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let clock = ContinuousClock()
        var error: ImageError?
        let elapsed = clock.measure {
            error = #expect(throws: ImageError.self) { try PNGFile.read(path: path) }
        }
        #expect(error == ImageError(path: path,
                                    problem: "image is 100000x100000; the limit is 16384 on a side and 268435456 pixels"))
        #expect(error?.description == "\(path): image is 100000x100000; the limit is 16384 on a side and 268435456 pixels")
        #expect(elapsed < .milliseconds(500))
    }

    @Test func fileOver256MiBIsRefusedBeforeReading() throws {
        // A sparse file: 257 MiB long, no disk used, starting with a PNG signature.
        let folder = ScratchFolder()
        let path = folder.file("huge.png")
        try Data(TestPNG.signature).write(to: URL(fileURLWithPath: path))
        #expect(truncate(path, off_t(257 << 20)) == 0)
        let clock = ContinuousClock()
        var error: ImageError?
        let elapsed = clock.measure {
            error = #expect(throws: ImageError.self) { try PNGFile.read(path: path) }
        }
        #expect(error == ImageError(path: path, problem: "file is 269484032 bytes; the limit is 268435456"))
        #expect(elapsed < .milliseconds(200))
    }

    @Test(arguments: [(16385, 1), (1, 16385), (16384, 16385)] as [(UInt32, UInt32)])
    func tooWideOrTooTall(width: UInt32, height: UInt32) {
        let error = #expect(throws: ImageError.self) {
            try PNGFile.decode(TestPNG.header(width: width, height: height), name: "wide.png")
        }
        #expect(error?.problem.hasPrefix("image is \(width)x\(height); the limit is") == true)
    }

    @Test func largestSideIsNotRefusedForItsSize() {
        // 16384x1 is allowed: decoding then fails on the missing pixel data, not the size.
        let error = #expect(throws: ImageError.self) {
            try PNGFile.decode(TestPNG.header(width: 16384, height: 1), name: "ok.png")
        }
        #expect(error?.problem.hasPrefix("image is") == false)
    }

    @Test func validHeaderCRCHelperMatchesLibpng() throws {
        // The hand-made header passes the size check and libpng reads on to the pixel
        // data, which runs out: so libpng accepted our IHDR and its CRC.
        let error = #expect(throws: ImageError.self) {
            try PNGFile.decode(TestPNG.header(width: 2, height: 2), name: "h.png")
        }
        #expect(error?.problem.hasPrefix("truncated PNG") == true, "\(String(describing: error))")
        // With one CRC byte changed, libpng refuses the header itself.
        var broken = TestPNG.header(width: 2, height: 2)
        broken[29] ^= 0xFF
        let crcError = #expect(throws: ImageError.self) { try PNGFile.decode(broken, name: "h.png") }
        #expect(crcError?.problem.contains("CRC") == true, "\(String(describing: crcError))")
    }
}

@Suite("Interlaced fixtures made with ImageMagick")
struct InterlacedFixtureTests {
    static func load(_ name: String) throws -> RGBAImage {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "png", subdirectory: "Fixtures"))
        let raw = try [UInt8](Data(contentsOf: url))
        #expect(raw[28] == 1, "\(name) should be interlaced")
        return try PNGFile.read(path: url.path)
    }

    /// 16-bit RGBA (read through the 16-bit path) agrees with the same picture saved
    /// as 8-bit RGBA (read through libpng's 8-bit path) to within one level.
    @Test func sixteenBitRGBAMatchesEightBit() throws {
        let deep = try Self.load("rgba16-interlaced-6x5")
        let shallow = try Self.load("rgba8-interlaced-6x5")
        #expect(deep.size == PixelSize(width: 6, height: 5))
        #expect(shallow.size == deep.size)
        #expect(shallow[0, 0] == RGBA(r: 255, g: 0, b: 0, a: 255))
        #expect(shallow[3, 1] == RGBA(r: 239, g: 0, b: 15, a: 204))
        for y in 0..<5 {
            for x in 0..<6 {
                let a = deep[x, y], b = shallow[x, y]
                let close = abs(Int(a.r) - Int(b.r)) <= 1 && abs(Int(a.g) - Int(b.g)) <= 1
                    && abs(Int(a.b) - Int(b.b)) <= 1 && abs(Int(a.a) - Int(b.a)) <= 1
                #expect(close, "at \(x),\(y): \(a) vs \(b)")
            }
        }
    }

    @Test func grayAlpha() throws {
        let image = try Self.load("graya8-interlaced-6x5")
        // Grey falls down the rows (255, 191, 127, 63, 0); alpha rises along them (x / 6).
        let greys: [UInt8] = [255, 191, 127, 63, 0]
        let alphas: [UInt8] = [0, 43, 85, 128, 170, 213]
        for y in 0..<5 {
            for x in 1..<6 {
                #expect(image[x, y] == RGBA(r: greys[y], g: greys[y], b: greys[y], a: alphas[x]), "at \(x),\(y)")
            }
            #expect(image[0, y].a == 0)
        }
    }
}
