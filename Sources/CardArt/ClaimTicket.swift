import CPangoCairo
import ScratchCore

/// What a printed claim ticket says.
public struct ClaimTicket: Sendable {
    /// The prize's picture as the card shows it (nil: words only).
    public var prize: RGBAImage?
    /// The card's name (its id, or a text card's title).
    public var title: String
    public var claim: ClaimMark
    public var kiosk: String
    /// When it was revealed, as shown (UTC).
    public var time: String

    public init(prize: RGBAImage?, title: String, claim: ClaimMark, kiosk: String, time: String) {
        self.prize = prize; self.title = title; self.claim = claim; self.kiosk = kiosk; self.time = time
    }
}

extension CardArt {
    /// A6 portrait in PostScript points (105 x 148 mm).
    static let ticketSize = (width: 298.0, height: 420.0)

    /// The ticket as a one-page PDF (cairo's PDF surface): the prize's picture, its name,
    /// the QR code 50 mm square, the code in words, the kiosk and the time. Nil if cairo
    /// could not make it.
    public static func ticketPDF(_ ticket: ClaimTicket) -> [UInt8]? {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let write: cairo_write_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }
        let (w, h) = ticketSize
        // All of it under the fonts' lock (Fonts.swift): its text, and the PDF surface's
        // font subsets written at the finish and released with the surface.
        let ok = Fonts.locked { withExtendedLifetime(sink) { () -> Bool in
            guard let pdf = cairo_pdf_surface_create_for_stream(write, Unmanaged.passUnretained(sink).toOpaque(), w, h) else { return false }
            defer { cairo_surface_destroy(pdf) }
            guard let cr = cairo_create(pdf) else { return false }
            drawTicket(ticket, cr: cr, width: w, height: h)
            cairo_show_page(cr)
            cairo_destroy(cr)
            cairo_surface_finish(pdf)
            return cairo_surface_status(pdf) == CAIRO_STATUS_SUCCESS
        } }
        return ok && !sink.bytes.isEmpty ? sink.bytes : nil
    }

    private static func drawTicket(_ ticket: ClaimTicket, cr: OpaquePointer, width w: Double, height h: Double) {
        let margin = 14.0
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        var y = margin
        if let prize = ticket.prize, let image = Surface(size: prize.size) {
            image.fill(with: prize)
            let boxW = w - 2 * margin, boxH = 110.0
            let scale = Swift.min(boxW / Double(prize.width), boxH / Double(prize.height))
            cairo_save(cr)
            cairo_translate(cr, (w - Double(prize.width) * scale) / 2, y)
            cairo_scale(cr, scale, scale)
            cairo_set_source_surface(cr, image.surface, 0, 0)
            cairo_paint(cr)
            cairo_restore(cr)
            y += boxH + 6
        }
        cairo_set_source_rgb(cr, 0, 0, 0)
        y = line(ticket.title, cr: cr, y: y, width: w, size: 16, bold: true)
        // 50 mm of QR: 141.7 points, the quiet zone included.
        let side = 141.7, module = side / Double(ticket.claim.sideInModules)
        ticket.claim.paint(on: cr, x: (w - side) / 2, y: y, module: module)
        y += side + 4
        cairo_set_source_rgb(cr, 0, 0, 0)
        y = line(ticket.claim.code, cr: cr, y: y, width: w, size: 15, bold: true, mono: true)
        y = line("kiosk \(ticket.kiosk)", cr: cr, y: y + 4, width: w, size: 10, bold: false)
        _ = line(ticket.time, cr: cr, y: y, width: w, size: 10, bold: false)
    }

    /// One centred line of text from `y`; returns the y below it. Called with the fonts' lock held.
    private static func line(_ text: String, cr: OpaquePointer, y: Double, width: Double, size: Double, bold: Bool, mono: Bool = false) -> Double {
        guard let layout = Fonts.layout(on: cr) else { return y }
        defer { cpc_unref(UnsafeMutableRawPointer(layout)) }
        if let font = pango_font_description_new() {
            pango_font_description_set_family(font, mono ? codeStyle.families : "Noto Sans, DejaVu Sans, sans-serif")
            pango_font_description_set_weight(font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
            pango_font_description_set_absolute_size(font, size * Double(cpc_pango_scale()))
            pango_layout_set_font_description(layout, font)
            pango_font_description_free(font)
        }
        pango_layout_set_width(layout, Int32((width - 20) * Double(cpc_pango_scale())))
        pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        pango_layout_set_text(layout, text, -1)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        cairo_move_to(cr, 10, y)
        pango_cairo_show_layout(cr, layout)
        return y + Double(logical.height)
    }
}
