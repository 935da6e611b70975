import Dispatch

/// An opaque image already in a framebuffer's pixel layout: 4 bytes per pixel, rows
/// top to bottom with no padding, the fourth byte (padding) 255. What a drawing room
/// hands the core when it can draw in the framebuffer's own order (cairo's ARGB32 is
/// B, G, R, A in memory on a little-endian machine, the usual X visual's BGRX), so that
/// no RGBA image is made and converted at start-up: at 4K each conversion is a pass
/// over 33 MB.
///
///     let cover = LayoutImage(size: size, layout: .bgrx, bytes: drawn)!
///     let canvas = try ScratchCanvas(cover: cover, prize: prize, brush: brush)
public struct LayoutImage: Equatable, Sendable {
    public let size: PixelSize
    public let layout: PixelLayout
    /// `size.width * size.height * 4` bytes, each pixel in `layout`.
    public var bytes: [UInt8]

    /// An image made of the given bytes; nil unless there are exactly 4 per pixel. The
    /// padding byte of each pixel should be 255 (an opaque drawing's alpha); it is not
    /// read: the canvas writes 255 there itself.
    public init?(size: PixelSize, layout: PixelLayout, bytes: [UInt8]) {
        guard size.width > 0, size.height > 0, bytes.count == size.pixelCount * 4 else { return nil }
        self.size = size
        self.layout = layout
        self.bytes = bytes
    }

    /// An image of one colour (alpha ignored: the image is opaque).
    public init(size: PixelSize, layout: PixelLayout, filledWith colour: RGBA) {
        precondition(size.width > 0 && size.height > 0, "an image needs at least one pixel")
        self.size = size
        self.layout = layout
        var pixel: [UInt8] = [255, 255, 255, 255]
        pixel[layout.redOffset] = colour.r; pixel[layout.greenOffset] = colour.g; pixel[layout.blueOffset] = colour.b
        let word = pixel.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        bytes = [UInt8](unsafeUninitializedCapacity: size.pixelCount * 4) { buffer, initialized in
            UnsafeMutableRawPointer(buffer.baseAddress!).initializeMemory(as: UInt32.self, repeating: word, count: size.pixelCount)
            initialized = size.pixelCount * 4
        }
    }

    /// `image`'s colours in `layout`, its alpha ignored (as the canvas ignores a prize's).
    public init(_ image: RGBAImage, layout: PixelLayout) {
        size = image.size
        self.layout = layout
        let count = image.size.pixelCount
        let rs = UInt32(layout.redOffset * 8), gs = UInt32(layout.greenOffset * 8), bs = UInt32(layout.blueOffset * 8)
        let padding = ~(0xFF << rs | 0xFF << gs | 0xFF << bs) as UInt32
        bytes = [UInt8](unsafeUninitializedCapacity: count * 4) { buffer, initialized in
            let o = UnsafeMutableRawPointer(buffer.baseAddress!)
            image.bytes.withUnsafeBufferPointer { p in
                let p = p.baseAddress!
                for i in 0..<count {
                    let word = padding | UInt32(p[i * 4]) << rs | UInt32(p[i * 4 + 1]) << gs | UInt32(p[i * 4 + 2]) << bs
                    o.storeBytes(of: word.littleEndian, toByteOffset: i * 4, as: UInt32.self)
                }
            }
            initialized = count * 4
        }
    }

    /// The colour of one pixel (alpha is always 255).
    public subscript(x: Int, y: Int) -> RGBA {
        let i = (y * size.width + x) * 4
        return RGBA(r: bytes[i + layout.redOffset], g: bytes[i + layout.greenOffset], b: bytes[i + layout.blueOffset])
    }
}

