import CPangoCairo
import ScratchCore

extension CardArt {
    /// The built-in look of a card with scratch zones: a printed ticket (cream paper, a
    /// red header band with `header` on it, a border), and for each zone a silver foil
    /// panel (the cover) over a white well (the prize, until a zone's symbol is drawn
    /// into it). Outside the zones cover and prize are the same picture, so only the
    /// zones ever change. `zones` in device pixels at `size`.
    public static func ticket(size: PixelSize, zones: [ZoneOutline], header: String?) -> (cover: RGBAImage, prize: RGBAImage) {
        let drawing = TicketDrawing(size: size, zones: zones, header: header ?? "PICK 3 · MATCH 3 TO WIN")
        let prize = Surface.drawing(size: size) { drawing.draw(on: $0, foil: false) }
            ?? RGBAImage(size: size, filledWith: RGBA(r: 250, g: 244, b: 228))
        let cover = Surface.drawing(size: size) { drawing.draw(on: $0, foil: true) }
            ?? RGBAImage(size: size, filledWith: RGBA(r: 190, g: 194, b: 200))
        return (cover, prize)
    }

    /// A promoter's ticket: `artwork` (the card's cover image) fitted whole into `size`
    /// and centred (`Fitted`, as its zones are placed), over the built-in foil's silver
    /// where the artwork is transparent and dark bands beside it. The prize is the same
    /// picture with each zone a white well (until a zone's symbol is drawn into it), so
    /// only the zones ever change. `zones` in device pixels at `size`.
    public static func ticket(artwork: RGBAImage, size: PixelSize, zones: [ZoneOutline]) -> (cover: RGBAImage, prize: RGBAImage) {
        let fitted = Fitted(artwork.size, into: size)
        let picture = Surface(size: artwork.size)
        picture?.fill(with: artwork)
        func draw(on s: Surface, wells: Bool) {
            let cr = s.cr
            s.setColour(Colour(hex: 0x202124))
            cairo_paint(cr)
            s.setColour(Colour(hex: 0xC9CDD3))
            cairo_rectangle(cr, fitted.x, fitted.y, Double(artwork.size.width) * fitted.scale, Double(artwork.size.height) * fitted.scale)
            cairo_fill(cr)
            if let picture {
                cairo_save(cr)
                cairo_translate(cr, fitted.x, fitted.y)
                cairo_scale(cr, fitted.scale, fitted.scale)
                cairo_set_source_surface(cr, picture.surface, 0, 0)
                cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
                cairo_paint(cr)
                cairo_restore(cr)
            }
            guard wells else { return }
            s.setColour(Colour(hex: 0xFFFDF6))
            for zone in zones { TicketDrawing.path(zone, on: s) }
            cairo_fill(cr)
        }
        let cover = Surface.drawing(size: size) { draw(on: $0, wells: false) } ?? RGBAImage(size: size, filledWith: RGBA(r: 201, g: 205, b: 211))
        let prize = Surface.drawing(size: size) { draw(on: $0, wells: true) } ?? RGBAImage(size: size, filledWith: RGBA(r: 255, g: 253, b: 246))
        return (cover, prize)
    }

    /// What a zone shows, at the zone's pixel size: words or emoji centred on the well
    /// in the card's style, or `image` (already loaded) scaled to fit; dimmed for a decoy.
    public static func zoneSymbol(text: String?, colour: RGBA?, image: RGBAImage?, size: PixelSize, dimmed: Bool) -> RGBAImage {
        let drawn = Surface.drawing(size: size) { s in
            let cr = s.cr, w = Double(size.width), h = Double(size.height)
            s.setColour(Colour(hex: 0xFFFDF6))
            cairo_rectangle(cr, 0, 0, w, h)
            cairo_fill(cr)
            if let image {
                // Scaled to fit, centred.
                let k = Swift.min(w / Double(image.size.width), h / Double(image.size.height)) * 0.9
                if let source = Surface(size: image.size) {
                    source.fill(with: image)
                    cairo_save(cr)
                    cairo_translate(cr, (w - Double(image.size.width) * k) / 2, (h - Double(image.size.height) * k) / 2)
                    cairo_scale(cr, k, k)
                    cairo_set_source_surface(cr, source.surface, 0, 0)
                    cairo_paint(cr)
                    cairo_restore(cr)
                }
            } else if let text {
                let style = TextStyle(largestPixelSize: h * 0.62, reach: 0.02)
                if let fitted = FittedText.fit(text, style: style, into: Box(x: w * 0.08, y: h * 0.08, width: w * 0.84, height: h * 0.84), on: s) {
                    s.setColour(colour.map(Colour.init) ?? Colour(hex: 0x8E1330))
                    fitted.show(on: s)
                }
            }
            if dimmed {
                s.setColour(Colour(0.35, 0.35, 0.38, 0.6))
                cairo_rectangle(cr, 0, 0, w, h)
                cairo_fill(cr)
            }
        }
        return drawn ?? RGBAImage(size: size, filledWith: dimmed ? RGBA(r: 120, g: 120, b: 124) : RGBA(r: 255, g: 253, b: 246))
    }
}

