import CPangoCairo
import ScratchCore

/// A cairo image surface (ARGB32) and its drawing context, owned for one drawing:
/// everything CardArt draws goes through one of these, and leaves it as an `RGBAImage`
/// (`Surface.drawing`). The C pointers stay inside this room.
final class Surface {
    let size: PixelSize
    let surface: OpaquePointer
    let cr: OpaquePointer

    /// Draws with `body` straight into the bytes of the image it returns (a cairo surface
    /// over the image's own memory), then turns cairo's premultiplied native-endian words
    /// into RGBA bytes in place: at 4K one 33 MB buffer instead of two, and no copy. Nil
    /// if cairo cannot draw at this size (a side over its 32767-pixel limit).
    static func drawing(size: PixelSize, _ body: (Surface) -> Void) -> RGBAImage? {
        drawnBytes(size: size, cleared: true, body) { Self.unpremultiplyToRGBA($0, pixels: size.pixelCount) }
            .flatMap { RGBAImage(size: size, bytes: $0) }
    }

    /// Draws with `body` into an image in cairo's own order (`CardArt.nativeLayout`), which
    /// is then the image's layout: no conversion at all. `body` must paint every pixel,
    /// opaque, with its first operation (the memory is not cleared first); pixels left
    /// translucent by later ones are made opaque as the RGBA path and the canvas would
    /// make them (straight colour, alpha dropped). Nil as for `drawing`.
    static func drawingNative(size: PixelSize, _ body: (Surface) -> Void) -> LayoutImage? {
        drawnBytes(size: size, cleared: false, body) { Self.unpremultiplyToOpaque($0, pixels: size.pixelCount) }
            .flatMap { LayoutImage(size: size, layout: CardArt.nativeLayout, bytes: $0) }
    }

