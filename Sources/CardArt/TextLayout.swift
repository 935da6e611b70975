import CPangoCairo
import ScratchCore

/// How a piece of card text is set: its fonts, weight, largest size, spacing, and how
/// far its drawing reaches past the glyphs' ink (an outline, a shadow), so that fitting
/// keeps all of it inside the box.
struct TextStyle {
    /// A Pango family list; fontconfig falls back from it for any script it lacks.
    var families = "Noto Sans, Noto Sans CJK SC, Noto Sans Arabic, DejaVu Sans, sans-serif"
    var weight = PANGO_WEIGHT_BOLD
    /// The size the text is set at when it fits, in device pixels (the em).
    var largestPixelSize: Double
    /// Extra space between letters, as a fraction of the size (0 for scripts that join).
    var letterSpacing = 0.0
    /// How far the drawing reaches past the ink on every side, as a fraction of the size.
    var reach = 0.0
}

/// One Pango layout made on a surface's context (so that it measures as it will draw),
/// wrapped at word boundaries (inside a word only when the word alone is too wide) and
/// centred line by line, in the text's own direction (Arabic right to left). Every call
/// into Pango holds the fonts' lock (Fonts.swift: cairo's fonts are not safe to make on
/// two threads at once).
final class TextLayout {
    let layout: OpaquePointer
    let style: TextStyle
    private(set) var pixelSize = 0.0

    init?(text: String, style: TextStyle, on surface: Surface) {
        guard let layout = Fonts.locked({ () -> OpaquePointer? in
            guard let layout = Fonts.layout(on: surface.cr) else { return nil }
            // Unhinted metrics: the layout's extents then scale in proportion to the size,
            // which lets `FittedText.fit` search sizes at one size of font (a font at each
            // size tried cost ~3 ms apiece to set up).
            if let options = cairo_font_options_create() {
                cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
                cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
                pango_cairo_context_set_font_options(pango_layout_get_context(layout), options)
                cairo_font_options_destroy(options)
                pango_layout_context_changed(layout)
            }
            pango_layout_set_text(layout, text, -1)
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
            pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
            return layout
        }) else { return nil }
        self.layout = layout
        self.style = style
    }

    deinit { Fonts.locked { cpc_unref(UnsafeMutableRawPointer(layout)) } }

    /// Sets the size (device pixels) and the width lines wrap at.
    func set(pixelSize: Double, wrapWidth: Double) {
        self.pixelSize = pixelSize
        let scale = Double(cpc_pango_scale())
        Fonts.locked {
            if let font = pango_font_description_new() {
                pango_font_description_set_family(font, style.families)
                pango_font_description_set_weight(font, style.weight)
                pango_font_description_set_absolute_size(font, pixelSize * scale)
                pango_layout_set_font_description(layout, font)
                pango_font_description_free(font)
            }
            if style.letterSpacing != 0, let attributes = pango_attr_list_new() {
                pango_attr_list_insert(attributes, pango_attr_letter_spacing_new(Int32(style.letterSpacing * pixelSize * scale)))
                pango_layout_set_attributes(layout, attributes)
                pango_attr_list_unref(attributes)
            }
            pango_layout_set_width(layout, Int32(Swift.max(1, Swift.min(wrapWidth * scale, Double(Int32.max / 2)))))
        }
    }

    /// Pango's ink and logical extents in device pixels, relative to the layout's origin
    /// (pango_layout_get_pixel_extents: the ink rounded outwards).
    var extents: (ink: Box, logical: Box) {
        var ink = PangoRectangle(), logical = PangoRectangle()
        Fonts.locked { pango_layout_get_pixel_extents(layout, &ink, &logical) }
        func box(_ r: PangoRectangle) -> Box { Box(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height)) }
        return (box(ink), box(logical))
    }

    /// Everything the text's drawing covers, relative to the origin: the logical box and
    /// the ink grown by the style's reach.
    var drawnExtent: Box {
        let (ink, logical) = extents
        let reach = style.reach * pixelSize
        return logical.union(ink.insetBy(-reach, -reach))
    }

    /// Characters no installed font has a glyph for (drawn as boxes).
    var unknownGlyphs: Int { Fonts.locked { Int(pango_layout_get_unknown_glyphs_count(layout)) } }

    /// The characters of `words` no installed font has a glyph for, laid out in place of
    /// the layout's text (which they replace).
    func unknownGlyphs(in words: String) -> Int {
        Fonts.locked {
            pango_layout_set_text(layout, words, -1)
            return Int(pango_layout_get_unknown_glyphs_count(layout))
        }
    }

    var lineCount: Int { Fonts.locked { Int(pango_layout_get_line_count(layout)) } }
}