/// The ticket's artwork: lengths in card units like the built-in card's.
struct TicketDrawing {
    let size: PixelSize
    let zones: [ZoneOutline]
    let header: String

    func draw(on s: Surface, foil: Bool) {
        let cr = s.cr, u = CardArt.unit(for: size), w = Double(size.width), h = Double(size.height)
        // Paper, a fine border, and the header band.
        s.setColour(Colour(hex: 0xFAF4E4))
        cairo_rectangle(cr, 0, 0, w, h)
        cairo_fill(cr)
        cairo_set_line_width(cr, 3 * u)
        s.setColour(Colour(hex: 0x8E1330))
        s.roundedRect(Box(x: 8 * u, y: 8 * u, width: w - 16 * u, height: h - 16 * u), radius: 14 * u)
        cairo_stroke(cr)
        let top = zones.map(\.y).min() ?? h * 0.25
        let band = Box(x: 16 * u, y: 16 * u, width: w - 32 * u, height: Swift.max(top - 26 * u, 20 * u))
        s.setSource(s.linearGradient(0, band.y, 0, band.maxY, [(0, Colour(hex: 0xC62828)), (1, Colour(hex: 0x8E1330))]))
        s.roundedRect(band, radius: 10 * u)
        cairo_fill(cr)
        if let title = FittedText.fit(header, style: TextStyle(largestPixelSize: 40 * u, letterSpacing: 0, reach: 0.02),
                                      into: band.insetBy(12 * u, 6 * u), on: s) {
            s.setColour(Colour(hex: 0xFFE9A8))
            title.show(on: s)
        }
        for zone in zones {
            // The well the symbol is printed in, or the foil over it.
            Self.path(zone, on: s)
            if foil {
                s.setSource(s.linearGradient(zone.x, zone.y, zone.x + zone.width, zone.y + zone.height, [
                    (0, Colour(hex: 0xD9DDE3)), (0.45, Colour(hex: 0xF4F6F8)), (0.55, Colour(hex: 0xB9BEC6)), (1, Colour(hex: 0xCDD1D8)),
                ]))
                // No outline: the foil ends where the zone ends, so nothing outside
                // the zone differs between cover and prize.
                cairo_fill(cr)
                if let mark = FittedText.fit("?", style: TextStyle(largestPixelSize: zone.height * 0.5),
                                             into: Box(x: zone.x, y: zone.y, width: zone.width, height: zone.height), on: s) {
                    s.setColour(Colour(1, 1, 1, 0.55))
                    mark.show(on: s)
                }
            } else {
                s.setColour(Colour(hex: 0xFFFDF6))
                cairo_fill(cr)
            }
        }
    }

    static func path(_ zone: ZoneOutline, on s: Surface) {
        let cr = s.cr
        switch zone.shape {
        case .rectangle:
            cairo_rectangle(cr, zone.x, zone.y, zone.width, zone.height)
        case .ellipse:
            cairo_save(cr)
            cairo_translate(cr, zone.x + zone.width / 2, zone.y + zone.height / 2)
            cairo_scale(cr, zone.width / 2, zone.height / 2)
            cairo_arc(cr, 0, 0, 1, 0, 2 * Double.pi)
            cairo_restore(cr)
        }
    }
}
