import CJPEG
import Foundation
@testable import ScratchImage
import ScratchCore
import Testing

/// The fixtures made by scripts/make-image-fixtures.sh.
enum Fixture {
    static func path(_ name: String) throws -> String {
        let dot = name.lastIndex(of: ".")!
        let url = try #require(Bundle.module.url(forResource: String(name[..<dot]), withExtension: String(name[name.index(after: dot)...]),
                                                 subdirectory: "Fixtures"))
        return url.path
    }

    static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: try path(name)))) }

    /// quadrants.png's colours: red top-left, green top-right, blue bottom-left, yellow bottom-right.
    static let topLeft = RGBA(r: 220, g: 30, b: 30), topRight = RGBA(r: 30, g: 180, b: 60)
    static let bottomLeft = RGBA(r: 30, g: 60, b: 200), bottomRight = RGBA(r: 230, g: 210, b: 40)
}

/// Whether two colours differ by at most `tolerance` in each of R, G, B.
func near(_ a: RGBA, _ b: RGBA, _ tolerance: Int = 10) -> Bool {
    abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance && abs(Int(a.b) - Int(b.b)) <= tolerance
}

/// The colours in the middle of each quadrant of an image: TL, TR, BL, BR.
func quadrants(_ image: RGBAImage) -> [RGBA] {
    let w = image.width, h = image.height
    return [image[w / 4, h / 4], image[3 * w / 4, h / 4], image[w / 4, 3 * h / 4], image[3 * w / 4, 3 * h / 4]]
}

func isUprightQuadrants(_ image: RGBAImage, tolerance: Int = 10) -> Bool {
    let expected = [Fixture.topLeft, Fixture.topRight, Fixture.bottomLeft, Fixture.bottomRight]
    return image.size == PixelSize(width: 64, height: 48) && zip(quadrants(image), expected).allSatisfy { near($0, $1, tolerance) }
}

@Suite("JPEG decoding")
struct JPEGTests {
    @Test("a baseline JPEG decodes to its colours, opaque")
    func baseline() throws {
        let image = try JPEGFile.decode(try Fixture.bytes("orient-1.jpg"), name: "orient-1.jpg")
        #expect(Bool(isUprightQuadrants(image)), "\(image.size) \(quadrants(image))")
        #expect(stride(from: 3, to: image.bytes.count, by: 4).allSatisfy { image.bytes[$0] == 255 })
    }

    @Test("each EXIF orientation 1...8 is turned upright", arguments: 1...8)
    func orientation(value: Int) throws {
        let bytes = try Fixture.bytes("orient-\(value).jpg")
        // The file really is stored turned (sides swapped for 5-8) and tagged.
        guard case .success(let markers) = JPEGMarkers.scan(bytes) else { Issue.record("no markers"); return }
        #expect(markers.orientation.rawValue == value)
        #expect(markers.frame?.width == (value >= 5 ? 48 : 64))
        let image = try ImageFile.read(path: try Fixture.path("orient-\(value).jpg"))
        #expect(Bool(isUprightQuadrants(image)), "orientation \(value): \(image.size) \(quadrants(image))")
    }

    @Test("a progressive JPEG decodes")
    func progressive() throws {
        let bytes = try Fixture.bytes("progressive.jpg")
        guard case .success(let markers) = JPEGMarkers.scan(bytes) else { Issue.record("no markers"); return }
        #expect(markers.frame?.isProgressive == true)
        #expect(isUprightQuadrants(try JPEGFile.decode(bytes, name: "p.jpg")))
    }

