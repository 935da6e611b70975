/// 32-bit pixels in a given layout, rows `bytesPerRow` apart: what the compositor writes
/// and the display shows. It either owns its memory or borrows memory that someone else
/// keeps alive (an MIT-SHM segment, an XImage's buffer).
public final class Framebuffer {
    public let size: PixelSize
    public let layout: PixelLayout
    public let bytesPerRow: Int
    /// The first byte of row 0. Valid for `bytesPerRow * size.height` bytes.
    public let baseAddress: UnsafeMutableRawPointer
    private let ownsMemory: Bool

    /// A framebuffer with memory of its own, cleared to black.
    public init(size: PixelSize, layout: PixelLayout) {
        precondition(size.width > 0 && size.height > 0, "a framebuffer needs at least one pixel")
        self.size = size
        self.layout = layout
        self.bytesPerRow = size.width * 4
        let count = bytesPerRow * size.height
        self.baseAddress = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        self.baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        self.ownsMemory = true
    }

    /// A framebuffer over borrowed memory; the caller keeps `baseAddress` valid for
    /// `bytesPerRow * size.height` bytes as long as this object is used.
    public init(borrowing baseAddress: UnsafeMutableRawPointer, size: PixelSize, bytesPerRow: Int, layout: PixelLayout) {
        precondition(size.width > 0 && size.height > 0 && bytesPerRow >= size.width * 4)
        self.size = size
        self.layout = layout
        self.bytesPerRow = bytesPerRow
        self.baseAddress = baseAddress
        self.ownsMemory = false
    }

    deinit {
        if ownsMemory { baseAddress.deallocate() }
    }

    /// The colour of one pixel (alpha is always 255).
    public subscript(x: Int, y: Int) -> RGBA {
        precondition(PixelRect(size: size).contains(x: x, y: y), "pixel (\(x), \(y)) is outside \(size)")
        let p = baseAddress.advanced(by: y * bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
        return RGBA(r: p[layout.redOffset], g: p[layout.greenOffset], b: p[layout.blueOffset])
    }

    /// What the framebuffer shows, as an opaque RGBA image.
    public func rgbaImage() -> RGBAImage {
        var bytes = [UInt8](repeating: 255, count: size.pixelCount * 4)
        for y in 0..<size.height {
            let row = baseAddress.advanced(by: y * bytesPerRow).assumingMemoryBound(to: UInt8.self)
            for x in 0..<size.width {
                let o = (y * size.width + x) * 4
                bytes[o] = row[x * 4 + layout.redOffset]
                bytes[o + 1] = row[x * 4 + layout.greenOffset]
                bytes[o + 2] = row[x * 4 + layout.blueOffset]
            }
        }
        return RGBAImage(size: size, bytes: bytes)!
    }
}
