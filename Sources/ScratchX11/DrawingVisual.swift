import CX11
import ScratchCore

/// The visual the program draws with, and what it needs: a TrueColor visual of depth 24
/// or 32 whose images have 32 bits per pixel and whose channels are whole bytes (the
/// framebuffer's `PixelLayout`). The default visual when it is one; else one the screen
/// offers (a depth-16 or depth-30 screen usually offers a 32-bit TrueColor visual, the
/// one compositing managers use for windows with alpha), which then needs a colormap
/// of its own (`X11Window` makes it).
struct DrawingVisual {
    let visual: UnsafeMutablePointer<Visual>
    let depth: Int32
    let layout: PixelLayout
    /// True when it is the screen's default visual (the default colormap then fits).
    let isDefault: Bool

    /// What a visual must be, said in a message.
    static let requirement = "a 24- or 32-bit TrueColor visual with 8-bit channels"
}

extension X11Display {
    /// Bits per pixel of images of `depth` (`XListPixmapFormats`).
    func bitsPerPixel(depth: Int32) -> Int? {
        var count: Int32 = 0
        guard let formats = XListPixmapFormats(handle, &count) else { return nil }
        defer { XFree(formats) }
        for i in 0..<Int(count) where formats[i].depth == depth {
            return Int(formats[i].bits_per_pixel)
        }
        return nil
    }

    /// The layout of a TrueColor visual of depth 24 or 32 with 32-bit pixels and
    /// byte-sized channels; nil for any other visual.
    func layout(of visual: UnsafeMutablePointer<Visual>, depth: Int32) -> PixelLayout? {
        guard cx11_visual_class(visual) == TrueColor, depth == 24 || depth == 32,
              bitsPerPixel(depth: depth) == 32 else { return nil }
        let v = visual.pointee
        return PixelLayout(redMask: UInt32(truncatingIfNeeded: v.red_mask),
                           greenMask: UInt32(truncatingIfNeeded: v.green_mask),
                           blueMask: UInt32(truncatingIfNeeded: v.blue_mask),
                           littleEndian: cx11_image_byte_order(handle) == LSBFirst)
    }

    /// The default visual if it will do; else the first TrueColor visual of depth 24,
    /// then of depth 32, of the default screen that will (`XGetVisualInfo`); nil when
    /// the screen offers none.
    func findDrawingVisual() -> DrawingVisual? {
        if let layout = layout(of: visual, depth: depth) {
            return DrawingVisual(visual: visual, depth: depth, layout: layout, isDefault: true)
        }
        var template = XVisualInfo()
        template.screen = cx11_default_screen(handle)
        cx11_visual_info_set_class(&template, TrueColor)
        var count: Int32 = 0
        guard let infos = XGetVisualInfo(handle, Int(VisualScreenMask | VisualClassMask), &template, &count) else { return nil }
        defer { XFree(infos) }
        let offered = (0..<Int(count)).map { infos[$0] }
        for wanted: Int32 in [24, 32] {
            for info in offered where info.depth == wanted {
                if let visual = info.visual, let layout = layout(of: visual, depth: info.depth) {
                    return DrawingVisual(visual: visual, depth: info.depth, layout: layout, isDefault: false)
                }
            }
        }
        return nil
    }

    /// The default visual in words: "depth 16 TrueColor", "depth 8 PseudoColor".
    public var defaultVisualDescription: String {
        let names: [Int32: String] = [StaticGray: "StaticGray", GrayScale: "GrayScale", StaticColor: "StaticColor",
                                      PseudoColor: "PseudoColor", TrueColor: "TrueColor", DirectColor: "DirectColor"]
        return "depth \(depth) \(names[cx11_visual_class(visual)] ?? "unknown class")"
    }
}