    /// Draws with `body` into `framebuffer`'s memory (a cairo surface over it), then makes
    /// every pixel opaque as `drawingNative` does. `body` must paint every pixel with its
    /// first operation. False when the framebuffer is not in cairo's layout or its rows
    /// are not ones cairo can take.
    static func drawing(into framebuffer: Framebuffer, _ body: (Surface) -> Void) -> Bool {
        let size = framebuffer.size, stride = framebuffer.bytesPerRow
        guard framebuffer.layout == CardArt.nativeLayout, size.width <= 32767, size.height <= 32767, stride % 4 == 0,
              stride >= Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(size.width))), stride <= Int(Int32.max),
              let cairoSurface = cairo_image_surface_create_for_data(framebuffer.baseAddress.assumingMemoryBound(to: UInt8.self),
                                                                     CAIRO_FORMAT_ARGB32, Int32(size.width), Int32(size.height), Int32(stride)),
              let surface = Surface(wrapping: cairoSurface, size: size) else { return false }
        body(surface)
        cairo_surface_flush(surface.surface)
        withExtendedLifetime(surface) {
            for y in 0..<size.height { unpremultiplyToOpaque(framebuffer.baseAddress + y * stride, pixels: size.width) }
        }
        return true
    }

    /// The bytes of a cairo ARGB32 surface over new memory of `size` (zeroed first when
    /// `cleared`), drawn by `body` and then passed to `finish`.
    private static func drawnBytes(size: PixelSize, cleared: Bool, _ body: (Surface) -> Void,
                                   finish: (UnsafeMutableRawPointer) -> Void) -> [UInt8]? {
        guard size.width > 0, size.height > 0, size.width <= 32767, size.height <= 32767,
              Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(size.width))) == size.width * 4 else { return nil }
        var drawn = true
        let count = size.pixelCount * 4
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = buffer.baseAddress!
            // Without `cleared` the body's first operation writes every byte.
            if cleared { base.initialize(repeating: 0, count: count) }
            initialized = count
            guard let cairoSurface = cairo_image_surface_create_for_data(base, CAIRO_FORMAT_ARGB32, Int32(size.width),
                                                                         Int32(size.height), Int32(size.width * 4)),
                  let surface = Surface(wrapping: cairoSurface, size: size) else { drawn = false; return }
            body(surface)
            cairo_surface_flush(surface.surface)
            withExtendedLifetime(surface) { finish(UnsafeMutableRawPointer(base)) }
        }
        return drawn ? bytes : nil
    }

    /// A context over a surface made elsewhere (this object then owns the surface).
    private init?(wrapping surface: OpaquePointer, size: PixelSize) {
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface),
              cairo_status(cr) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            return nil
        }
        self.size = size
        self.surface = surface
        self.cr = cr
    }

    /// A transparent surface of `size`; nil if cairo cannot make one (no memory, a side
    /// over cairo's 32767-pixel limit).
    convenience init?(size: PixelSize) {
        guard size.width > 0, size.height > 0, size.width <= 32767, size.height <= 32767,
              let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(size.width), Int32(size.height)) else {
            return nil
        }
        self.init(wrapping: surface, size: size)
    }

    deinit {
        // The context may hold the last reference to a font it drew text with: released
        // under the fonts' lock (Fonts.swift).
        Fonts.locked { cairo_destroy(cr) }
        cairo_surface_destroy(surface)
    }

    /// Copies `image` (straight RGBA, the same size) into the surface, premultiplied.
    func fill(with image: RGBAImage) {
        precondition(image.size == size, "the image must be the surface's size")
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return }
        let w = size.width
        image.bytes.withUnsafeBufferPointer { src in
            for y in 0..<size.height {
                let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                var i = y * w * 4
                for x in 0..<w {
                    let a = UInt32(src[i + 3])
                    // (c * a + 127) / 255, exactly, without a division.
                    func pre(_ c: UInt8) -> UInt32 { let t = UInt32(c) * a + 128; return (t + (t >> 8)) >> 8 }
                    row[x] = a << 24 | pre(src[i]) << 16 | pre(src[i + 1]) << 8 | pre(src[i + 2])
                    i += 4
                }
            }
        }
        cairo_surface_mark_dirty(surface)
    }

    /// cairo's pixels (0xAARRGGBB words, premultiplied) as R, G, B, A bytes, straight
    /// alpha, in place. Opaque pixels, nearly all of a card, only swap red and blue:
    /// eight at a time.
    static func unpremultiplyToRGBA(_ data: UnsafeMutableRawPointer, pixels: Int) {
        var i = 0
        #if _endian(little)
        let opaque = SIMD8<UInt32>(repeating: 0xFF00_0000)
        while i + 8 <= pixels {
            let p = data.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<UInt32>.self)
            if (p & opaque) == opaque {
                let swapped = (p & 0xFF00_FF00) | ((p &>> 16) & 0xFF) | ((p & 0xFF) &<< 16)
                data.storeBytes(of: swapped, toByteOffset: i * 4, as: SIMD8<UInt32>.self)
            } else {
                for j in i..<(i + 8) { convertOne(data, j) }
            }
            i += 8
        }
        #endif
        while i < pixels {
            convertOne(data, i)
            i += 1
        }
    }

    /// cairo's pixels made opaque in cairo's own order, in place: a translucent pixel (a
    /// text card over an image with alpha) gets its straight colour, exactly as
    /// `unpremultiplyToRGBA` gives it, and alpha 255. Opaque pixels, nearly always all of
    /// them, are only read, eight at a time.
    static func unpremultiplyToOpaque(_ data: UnsafeMutableRawPointer, pixels: Int) {
        var i = 0
        let opaque = SIMD8<UInt32>(repeating: 0xFF00_0000)
        while i + 8 <= pixels {
            let p = data.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<UInt32>.self)
            if (p & opaque) != opaque {
                for j in i..<(i + 8) { opaqueOne(data, j) }
            }
            i += 8
        }
        while i < pixels {
            opaqueOne(data, i)
            i += 1
        }
    }

    private static func opaqueOne(_ data: UnsafeMutableRawPointer, _ i: Int) {
        let p = data.load(fromByteOffset: i * 4, as: UInt32.self)
        let a = p >> 24
        guard a != 255 else { return }
        var r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF
        if a != 0 {
            r = Swift.min((r * 255 + a / 2) / a, 255)
            g = Swift.min((g * 255 + a / 2) / a, 255)
            b = Swift.min((b * 255 + a / 2) / a, 255)
        }
        data.storeBytes(of: 0xFF00_0000 | r << 16 | g << 8 | b, toByteOffset: i * 4, as: UInt32.self)
    }

    private static func convertOne(_ data: UnsafeMutableRawPointer, _ i: Int) {
        let p = data.load(fromByteOffset: i * 4, as: UInt32.self)
        let a = p >> 24
        var r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF
        if a != 255 && a != 0 {
            r = Swift.min((r * 255 + a / 2) / a, 255)
            g = Swift.min((g * 255 + a / 2) / a, 255)
            b = Swift.min((b * 255 + a / 2) / a, 255)
        }
        data.storeBytes(of: (r | g << 8 | b << 16 | a << 24).littleEndian, toByteOffset: i * 4, as: UInt32.self)
    }

    /// Paints `other` (a smaller surface) stretched over the whole of this one, with
    /// bilinear filtering: for smooth backgrounds, drawn at a lower resolution because
    /// they have no detail to lose.
    func paintStretched(_ other: Surface) {
        cairo_save(cr)
        cairo_scale(cr, Double(size.width) / Double(other.size.width), Double(size.height) / Double(other.size.height))
        cairo_set_source_surface(cr, other.surface, 0, 0)
        if let pattern = cairo_get_source(cr) {
            cairo_pattern_set_filter(pattern, CAIRO_FILTER_BILINEAR)
            cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        }
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    /// Runs `body` over the surface's rows of premultiplied pixels, for effects cairo has
    /// no operator for (the foil's brushed streaks).
    func withPixels(_ body: (_ row: Int, _ pixels: UnsafeMutableBufferPointer<UInt32>) -> Void) {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return }
        for y in 0..<size.height {
            let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            body(y, UnsafeMutableBufferPointer(start: row, count: size.width))
        }
        cairo_surface_mark_dirty(surface)
    }
}