extension CardPixels {
    /// The cover/prize pairs of two opaque images already in `layout`: each pixel's two
    /// 4-byte words side by side, padding set to 255. A plain interleave, 4 pixels a turn,
    /// with no per-byte shuffling (the RGBA path's `init(cover:prize:layout:)` places
    /// every byte; at 4K this is several times faster).
    init(cover: LayoutImage, prize: LayoutImage) {
        precondition(cover.size == prize.size && cover.layout == prize.layout, "cover and prize must have the same size and layout")
        let count = cover.size.pixelCount
        let layout = cover.layout
        // The padding byte, 255, at its place in each of the two words, as memory holds them.
        var padBytes = [UInt8](repeating: 0, count: 8)
        padBytes[layout.padOffset] = 255
        padBytes[layout.padOffset + 4] = 255
        let pad = padBytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        let padWord = UInt32(truncatingIfNeeded: pad)
        let out = [UInt8](unsafeUninitializedCapacity: count * 8) { buffer, initialized in
            let o = UnsafeMutableRawPointer(buffer.baseAddress!)
            cover.bytes.withUnsafeBytes { c in
                prize.bytes.withUnsafeBytes { p in
                    let c = c.baseAddress!, p = p.baseAddress!
                    var i = 0
                    #if _endian(little)
                    let pads = SIMD4<UInt64>(repeating: pad)
                    while i + 4 <= count {
                        let cw = c.loadUnaligned(fromByteOffset: i * 4, as: SIMD4<UInt32>.self)
                        let pw = p.loadUnaligned(fromByteOffset: i * 4, as: SIMD4<UInt32>.self)
                        let zipped = SIMD8<UInt32>(cw[0], pw[0], cw[1], pw[1], cw[2], pw[2], cw[3], pw[3])
                        let words = unsafeBitCast(zipped, to: SIMD4<UInt64>.self) | pads
                        o.storeBytes(of: words, toByteOffset: i * 8, as: SIMD4<UInt64>.self)
                        i += 4
                    }
                    #endif
                    while i < count {
                        let cw = c.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                        let pw = p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                        o.storeBytes(of: cw | padWord, toByteOffset: i * 8, as: UInt32.self)
                        o.storeBytes(of: pw | padWord, toByteOffset: i * 8 + 4, as: UInt32.self)
                        i += 1
                    }
                }
            }
            initialized = count * 8
        }
        self.init(size: cover.size, layout: layout, bytes: out)
    }
}

extension CardPixels {
    /// The pairs of the cover that `framebuffer` holds (drawn straight into it, opaque)
    /// and the prize `prize()` returns, in that framebuffer's layout. The cover's words
    /// are copied first, and only then is `prize` called: the prize can be drawn on
    /// another thread meanwhile, and this thread's copy (most of it the kernel's page
    /// faults for 66 MB at 4K) is off the time to the first frame.
    init(coverIn framebuffer: Framebuffer, prize: () -> LayoutImage) {
        let size = framebuffer.size, width = size.width, stride = framebuffer.bytesPerRow
        let layout = framebuffer.layout
        var padBytes: [UInt8] = [0, 0, 0, 0]
        padBytes[layout.padOffset] = 255
        let padWord = padBytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        let out = [UInt8](unsafeUninitializedCapacity: size.pixelCount * 8) { buffer, initialized in
            let o = UnsafeMutableRawPointer(buffer.baseAddress!)
            for y in 0..<size.height {
                let row = UnsafeRawPointer(framebuffer.baseAddress + y * stride), pairs = o + y * width * 8
                for x in 0..<width {
                    pairs.storeBytes(of: row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self) | padWord,
                                     toByteOffset: x * 8, as: UInt32.self)
                }
            }
            let drawn = prize()
            precondition(drawn.size == size && drawn.layout == layout, "the prize must have the framebuffer's size and layout")
            // The prize's words on two threads, half the rows each: by now the prize is
            // drawn and both cores are free, and this copy is on the way to the first frame.
            drawn.bytes.withUnsafeBytes { p in
                let source = SendablePointer(UnsafeMutableRawPointer(mutating: p.baseAddress!)), pairs = SendablePointer(o)
                let count = size.pixelCount, half = (size.height / 2) * width
                DispatchQueue.concurrentPerform(iterations: 2) { part in
                    let p = source.pointer, o = pairs.pointer
                    for i in (part == 0 ? 0..<half : half..<count) {
                        o.storeBytes(of: p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self) | padWord,
                                     toByteOffset: i * 8 + 4, as: UInt32.self)
                    }
                }
            }
            initialized = size.pixelCount * 8
        }
        self.init(size: size, layout: layout, bytes: out)
    }
}

/// A pointer handed to the two halves of a copy, which write disjoint rows.
private struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}
