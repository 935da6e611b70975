import CInstructions

/// The card's two images converted once, at load, into the framebuffer's pixel layout
/// and interleaved: for each pixel 8 bytes, the cover's 4 then the prize's 4 (padding
/// byte 255). The compositor then is a plain per-byte blend, and the two pixels it
/// needs always come in the same cache line: on a large canvas most of a stroke's
/// composite time is waiting for memory, and this halves the lines it waits for.
struct CardPixels {
    let size: PixelSize
    let layout: PixelLayout
    /// 8 bytes per pixel, rows `size.width * 8` bytes apart.
    let bytes: [UInt8]

    init(size: PixelSize, layout: PixelLayout, bytes: [UInt8]) {
        self.size = size
        self.layout = layout
        self.bytes = bytes
    }

    /// The cover composited over the prize where it is translucent (straight alpha,
    /// exact rounding), beside the opaque prize. The prize's alpha is ignored.
    init(cover: RGBAImage, prize: RGBAImage, layout: PixelLayout) {
        precondition(cover.size == prize.size, "cover and prize must have the same size")
        let size = cover.size
        self.size = size
        self.layout = layout
        // Raw pointers and one 8-byte store per pixel: at 4K this runs at start-up over
        // 8 million pixels, where a checked array index per byte cost a tenth of the
        // time to the first frame.
        let count = size.pixelCount
        let rs = UInt32(layout.redOffset * 8), gs = UInt32(layout.greenOffset * 8), bs = UInt32(layout.blueOffset * 8)
        let padding = ~(0xFF << rs | 0xFF << gs | 0xFF << bs) as UInt32   // the fourth byte: 255
        let out = [UInt8](unsafeUninitializedCapacity: count * 8) { buffer, initialized in
            let o = UnsafeMutableRawPointer(buffer.baseAddress!)
            cover.bytes.withUnsafeBufferPointer { c in
                prize.bytes.withUnsafeBufferPointer { p in
                    let c = c.baseAddress!, p = p.baseAddress!
                    for i in 0..<count {
                        let pr = UInt32(p[i * 4]), pg = UInt32(p[i * 4 + 1]), pb = UInt32(p[i * 4 + 2])
                        var cr = UInt32(c[i * 4]), cg = UInt32(c[i * 4 + 1]), cb = UInt32(c[i * 4 + 2])
                        let alpha = Int(c[i * 4 + 3])
                        if alpha != 255 {
                            cr = UInt32(blend255(Int(pr), Int(cr), alpha))
                            cg = UInt32(blend255(Int(pg), Int(cg), alpha))
                            cb = UInt32(blend255(Int(pb), Int(cb), alpha))
                        }
                        let coverWord = padding | cr << rs | cg << gs | cb << bs
                        let prizeWord = padding | pr << rs | pg << gs | pb << bs
                        o.storeBytes(of: UInt64(coverWord) | UInt64(prizeWord) << 32, toByteOffset: i * 8, as: UInt64.self)
                    }
                }
            }
            initialized = count * 8
        }
        bytes = out
    }
}

/// `round((a * (255 - t) + b * t) / 255)` for bytes a, b and t in 0...255, exactly,
/// with no division: (x + 128 + ((x + 128) >> 8)) >> 8 is round(x / 255) for x <= 255².
/// `package`, inlinable: the doodle document blends its strokes with it too.
@inlinable @inline(__always)
package func blend255(_ a: Int, _ b: Int, _ t: Int) -> Int {
    let x = a * (255 - t) + b * t + 128
    return (x + (x >> 8)) >> 8
}

/// Composites `pixel = lerp(cover, prize, mask / 255)`, span by span. Where 8 mask bytes
/// in a row are all 0 or all 255 it copies cover or prize; elsewhere it blends the four
/// bytes of a pixel at once in 16-bit lanes of a 64-bit word, with exact rounding.
enum Compositor {
    /// One row's run of pixels: columns `first ... last` of `row`.
    struct Span {
        var row: Int
        var first: Int
        var last: Int
    }

    static func composite(_ pixels: CardPixels, mask: Mask, rect: PixelRect, into framebuffer: Framebuffer) {
        let rect = rect.intersection(PixelRect(size: mask.size))
        guard !rect.isEmpty else { return }
        composite(pixels, mask: mask, into: framebuffer,
                  spans: (rect.y..<rect.maxY).lazy.map { Span(row: $0, first: rect.x, last: rect.maxX - 1) })
    }

    /// Composites each span (clipped to the framebuffer); returns the pixels written.
    @discardableResult
    static func composite<Spans: Sequence<Span>>(_ pixels: CardPixels, mask: Mask,
                                                 into framebuffer: Framebuffer, spans: Spans) -> Int {
        precondition(pixels.layout == framebuffer.layout, "images must be prepared in the framebuffer's layout")
        precondition(pixels.size == mask.size)
        let width = mask.size.width
        let rows = Swift.min(mask.size.height, framebuffer.size.height)
        let columns = Swift.min(width, framebuffer.size.width)
        let stride = framebuffer.bytesPerRow
        var written = 0
        mask.withUnsafeBytes { maskBytes in
            pixels.bytes.withUnsafeBytes { sourceBytes in
                let m0 = UnsafeRawPointer(maskBytes.baseAddress!)
                let s0 = sourceBytes.baseAddress!
                for span in spans {
                    let first = Swift.max(span.first, 0), last = Swift.min(span.last, columns - 1)
                    guard span.row >= 0, span.row < rows, first <= last else { continue }
                    let start = span.row * width + first
                    compositeRow(count: last - first + 1, mask: m0 + start, source: s0 + start * 8,
                                 out: framebuffer.baseAddress + span.row * stride + first * 4)
                    written += last - first + 1
                }
            }
        }
        return written
    }

