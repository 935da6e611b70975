/// An image converted once, at load, into a framebuffer's pixel layout, so that the
/// compositor is a plain per-byte blend. The padding byte is 255.
public struct NativeImage: Sendable {
    public let size: PixelSize
    public let layout: PixelLayout
    /// 4 bytes per pixel, rows `size.width * 4` bytes apart.
    let bytes: [UInt8]

    /// An opaque image in `layout`; alpha is ignored.
    public init(_ image: RGBAImage, layout: PixelLayout) {
        self.init(image, over: nil, layout: layout)
    }

    /// `image` composited over `backdrop` (straight alpha, exact rounding), in `layout`.
    /// With no backdrop, alpha is ignored.
    public init(_ image: RGBAImage, over backdrop: RGBAImage?, layout: PixelLayout) {
        precondition(backdrop == nil || backdrop!.size == image.size, "the backdrop must be the image's size")
        size = image.size
        self.layout = layout
        var out = [UInt8](repeating: 255, count: image.size.pixelCount * 4)
        let offsets = [layout.redOffset, layout.greenOffset, layout.blueOffset]
        image.bytes.withUnsafeBufferPointer { src in
            let under = backdrop?.bytes
            for i in 0..<image.size.pixelCount {
                let alpha = Int(src[i * 4 + 3])
                for c in 0..<3 {
                    var v = Int(src[i * 4 + c])
                    if let under, alpha < 255 {
                        v = blend255(Int(under[i * 4 + c]), v, alpha)
                    }
                    out[i * 4 + offsets[c]] = UInt8(v)
                }
            }
        }
        bytes = out
    }
}

/// `round((a * (255 - t) + b * t) / 255)` for bytes a, b and t in 0...255, exactly,
/// with no division: (x + 128 + ((x + 128) >> 8)) >> 8 is round(x / 255) for x <= 255².
@inline(__always)
func blend255(_ a: Int, _ b: Int, _ t: Int) -> Int {
    let x = a * (255 - t) + b * t + 128
    return (x + (x >> 8)) >> 8
}

/// Composites `pixel = lerp(cover, prize, mask / 255)` for a rectangle of the canvas.
/// Where 8 mask bytes in a row are all 0 or all 255 it copies cover or prize; elsewhere
/// it blends each byte with exact rounding.
enum Compositor {
    static func composite(cover: NativeImage, prize: NativeImage, mask: Mask,
                          rect: PixelRect, into framebuffer: Framebuffer) {
        let rect = rect.intersection(PixelRect(size: mask.size)).intersection(PixelRect(size: framebuffer.size))
        guard !rect.isEmpty else { return }
        precondition(cover.layout == framebuffer.layout && prize.layout == framebuffer.layout,
                     "images must be prepared in the framebuffer's layout")
        let width = mask.size.width
        let stride = framebuffer.bytesPerRow
        mask.withUnsafeBytes { maskBytes in
            cover.bytes.withUnsafeBytes { coverBytes in
                prize.bytes.withUnsafeBytes { prizeBytes in
                    let m0 = UnsafeRawPointer(maskBytes.baseAddress!)
                    let c0 = coverBytes.baseAddress!, p0 = prizeBytes.baseAddress!
                    for row in rect.y..<rect.maxY {
                        let m = m0 + row * width + rect.x
                        let c = c0 + (row * width + rect.x) * 4
                        let p = p0 + (row * width + rect.x) * 4
                        let o = framebuffer.baseAddress + row * stride + rect.x * 4
                        compositeRow(count: rect.width, mask: m, cover: c, prize: p, out: o)
                    }
                }
            }
        }
    }

    @inline(__always)
    static func compositeRow(count: Int, mask: UnsafeRawPointer, cover: UnsafeRawPointer,
                             prize: UnsafeRawPointer, out: UnsafeMutableRawPointer) {
        var i = 0
        while i + 8 <= count {
            let word = mask.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if word == 0 {
                out.advanced(by: i * 4).copyMemory(from: cover.advanced(by: i * 4), byteCount: 32)
            } else if word == ~0 {
                out.advanced(by: i * 4).copyMemory(from: prize.advanced(by: i * 4), byteCount: 32)
            } else {
                blendPixels(i..<(i + 8), mask: mask, cover: cover, prize: prize, out: out)
            }
            i += 8
        }
        blendPixels(i..<count, mask: mask, cover: cover, prize: prize, out: out)
    }

    @inline(__always)
    static func blendPixels(_ range: Range<Int>, mask: UnsafeRawPointer, cover: UnsafeRawPointer,
                            prize: UnsafeRawPointer, out: UnsafeMutableRawPointer) {
        let c = cover.assumingMemoryBound(to: UInt8.self)
        let p = prize.assumingMemoryBound(to: UInt8.self)
        let o = out.assumingMemoryBound(to: UInt8.self)
        let m = mask.assumingMemoryBound(to: UInt8.self)
        for i in range {
            let t = Int(m[i])
            let k = i * 4
            switch t {
            case 0: o.advanced(by: k).update(from: c.advanced(by: k), count: 4)
            case 255: o.advanced(by: k).update(from: p.advanced(by: k), count: 4)
            default:
                o[k] = UInt8(truncatingIfNeeded: blend255(Int(c[k]), Int(p[k]), t))
                o[k + 1] = UInt8(truncatingIfNeeded: blend255(Int(c[k + 1]), Int(p[k + 1]), t))
                o[k + 2] = UInt8(truncatingIfNeeded: blend255(Int(c[k + 2]), Int(p[k + 2]), t))
                o[k + 3] = UInt8(truncatingIfNeeded: blend255(Int(c[k + 3]), Int(p[k + 3]), t))
            }
        }
    }
}
