@testable import ScratchImage
import ScratchCore
import Testing

struct OrientationTests {
    /// A 3x2 image whose pixels are a...f by their red channel:  a b c / d e f.
    static let stored: RGBAImage = {
        var image = RGBAImage(size: PixelSize(width: 3, height: 2), filledWith: .black)
        for (i, letter) in "abcdef".utf8.enumerated() { image[i % 3, i / 3] = RGBA(r: letter, g: 0, b: 0) }
        return image
    }()

    /// The letters of an image, row by row, rows separated by "/".
    static func letters(_ image: RGBAImage) -> String {
        (0..<image.height).map { y in String(decoding: (0..<image.width).map { image[$0, y].r }, as: UTF8.self) }.joined(separator: "/")
    }

    @Test("each of the eight orientations turns the stored pixels as EXIF defines", arguments: [
        (1, "abc/def"), (2, "cba/fed"), (3, "fed/cba"), (4, "def/abc"),
        (5, "ad/be/cf"), (6, "da/eb/fc"), (7, "fc/eb/da"), (8, "cf/be/ad"),
    ])
    func turns(value: Int, expected: String) throws {
        let orientation = try #require(ImageOrientation(rawValue: value))
        #expect(Self.letters(orientation.apply(to: Self.stored)) == expected)
    }

    @Test("values outside 1...8 are no orientation")
    func outOfRange() {
        #expect(ImageOrientation(rawValue: 0) == nil && ImageOrientation(rawValue: 9) == nil)
    }
}