    @Test("a greyscale JPEG decodes to grey RGBA with each quadrant's luma")
    func grayscale() throws {
        let bytes = try Fixture.bytes("gray.jpg")
        guard case .success(let markers) = JPEGMarkers.scan(bytes) else { Issue.record("no markers"); return }
        #expect(markers.frame?.sampling.count == 1)
        let image = try JPEGFile.decode(bytes, name: "g.jpg")
        #expect(image.size == PixelSize(width: 64, height: 48))
        let grey = stride(from: 0, to: image.bytes.count, by: 4).allSatisfy { (i: Int) -> Bool in
            image.bytes[i] == image.bytes[i + 1] && image.bytes[i] == image.bytes[i + 2]
        }
        #expect(grey)
        // Rec. 709 luma of each quadrant's colour, as ImageMagick's Gray uses.
        let colours = [Fixture.topLeft, Fixture.topRight, Fixture.bottomLeft, Fixture.bottomRight]
        let luma = colours.map { (c: RGBA) -> UInt8 in
            let y: Double = 0.2126 * Double(c.r) + 0.7152 * Double(c.g) + 0.0722 * Double(c.b)
            return UInt8(y.rounded())
        }
        for (got, want) in zip(quadrants(image), luma) { #expect(near(got, RGBA(r: want, g: want, b: want), 12), "\(got) vs \(want)") }
    }

    @Test("a CMYK JPEG (Adobe, inverted, as ImageMagick and Photoshop write it) decodes to its RGB colours")
    func cmyk() throws {
        let bytes = try Fixture.bytes("cmyk.jpg")
        guard case .success(let markers) = JPEGMarkers.scan(bytes) else { Issue.record("no markers"); return }
        #expect(markers.frame?.sampling.count == 4)
        let image = try JPEGFile.decode(bytes, name: "c.jpg")
        #expect(Bool(isUprightQuadrants(image, tolerance: 12)), "\(quadrants(image))")
    }

    @Test("a YCCK JPEG (CMYK through TurboJPEG's compressor) decodes to its RGB colours")
    func ycck() throws {
        // Inverted CMYK for the four quadrant colours: C' = R / (K' / 255), K' = max(R, G, B).
        let colours = [Fixture.topLeft, Fixture.topRight, Fixture.bottomLeft, Fixture.bottomRight]
        let w = 32, h = 32
        var cmyk = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let c = colours[(y >= h / 2 ? 2 : 0) + (x >= w / 2 ? 1 : 0)]
                let k = max(c.r, c.g, c.b)
                let i = (y * w + x) * 4
                cmyk[i] = UInt8(Int(c.r) * 255 / Int(k)); cmyk[i + 1] = UInt8(Int(c.g) * 255 / Int(k))
                cmyk[i + 2] = UInt8(Int(c.b) * 255 / Int(k)); cmyk[i + 3] = k
            }
        }
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var jpeg: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = tjCompress2(handle, cmyk, Int32(w), 0, Int32(h), Int32(TJPF_CMYK.rawValue), &jpeg, &size,
                                 Int32(TJSAMP_444.rawValue), 95, 0)
        defer { tjFree(jpeg) }
        #expect(status == 0)
        let bytes = Array(UnsafeBufferPointer(start: try #require(jpeg), count: Int(size)))
        // TurboJPEG writes CMYK as YCCK: Adobe's transform flag (APP14, last byte) is 2.
        let adobe = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xEE })
        #expect(bytes[adobe + 15] == 2)
        let image = try JPEGFile.decode(bytes, name: "ycck.jpg")
        let got = quadrants(image)
        for (g, want) in zip(got, colours) { #expect(near(g, want, 12), "\(g) vs \(want)") }
    }