    /// Asks for every cache line of the card's pixels the spans will read, before the
    /// compositor reaches them: on a canvas that does not fit in cache the memory system
    /// then fetches many lines at once instead of one row after another (card-4k: 8% less
    /// time per event than the same pass done with loads, which wait; asking for the
    /// framebuffer's lines too measured no better).
    static func prefetch(_ pixels: CardPixels, into framebuffer: Framebuffer, spans: [Span]) {
        let width = pixels.size.width
        let rows = Swift.min(pixels.size.height, framebuffer.size.height)
        let columns = Swift.min(width, framebuffer.size.width)
        pixels.bytes.withUnsafeBytes { sourceBytes in
            let s0 = sourceBytes.baseAddress!
            for span in spans {
                let first = Swift.max(span.first, 0), last = Swift.min(span.last, columns - 1)
                guard span.row >= 0, span.row < rows, first <= last else { continue }
                let s = s0 + (span.row * width) * 8
                var x = first
                while x <= last {           // 8 pixels per line
                    scratch_prefetch_read(s + x * 8)
                    x += 8
                }
                scratch_prefetch_read(s + last * 8)
            }
        }
    }

    @inline(__always)
    static func compositeRow(count: Int, mask: UnsafeRawPointer, source: UnsafeRawPointer,
                             out: UnsafeMutableRawPointer) {
        var i = 0
        while i + 8 <= count {
            let word = mask.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let s = source + i * 8, o = out + i * 4
            if word == 0 {
                // Two pixels per 8-byte store: the covers of two neighbouring pairs.
                for k in stride(from: 0, to: 8, by: 2) {
                    let a = s.loadUnaligned(fromByteOffset: k * 8, as: UInt64.self)
                    let b = s.loadUnaligned(fromByteOffset: k * 8 + 8, as: UInt64.self)
                    o.storeBytes(of: (a & 0xFFFF_FFFF) | b << 32, toByteOffset: k * 4, as: UInt64.self)
                }
            } else if word == ~0 {
                for k in stride(from: 0, to: 8, by: 2) {
                    let a = s.loadUnaligned(fromByteOffset: k * 8, as: UInt64.self)
                    let b = s.loadUnaligned(fromByteOffset: k * 8 + 8, as: UInt64.self)
                    o.storeBytes(of: a >> 32 | (b & 0xFFFF_FFFF_0000_0000), toByteOffset: k * 4, as: UInt64.self)
                }
            } else {
                var w = word
                for k in 0..<8 {
                    blendPixel(UInt64(w & 0xFF), s + k * 8, o + k * 4)
                    w >>= 8
                }
            }
            i += 8
        }
        while i < count {
            blendPixel(UInt64(mask.load(fromByteOffset: i, as: UInt8.self)), source + i * 8, out + i * 4)
            i += 1
        }
    }

    @inline(__always)
    static func copy(_ from: UnsafeRawPointer, _ to: UnsafeMutableRawPointer) {
        to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
    }

    /// One pixel: a copy at 0 or 255, else blended.
    @inline(__always)
    static func blendPixel(_ t: UInt64, _ source: UnsafeRawPointer, _ out: UnsafeMutableRawPointer) {
        switch t {
        case 0: copy(source, out)
        case 255: copy(source + 4, out)
        default: blend(t, source, out)
        }
    }

    /// One pixel, all four bytes blended at once in the 16-bit lanes of a vector (SSE2's
    /// `pmullw`), with no branch on `t`: exact at 0 and 255 too, only slower there than a
    /// copy. The lanes hold the cover's four bytes weighted by 255 - t and the prize's by
    /// t; each channel is (cover·(255 - t) + prize·t + 128) / 255, rounded as
    /// `(x + x >> 8) >> 8`, which stays within 16 bits.
    @inline(__always)
    static func blend(_ t: UInt64, _ source: UnsafeRawPointer, _ out: UnsafeMutableRawPointer) {
        let pair = source.loadUnaligned(as: UInt64.self)
        let v = unsafeBitCast(SIMD2<UInt64>(pair, 0), to: SIMD16<UInt8>.self)
        // Each byte twice, then the low byte of each lane kept: punpcklbw and pand.
        let doubled = SIMD16<UInt8>(v[0], v[0], v[1], v[1], v[2], v[2], v[3], v[3],
                                    v[4], v[4], v[5], v[5], v[6], v[6], v[7], v[7])
        let wide = unsafeBitCast(doubled, to: SIMD8<UInt16>.self) & 0x00FF
        // 255 - t is t ^ 255 for t in 0...255.
        let weights = SIMD8<UInt16>(repeating: UInt16(truncatingIfNeeded: t)) ^ SIMD8(255, 255, 255, 255, 0, 0, 0, 0)
        let products = wide &* weights
        let x = products.lowHalf &+ products.highHalf &+ 128
        let rounded = (x &+ (x &>> 8)) &>> 8
        let bytes = unsafeBitCast(SIMD2<UInt64>(unsafeBitCast(rounded, to: UInt64.self), 0), to: SIMD16<UInt8>.self)
        out.storeBytes(of: SIMD4<UInt8>(bytes[0], bytes[2], bytes[4], bytes[6]), as: SIMD4<UInt8>.self)
    }
}
