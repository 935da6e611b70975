/// An image in memory: 8-bit RGBA, straight (not premultiplied) alpha, rows top to
/// bottom with no padding. This is how images travel between rooms; the compositor
/// converts them once into the framebuffer's layout.
///
///     var image = RGBAImage(size: PixelSize(width: 2, height: 1), filledWith: .white)
///     image[1, 0] = RGBA(r: 255, g: 0, b: 0, a: 255)
public struct RGBAImage: Equatable, Sendable {
    public let size: PixelSize
    /// `size.width * size.height * 4` bytes: R, G, B, A for each pixel.
    public var bytes: [UInt8]

    public var width: Int { size.width }
    public var height: Int { size.height }

    /// An image made of the given bytes; nil unless there are exactly 4 per pixel.
    public init?(size: PixelSize, bytes: [UInt8]) {
        guard size.width > 0, size.height > 0, bytes.count == size.pixelCount * 4 else { return nil }
        self.size = size
        self.bytes = bytes
    }

    /// An image of one colour.
    public init(size: PixelSize, filledWith colour: RGBA) {
        precondition(size.width > 0 && size.height > 0, "an image needs at least one pixel")
        self.size = size
        var bytes = [UInt8](repeating: 0, count: size.pixelCount * 4)
        for i in stride(from: 0, to: bytes.count, by: 4) {
            bytes[i] = colour.r; bytes[i + 1] = colour.g; bytes[i + 2] = colour.b; bytes[i + 3] = colour.a
        }
        self.bytes = bytes
    }

    public subscript(x: Int, y: Int) -> RGBA {
        get {
            let i = (y * size.width + x) * 4
            return RGBA(r: bytes[i], g: bytes[i + 1], b: bytes[i + 2], a: bytes[i + 3])
        }
        set {
            let i = (y * size.width + x) * 4
            bytes[i] = newValue.r; bytes[i + 1] = newValue.g; bytes[i + 2] = newValue.b; bytes[i + 3] = newValue.a
        }
    }
}

/// One 8-bit RGBA colour, straight alpha.
public struct RGBA: Hashable, Sendable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    public static let black = RGBA(r: 0, g: 0, b: 0)
    public static let white = RGBA(r: 255, g: 255, b: 255)
}