/// Text fitted into a box: the layout at the largest size whose whole drawing lies
/// inside the box, and where its origin goes so that the drawing is centred in it.
struct FittedText {
    let layout: TextLayout
    /// Where the layout's origin goes on the surface.
    let origin: (x: Double, y: Double)
    /// The box it was fitted into.
    let box: Box

    /// Everything the drawing covers, on the surface.
    var drawn: Box { layout.drawnExtent.offset(origin.x, origin.y) }

    /// Pango's ink and logical extents, on the surface.
    var ink: Box { layout.extents.ink.offset(origin.x, origin.y) }
    var logical: Box { layout.extents.logical.offset(origin.x, origin.y) }

    /// Lays `text` out at the largest size up to `style.largestPixelSize` at which all of
    /// its drawing fits in `box`, wrapping lines to the box's width; nil when it fits at
    /// no size of at least half a pixel (a box too small for anything).
    ///
    /// A binary search over the size: wrapping makes "fits" almost, not quite, monotonic
    /// in the size, so the answer is always a size that was measured and fits, never one
    /// assumed from its neighbours.
    static func fit(_ text: String, style: TextStyle, into box: Box, on surface: Surface) -> FittedText? {
        guard box.width >= 1, box.height >= 1, let layout = TextLayout(text: text, style: style, on: surface) else { return nil }
        // The search runs at one size of font: laid out at `reference` with lines wrapped
        // at the box's width scaled by reference / size, the text is the same text at
        // `size` scaled down (unhinted metrics scale in proportion).
        let reference = 100.0
        func fitsScaled(_ size: Double) -> Bool {
            let k = reference / size
            layout.set(pixelSize: reference, wrapWidth: (box.width - 2 * style.reach * size) * k)
            let drawn = layout.drawnExtent
            return drawn.width <= box.width * k && drawn.height <= box.height * k
        }
        func fits(_ size: Double) -> Bool {
            layout.set(pixelSize: size, wrapWidth: box.width - 2 * style.reach * size)
            let drawn = layout.drawnExtent
            return drawn.width <= box.width && drawn.height <= box.height
        }
        var best: Double?
        var low = 0.5, high = style.largestPixelSize
        if fitsScaled(high) {
            best = high
        } else {
            for _ in 0..<16 {
                let mid = (low + high) / 2
                if fitsScaled(mid) { best = mid; low = mid } else { high = mid }
                if high - low < 0.25 { break }
            }
            if best == nil, fitsScaled(low) { best = low }
        }
        // Measured again at the size itself (rounding in the extents can differ by a
        // pixel): a little smaller until it truly fits.
        guard var size = best else { return nil }
        var tries = 0
        while !fits(size) {
            tries += 1
            guard tries < 40, size > 0.5 else { return nil }
            size *= 0.97
        }
        let drawn = layout.drawnExtent
        let origin = (x: box.midX - drawn.midX, y: box.midY - drawn.midY)
        return FittedText(layout: layout, origin: origin, box: box)
    }

    /// Moves the text so that its drawing's top is at `top` (still centred across).
    func moved(top: Double) -> FittedText {
        let drawn = layout.drawnExtent
        return FittedText(layout: layout, origin: (origin.x, top - drawn.y), box: box)
    }

    /// Fills the text's glyphs (the current source) at its origin, offset by (dx, dy).
    func show(on surface: Surface, dx: Double = 0, dy: Double = 0) {
        cairo_move_to(surface.cr, origin.x + dx, origin.y + dy)
        Fonts.locked { pango_cairo_show_layout(surface.cr, layout.layout) }
    }

    /// Adds the glyphs' outlines to the current path, offset by (dx, dy).
    func path(on surface: Surface, dx: Double = 0, dy: Double = 0) {
        cairo_move_to(surface.cr, origin.x + dx, origin.y + dy)
        Fonts.locked { pango_cairo_layout_path(surface.cr, layout.layout) }
    }
}

extension Box {
    func offset(_ dx: Double, _ dy: Double) -> Box { Box(x: x + dx, y: y + dy, width: width, height: height) }
}
