// The engine scratchbench compares against: the same trace replayed with cairo and
// pixman doing the same work as ours.
//
// - the mask is a CAIRO_FORMAT_A8 image surface; each event strokes its segment with a
//   round cap and line width 2r (cairo's default antialiasing); a press is a
//   zero-length segment, which cairo draws as a dot with round caps;
// - pixman composites the event's dirty rectangle into an x8r8g8b8 framebuffer:
//   PIXMAN_OP_SRC of the cover, then PIXMAN_OP_OVER of the prize (opaque a8r8g8b8)
//   through the a8 mask, which is lerp(cover, prize, mask).
//
// C types stay inside this file: the rest of scratchbench sees `CairoEngine` only.
import CCairo
@preconcurrency import Glibc
import ScratchCore

final class CairoEngine {
    let size: PixelSize
    private let maskSurface: OpaquePointer
    private let context: OpaquePointer
    private let maskImage: OpaquePointer
    private let cover: OpaquePointer
    private let prize: OpaquePointer
    private let framebuffer: OpaquePointer
    private let buffers: [UnsafeMutableRawPointer]

    /// `cover` and `prize` are RGBA bytes (straight alpha; the prize is drawn opaque).
    init(cover: RGBAImage, prize: RGBAImage) {
        size = cover.size
        let w = Int32(size.width), h = Int32(size.height)
        maskSurface = cairo_image_surface_create(CAIRO_FORMAT_A8, w, h)
        precondition(cairo_surface_status(maskSurface) == CAIRO_STATUS_SUCCESS, "cairo could not make the mask")
        context = cairo_create(maskSurface)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
        cairo_set_source_rgba(context, 0, 0, 0, 1)
        let stride = cairo_image_surface_get_stride(maskSurface)
        maskImage = pixman_image_create_bits(PIXMAN_a8, w, h,
                                             UnsafeMutableRawPointer(cairo_image_surface_get_data(maskSurface))!
                                                 .assumingMemoryBound(to: UInt32.self), stride)

        // 32-bit native-endian 0xAARRGGBB words: B, G, R, A in memory on little-endian.
        func image(_ rgba: RGBAImage, format: pixman_format_code_t, alpha: UInt32?) -> (OpaquePointer, UnsafeMutableRawPointer) {
            let count = rgba.size.pixelCount
            let memory = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64)
            let words = memory.bindMemory(to: UInt32.self, capacity: count)
            rgba.bytes.withUnsafeBufferPointer { p in
                for i in 0..<count {
                    let a = alpha ?? UInt32(p[i * 4 + 3])
                    words[i] = a << 24 | UInt32(p[i * 4]) << 16 | UInt32(p[i * 4 + 1]) << 8 | UInt32(p[i * 4 + 2])
                }
            }
            return (pixman_image_create_bits(format, w, h, words, w * 4), memory)
        }
        let (c, cm) = image(cover, format: PIXMAN_x8r8g8b8, alpha: 255)
        let (p, pm) = image(prize, format: PIXMAN_a8r8g8b8, alpha: 255)
        let (f, fm) = image(cover, format: PIXMAN_x8r8g8b8, alpha: 255)
        self.cover = c; self.prize = p; self.framebuffer = f
        buffers = [cm, pm, fm]
    }

    deinit {
        for image in [maskImage, cover, prize, framebuffer] { _ = pixman_image_unref(image) }
        cairo_destroy(context)
        cairo_surface_destroy(maskSurface)
        for b in buffers { b.deallocate() }
    }

    /// Covers the mask again.
    func reset() {
        cairo_surface_flush(maskSurface)
        let data = cairo_image_surface_get_data(maskSurface)!
        memset(data, 0, Int(cairo_image_surface_get_stride(maskSurface)) * size.height)
        cairo_surface_mark_dirty(maskSurface)
    }

    /// One event: strokes the segment into the mask and composites its bounding box.
    /// Returns the pixels composited.
    @inline(__always)
    func event(from a: Point, to b: Point, radius r: Double) -> Int {
        cairo_set_line_width(context, 2 * r)
        cairo_move_to(context, a.x, a.y)
        cairo_line_to(context, b.x, b.y)
        cairo_stroke(context)
        cairo_surface_flush(maskSurface)
        // The stroke's bounding box, one pixel wider for the antialiased edge, clipped.
        let reach = r + 1
        let x0 = clamp(Swift.min(a.x, b.x) - reach, size.width), x1 = clamp(Swift.max(a.x, b.x) + reach + 1, size.width)
        let y0 = clamp(Swift.min(a.y, b.y) - reach, size.height), y1 = clamp(Swift.max(a.y, b.y) + reach + 1, size.height)
        guard x0 < x1, y0 < y1 else { return 0 }
        let w = Int32(x1 - x0), h = Int32(y1 - y0), x = Int32(x0), y = Int32(y0)
        pixman_image_composite32(PIXMAN_OP_SRC, cover, nil, framebuffer, x, y, 0, 0, x, y, w, h)
        pixman_image_composite32(PIXMAN_OP_OVER, prize, maskImage, framebuffer, x, y, x, y, x, y, w, h)
        return Int(w) * Int(h)
    }

    private func clamp(_ v: Double, _ limit: Int) -> Int {
        guard v.isFinite else { return v > 0 ? limit : 0 }
        return Int(Swift.min(Swift.max(v, 0), Double(limit)))
    }

    /// Pixels with mask >= 128.
    func revealedPixels() -> Int {
        cairo_surface_flush(maskSurface)
        let data = UnsafePointer(cairo_image_surface_get_data(maskSurface)!)
        let stride = Int(cairo_image_surface_get_stride(maskSurface))
        var count = 0
        for row in 0..<size.height {
            for x in 0..<size.width where data[row * stride + x] >= 128 { count += 1 }
        }
        return count
    }
}
