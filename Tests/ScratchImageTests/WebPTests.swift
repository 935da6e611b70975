import Foundation
@testable import ScratchImage
import ScratchCore
import Testing

@Suite("WebP decoding")
struct WebPTests {
    @Test("a lossless WebP decodes to exactly the picture it was made from")
    func lossless() throws {
        let image = try ImageFile.read(path: try Fixture.path("lossless.webp"))
        #expect(image == (try PNGFile.read(path: try Fixture.path("quadrants.png"))))
    }

    @Test("a lossy WebP decodes to its colours")
    func lossy() throws {
        let bytes = try Fixture.bytes("lossy.webp")
        #expect(bytes[12..<16].elementsEqual("VP8 ".utf8), "the file is lossy (a VP8 chunk)")
        let image = try WebPFile.decode(bytes, name: "lossy.webp")
        #expect(Bool(isUprightQuadrants(image, tolerance: 12)), "\(quadrants(image))")
    }

    @Test("a WebP with alpha keeps it, straight (not premultiplied)")
    func alpha() throws {
        let image = try ImageFile.read(path: try Fixture.path("alpha.webp"))
        #expect(image.size == PixelSize(width: 64, height: 48))
        #expect(image[8, 8] == RGBA(r: 220, g: 30, b: 30, a: 255))
        let right = image[50, 8]
        #expect(right.a >= 126 && right.a <= 129, "\(right)")
        #expect(right.r == 30 && right.g == 180 && right.b == 60, "straight colour under 50% alpha: \(right)")
    }

    @Test("an animated WebP shows its first frame")
    func animated() throws {
        let bytes = try Fixture.bytes("animated.webp")
        #expect(bytes.count > 40 && bytes[30..<34].elementsEqual("ANIM".utf8), "the file is an animation")
        let image = try ImageFile.read(path: try Fixture.path("animated.webp"))
        // The first frame is quadrants.png; the second its negative.
        #expect(Bool(isUprightQuadrants(image, tolerance: 12)), "\(quadrants(image))")
        #expect(image[8, 8].a == 255)
    }

    @Test("every truncation of a WebP is refused with the file named, none crashes")
    func truncated() throws {
        for name in ["lossy.webp", "lossless.webp", "alpha.webp", "animated.webp"] {
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
        let bytes = try Fixture.bytes("lossy.webp")
        let error = #expect(throws: ImageError.self) { try WebPFile.decode(Array(bytes.prefix(bytes.count - 20)), name: "cut.webp") }
        #expect(error?.description == "cut.webp: truncated WebP (the data ends too early)")
    }

    /// A RIFF/WEBP file of one VP8L chunk whose header claims `width` x `height`, and a few data bytes.
    static func losslessHeader(width: Int, height: Int) -> [UInt8] {
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14      // no alpha, version 0
        var chunk: [UInt8] = [0x2F, UInt8(bits & 255), UInt8(bits >> 8 & 255), UInt8(bits >> 16 & 255), UInt8(bits >> 24)]
        chunk += [0, 0, 0, 0, 0, 0, 0]
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24 & 255)] }
        let body = Array("WEBP".utf8) + Array("VP8L".utf8) + le32(chunk.count) + chunk
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    @Test("a WebP claiming a huge image: refused at the limits, or quickly when the data is missing")
    func hugeClaim() throws {
        // The pixel limit is checked on the header (here lowered: libwebp itself allows at
        // most 16384 a side, so a still WebP cannot pass the real limits).
        let limited = #expect(throws: ImageError.self) {
            try WebPFile.decode(Self.losslessHeader(width: 1000, height: 1000), name: "l.webp", maxPixels: 1 << 16)
        }
        #expect(limited?.problem == "image is 1000x1000; the limit is 16384 on a side and 65536 pixels")

        // A VP8X canvas of 100000 x 4, which libwebp refuses (its frame does not match).
        func le24(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255)] }
        let vp8x: [UInt8] = Array("VP8X".utf8) + [10, 0, 0, 0] + [0, 0, 0, 0] + le24(100_000 - 1) + le24(4 - 1)
        let lossless = Self.losslessHeader(width: 100_000 % 16384 + 1, height: 4)
        var wide = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + vp8x + lossless.dropFirst(12)
        let size = wide.count - 8
        wide[4] = UInt8(size & 255); wide[5] = UInt8(size >> 8)
        let error = #expect(throws: ImageError.self) { try WebPFile.decode(wide, name: "wide.webp") }
        #expect(error?.description == "wide.webp: damaged WebP (libwebp: status 3)", "\(String(describing: error))")

        // 16384 x 16384 is within the limits; the data is not there, and nothing is touched.
        let before = residentBytes()
        let big = #expect(throws: ImageError.self) { try WebPFile.decode(Self.losslessHeader(width: 16384, height: 16384), name: "big.webp") }
        #expect(big?.path == "big.webp" && big?.problem.isEmpty == false)
        #expect(residentBytes() - before < 64 << 20)
    }
}
