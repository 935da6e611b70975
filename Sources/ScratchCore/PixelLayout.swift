/// Where red, green and blue sit in a 32-bit framebuffer pixel, as byte offsets in
/// memory. The fourth byte is padding (or alpha) and is written as 255.
///
///     let layout = PixelLayout(redMask: 0xFF0000, greenMask: 0xFF00, blueMask: 0xFF,
///                              littleEndian: true)   // .bgrx, the usual X visual
public struct PixelLayout: Hashable, Sendable, CustomStringConvertible {
    public let redOffset: Int
    public let greenOffset: Int
    public let blueOffset: Int
    public var padOffset: Int { 6 - redOffset - greenOffset - blueOffset }

    public init?(redOffset: Int, greenOffset: Int, blueOffset: Int) {
        let offsets = [redOffset, greenOffset, blueOffset]
        guard offsets.allSatisfy({ (0..<4).contains($0) }), Set(offsets).count == 3 else { return nil }
        self.redOffset = redOffset
        self.greenOffset = greenOffset
        self.blueOffset = blueOffset
    }

    /// The layout of a TrueColor visual with 8-bit channels, given its channel masks and
    /// the image's byte order; nil when a mask is not one whole, byte-aligned byte.
    public init?(redMask: UInt32, greenMask: UInt32, blueMask: UInt32, littleEndian: Bool) {
        func offset(_ mask: UInt32) -> Int? {
            guard let shift = [0, 8, 16, 24].first(where: { UInt32(0xFF) << UInt32($0) == mask }) else { return nil }
            return littleEndian ? shift / 8 : 3 - shift / 8
        }
        guard let r = offset(redMask), let g = offset(greenMask), let b = offset(blueMask) else { return nil }
        self.init(redOffset: r, greenOffset: g, blueOffset: b)
    }

    /// B, G, R, X in memory: a little-endian 0x00RRGGBB pixel, the common X visual.
    public static let bgrx = PixelLayout(redOffset: 2, greenOffset: 1, blueOffset: 0)!
    /// R, G, B, X in memory.
    public static let rgbx = PixelLayout(redOffset: 0, greenOffset: 1, blueOffset: 2)!
    /// X, R, G, B in memory: a big-endian 0x00RRGGBB pixel.
    public static let xrgb = PixelLayout(redOffset: 1, greenOffset: 2, blueOffset: 3)!
    /// X, B, G, R in memory.
    public static let xbgr = PixelLayout(redOffset: 3, greenOffset: 2, blueOffset: 1)!

    public var description: String {
        var names = Array(repeating: "X", count: 4)
        names[redOffset] = "R"; names[greenOffset] = "G"; names[blueOffset] = "B"
        return names.joined()
    }
}
