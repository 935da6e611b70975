import Foundation
import Testing
import ScratchCore
@testable import ScratchImage

/// A JPEG decoded at libjpeg-turbo's reduced scales for a thumbnail: the smallest scale
/// whose longer side is still at least what is asked, upright, the picture the same.
struct JPEGReducedDecodeTests {
    static func photo() throws -> [UInt8] {
        var image = RGBAImage(size: PixelSize(width: 800, height: 600), filledWith: RGBA(r: 200, g: 40, b: 40))
        for y in 0..<600 { for x in 400..<800 { let i = (y * 800 + x) * 4; image.bytes[i] = 30; image.bytes[i + 1] = 90; image.bytes[i + 2] = 210 } }
        return try JPEGFile.encode(image, quality: 95)
    }

    @Test("the smallest scale at least as big as asked: 1/8, 3/8, 1/2, or the whole picture")
    func scales() throws {
        let bytes = try Self.photo()
        for (asked, size) in [(100, PixelSize(width: 100, height: 75)), (64, PixelSize(width: 100, height: 75)),
                              (256, PixelSize(width: 300, height: 225)), (400, PixelSize(width: 400, height: 300)),
                              (800, PixelSize(width: 800, height: 600)), (5000, PixelSize(width: 800, height: 600))] {
            let image = try JPEGFile.decode(bytes, name: "photo.jpg", reducedTo: asked)
            #expect(image.size == size, "asked \(asked): \(image.size)")
            // The same picture: red on the left, blue on the right.
            let left = image[image.width / 4, image.height / 2], right = image[image.width * 3 / 4, image.height / 2]
            #expect(abs(Int(left.r) - 200) < 12 && abs(Int(right.b) - 210) < 12, "asked \(asked): \(left) \(right)")
        }
        // Through ImageFile, by the signature; a PNG is decoded whole.
        #expect(try ImageFile.decode(bytes, name: "photo.jpg", reducedTo: 100).size == PixelSize(width: 100, height: 75))
    }

    @Test("a reduced decode is turned upright by the EXIF orientation")
    func upright() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let rotated = Array(try Data(contentsOf: fixtures.appendingPathComponent("orient-6.jpg")))
        let whole = try JPEGFile.decode(rotated, name: "orient-6.jpg")
        let reduced = try JPEGFile.decode(rotated, name: "orient-6.jpg", reducedTo: 8)
        #expect(reduced.size == PixelSize(width: whole.width / 8, height: whole.height / 8), "\(whole.size) -> \(reduced.size)")
    }
}