    @Test("every truncation of a JPEG is refused with the file named, none crashes")
    func truncated() throws {
        for name in ["orient-6.jpg", "progressive.jpg", "cmyk.jpg"] {
            let bytes = try Fixture.bytes(name)
            for length in 0..<bytes.count {
                do {
                    _ = try ImageFile.decode(Array(bytes.prefix(length)), name: name)
                    Issue.record("\(name) cut to \(length) of \(bytes.count) bytes decoded")
                } catch {
                    #expect(error.path == name && !error.problem.isEmpty)
                }
            }
        }
        let error = #expect(throws: ImageError.self) {
            let bytes = try Fixture.bytes("orient-1.jpg")
            return try JPEGFile.decode(Array(bytes.prefix(bytes.count - 40)), name: "cut.jpg")
        }
        #expect(error?.problem.hasPrefix("truncated JPEG") == true, "\(String(describing: error))")
    }

    /// orient-1.jpg with its frame header's size replaced.
    func withClaimedSize(width: Int, height: Int) throws -> [UInt8] {
        var bytes = try Fixture.bytes("orient-1.jpg")
        let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 255)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 255)
        return bytes
    }

    @Test("a small file claiming a huge image is refused before the pixels are allocated")
    func hugeClaim() throws {
        let before = residentBytes()
        let huge = #expect(throws: ImageError.self) { try JPEGFile.decode(try withClaimedSize(width: 16384, height: 16384), name: "huge.jpg") }
        #expect(huge?.problem.contains("too few to hold it") == true, "\(String(describing: huge))")
        #expect(residentBytes() - before < 64 << 20)
        let wide = #expect(throws: ImageError.self) { try JPEGFile.decode(try withClaimedSize(width: 20000, height: 8), name: "wide.jpg") }
        #expect(wide?.problem == "image is 20000x8; the limit is 16384 on a side and 268435456 pixels")
        #expect(wide?.description.hasPrefix("wide.jpg: ") == true)
    }

    @Test("the least a Huffman-coded frame needs: one bit per 8x8 block of its smallest component")
    func minimumEntropyBytes() {
        let frame420 = JPEGFrame(marker: 0xC0, precision: 8, width: 1600, height: 1200, sampling: [(2, 2), (1, 1), (1, 1)])
        #expect(frame420.minimumEntropyBytes == (100 * 75) / 8)
        let grey = JPEGFrame(marker: 0xC2, precision: 8, width: 9, height: 9, sampling: [(1, 1)])
        #expect(grey.minimumEntropyBytes == 0)      // 4 blocks: half a byte
        #expect(JPEGFrame(marker: 0xC0, precision: 8, width: 8, height: 8, sampling: [(0, 1)]).minimumEntropyBytes == nil)
    }

    @Test("arithmetic-coded, lossless and 12-bit JPEGs get a clear message")
    func unsupportedKinds() throws {
        var bytes = try Fixture.bytes("orient-1.jpg")
        let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        for (marker, precision, words) in [(UInt8(0xC9), UInt8(8), "arithmetic-coded JPEG"), (0xC3, 8, "lossless JPEG"), (0xC0, 12, "12-bit JPEG")] {
            bytes[sof + 1] = marker; bytes[sof + 4] = precision
            let error = #expect(throws: ImageError.self) { try JPEGFile.decode(bytes, name: "odd.jpg") }
            #expect(error?.problem.hasPrefix(words) == true, "\(String(describing: error))")
        }
    }

    /// orient-6.jpg (stored turned, tagged 6) with its EXIF block's bytes changed by `damage`.
    func withDamagedExif(_ damage: (inout [UInt8], Int) -> Void) throws -> [UInt8] {
        var bytes = try Fixture.bytes("orient-6.jpg")
        let app1 = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xE1 })
        damage(&bytes, app1 + 10)     // the TIFF header: after FF E1, the length, "Exif\0\0"
        return bytes
    }

    @Test("a malformed EXIF block: the picture loads as stored, never crashes")
    func malformedExif() throws {
        // IFD0's offset far past the block; its entry count past the block; the tag's type wrong; a byte order that is neither.
        let damages: [(inout [UInt8], Int) -> Void] = [
            { b, t in b[t + 4] = 0x7F; b[t + 5] = 0xFF },
            { b, t in b[t + 8] = 0xFF; b[t + 9] = 0xFF },
            { b, t in b[t + 12] = 0x00; b[t + 13] = 0x04 },
            { b, t in b[t] = 0x41 },
        ]
        for (i, damage) in damages.enumerated() {
            let bytes = try withDamagedExif(damage)
            guard case .success(let markers) = JPEGMarkers.scan(bytes) else { Issue.record("damage \(i): no markers"); continue }
            #expect(markers.orientation == .up && markers.exifUnreadable, "damage \(i)")
            let image = try JPEGFile.decode(bytes, name: "exif.jpg")
            #expect(image.size == PixelSize(width: 48, height: 64), "damage \(i): as stored")
        }
        // Every byte of the block set to each of a few values: decoded (some way up) or refused, never a crash.
        let original = try Fixture.bytes("orient-6.jpg")
        let app1 = try #require(original.indices.first { original[$0] == 0xFF && original[$0 + 1] == 0xE1 })
        let length = Int(original[app1 + 2]) << 8 | Int(original[app1 + 3])
        for at in (app1 + 4)..<(app1 + 2 + length) {
            for value: UInt8 in [0x00, 0x08, 0xFF] {
                var bytes = original
                bytes[at] = value
                if let image = try? JPEGFile.decode(bytes, name: "exif.jpg") {
                    #expect(image.size.pixelCount == 48 * 64)
                }
            }
        }
    }

    @Test("stray bytes between markers (as some cameras write) are skipped, as libjpeg skips them")
    func strayBytesBetweenMarkers() throws {
        var bytes = try Fixture.bytes("orient-6.jpg")
        let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes.insert(contentsOf: [0x00, 0x12, 0x34], at: sof)
        guard case .success(let markers) = JPEGMarkers.scan(bytes) else { Issue.record("no markers"); return }
        #expect(markers.frame?.width == 48 && markers.orientation == .rotatedClockwise)
        #expect(Bool(isUprightQuadrants(try JPEGFile.decode(bytes, name: "stray.jpg"))))
    }

    @Test("the decoder is picked by the file's first bytes, not its name")
    func pickedBySignature() throws {
        let folder = ScratchFolder()
        let jpegBytes = try Fixture.bytes("orient-1.jpg")
        try Data(jpegBytes).write(to: URL(fileURLWithPath: folder.file("photo.png")))
        #expect(isUprightQuadrants(try ImageFile.read(path: folder.file("photo.png"))))
        try PNGFile.write(RGBAImage(size: PixelSize(width: 3, height: 2), filledWith: .white), to: folder.file("image.jpg"))
        #expect(try ImageFile.read(path: folder.file("image.jpg")).size == PixelSize(width: 3, height: 2))
        try Data("GIF89a not really".utf8).write(to: URL(fileURLWithPath: folder.file("x.gif")))
        let error = #expect(throws: ImageError.self) { try ImageFile.read(path: folder.file("x.gif")) }
        #expect(error?.description == folder.file("x.gif") + ": not an image file ScratchCard reads (PNG, JPEG or WebP)")
        let empty = #expect(throws: ImageError.self) { try ImageFile.decode([], name: "e.jpg") }
        #expect(empty?.problem == "not an image file (the file is empty)")
        let dir = #expect(throws: ImageError.self) { try ImageFile.read(path: folder.path) }
        #expect(dir?.problem == "is a folder, not an image file")
    }

    @Test("JPEG out: written atomically, read back at its size and colours; alpha over white")
    func encodeRoundTrip() throws {
        let folder = ScratchFolder()
        let upright = try PNGFile.read(path: try Fixture.path("quadrants.png"))
        let path = folder.file("out.jpg")
        try ImageFile.write(upright, to: path)
        #expect(folder.contents == ["out.jpg"], "no temporary file left behind")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(ImageFormat(signatureOf: bytes) == .jpeg)
        #expect(isUprightQuadrants(try ImageFile.read(path: path)))
        #expect(ImageFile.outputFormat(for: "a/B.JPEG") == .jpeg && ImageFile.outputFormat(for: "b.jpg.png") == .png)

        var translucent = RGBAImage(size: PixelSize(width: 16, height: 16), filledWith: RGBA(r: 0, g: 0, b: 0, a: 0))
        translucent[0, 0] = RGBA(r: 0, g: 0, b: 0, a: 255)
        let flat = try JPEGFile.decode(try JPEGFile.encode(translucent), name: "t.jpg")
        #expect(near(flat[12, 12], .white, 3), "transparent pixels are white: \(flat[12, 12])")
    }
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else { return 0 }
    return kb * 1024
}