/// A colour in 0...1 for cairo, straight alpha.
struct Colour {
    var r: Double, g: Double, b: Double, a: Double = 1

    init(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    init(hex: UInt32, alpha: Double = 1) {
        self.init(Double((hex >> 16) & 0xFF) / 255, Double((hex >> 8) & 0xFF) / 255, Double(hex & 0xFF) / 255, alpha)
    }

    init(_ rgba: RGBA) {
        self.init(Double(rgba.r) / 255, Double(rgba.g) / 255, Double(rgba.b) / 255, Double(rgba.a) / 255)
    }

    func mixed(with other: Colour, _ t: Double) -> Colour {
        Colour(r + (other.r - r) * t, g + (other.g - g) * t, b + (other.b - b) * t, a + (other.a - a) * t)
    }

    func with(alpha: Double) -> Colour { Colour(r, g, b, alpha) }

    /// Relative luminance, roughly (Rec. 709 weights on the encoded values).
    var luminance: Double { 0.2126 * r + 0.7152 * g + 0.0722 * b }

    static let white = Colour(1, 1, 1)
    static let black = Colour(0, 0, 0)
}

/// A rectangle in device pixels, fractional.
public struct Box: Equatable, Sendable, CustomStringConvertible {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }

    /// True when `other` lies inside this box (edges included), to within `slack` pixels.
    public func contains(_ other: Box, slack: Double = 0) -> Bool {
        other.x >= x - slack && other.y >= y - slack && other.maxX <= maxX + slack && other.maxY <= maxY + slack
    }

    func insetBy(_ dx: Double, _ dy: Double) -> Box { Box(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy) }

    func union(_ other: Box) -> Box {
        let minX = Swift.min(x, other.x), minY = Swift.min(y, other.y)
        return Box(x: minX, y: minY, width: Swift.max(maxX, other.maxX) - minX, height: Swift.max(maxY, other.maxY) - minY)
    }

    func intersects(_ other: Box) -> Bool { x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY }

    public var description: String { "(\(x), \(y)) \(width)x\(height)" }
}

/// Drawing helpers over a cairo context.
extension Surface {
    func setColour(_ c: Colour) { cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a) }

    /// A rounded rectangle path.
    func roundedRect(_ b: Box, radius: Double) {
        let r = Swift.max(0, Swift.min(radius, b.width / 2, b.height / 2))
        cairo_new_sub_path(cr)
        cairo_arc(cr, b.maxX - r, b.y + r, r, -.pi / 2, 0)
        cairo_arc(cr, b.maxX - r, b.maxY - r, r, 0, .pi / 2)
        cairo_arc(cr, b.x + r, b.maxY - r, r, .pi / 2, .pi)
        cairo_arc(cr, b.x + r, b.y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }

    /// A linear gradient from (x0, y0) to (x1, y1) through `stops` (offset, colour).
    func linearGradient(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ stops: [(Double, Colour)]) -> OpaquePointer? {
        guard let pattern = cairo_pattern_create_linear(x0, y0, x1, y1) else { return nil }
        for (offset, c) in stops { cairo_pattern_add_color_stop_rgba(pattern, offset, c.r, c.g, c.b, c.a) }
        return pattern
    }

    /// A radial gradient from the centre out to `radius` through `stops`.
    func radialGradient(_ cx: Double, _ cy: Double, _ radius: Double, _ stops: [(Double, Colour)]) -> OpaquePointer? {
        guard let pattern = cairo_pattern_create_radial(cx, cy, 0, cx, cy, radius) else { return nil }
        for (offset, c) in stops { cairo_pattern_add_color_stop_rgba(pattern, offset, c.r, c.g, c.b, c.a) }
        return pattern
    }

    /// Sets `pattern` as the source and releases the caller's reference to it.
    func setSource(_ pattern: OpaquePointer?) {
        guard let pattern else { return }
        cairo_set_source(cr, pattern)
        cairo_pattern_destroy(pattern)
    }
}
