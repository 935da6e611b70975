import CPangoCairo
@preconcurrency import Glibc
import ScratchCore

/// The built-in cover: brushed silver foil with a sheen and sparkle, a rounded bevelled
/// frame, and the prompt ("SCRATCH HERE" over "TO REVEAL YOUR PRIZE", or the operator's
/// words) embossed in the middle. Drawn for the size it is shown at; every length is in
/// card units (`unit`: one point of the 640x400 design, times the size's scale), the
/// frame follows the size's own aspect.
struct CoverDrawing {
    let size: PixelSize
    /// The operator's prompt; nil for the built-in "SCRATCH HERE".
    let prompt: String?

    var unit: Double { CardArt.unit(for: size) }

    static let defaultPrompt = "SCRATCH HERE"
    static let defaultSubline = "TO REVEAL YOUR PRIZE"

    var promptStyle: TextStyle {
        // Built-in words are spaced out like the stroke font's were; the operator's are
        // set as written (letter spacing breaks the joins of Arabic and other scripts).
        TextStyle(largestPixelSize: 70 * unit, letterSpacing: prompt == nil ? 0.06 : 0, reach: 0.04)
    }

    var sublineStyle: TextStyle { TextStyle(largestPixelSize: 21 * unit, letterSpacing: 0.14) }

    /// The prompt fitted into its area; the subline (built-in prompt only) beneath it.
    func layout(on surface: Surface) -> (prompt: FittedText?, subline: FittedText?, diamondsY: Double) {
        let u = unit, w = Double(size.width), h = Double(size.height)
        let promptArea = Box(x: 64 * u, y: 0, width: w - 128 * u, height: prompt == nil ? 100 * u : h - 200 * u)
        let text = prompt ?? Self.defaultPrompt
        let fitted = FittedText.fit(text, style: promptStyle, into: promptArea, on: surface)
        let sublineArea = Box(x: 150 * u, y: 0, width: w - 300 * u, height: 40 * u)
        let subline = prompt == nil ? FittedText.fit(Self.defaultSubline, style: sublineStyle, into: sublineArea, on: surface) : nil
        // Stacked and centred: the diamonds, the prompt, the subline.
        let diamonds = 10 * u, gap1 = 26 * u, gap2 = 16 * u
        let promptHeight = fitted?.drawn.height ?? 0
        let sublineHeight = subline.map { gap2 + $0.drawn.height } ?? 0
        let total = diamonds + gap1 + promptHeight + sublineHeight
        let top = (h - total) / 2
        let placedPrompt = fitted.map { $0.moved(top: top + diamonds + gap1) }
        let placedSubline = subline.map { $0.moved(top: top + diamonds + gap1 + promptHeight + gap2) }
        return (placedPrompt, placedSubline, top + diamonds / 2)
    }

    func draw(on s: Surface) {
        let cr = s.cr, u = unit, w = Double(size.width), h = Double(size.height)

        // Brushed silver: a cool vertical gradient, two soft diagonal sheens and
        // horizontal streaks, in one pass over the pixels (cairo's gradients cost 30 ns
        // a pixel each at 4K; this costs 2).
        brushedSilver(on: s)

        cairo_set_operator(cr, CAIRO_OPERATOR_ADD)
        // Sparkle: sparse bright specks, the brightest with a faint cross.
        var noise = Noise(seed: 0xC0FF_EE02)
        // As many per card unit of area as the design has; bounded for extreme aspects.
        let specks = Swift.min(Int(420 * (w * h) / (640 * 400 * u * u)), 6000)
        for _ in 0..<specks {
            let x = noise.between(0, w), y = noise.between(0, h), strength = noise.between(0.06, 0.22)
            cairo_set_source_rgba(cr, 1, 1, 1, strength)
            cairo_arc(cr, x, y, 0.7 * u, 0, 2 * .pi)
            cairo_fill(cr)
            if strength > 0.17 {
                cairo_set_source_rgba(cr, 1, 1, 1, strength * 0.35)
                cairo_set_line_width(cr, 0.8 * u)
                cairo_move_to(cr, x - 2 * u, y); cairo_line_to(cr, x + 2 * u, y)
                cairo_move_to(cr, x, y - 2 * u); cairo_line_to(cr, x, y + 2 * u)
                cairo_stroke(cr)
            }
        }
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)

        // The outer rim of the card, a little darker; then the frame: a dark groove with
        // a light edge inside it (a bevel).
        s.setColour(Colour(hex: 0x50555C, alpha: 0.25))
        cairo_set_line_width(cr, 6 * u)
        cairo_rectangle(cr, 3 * u, 3 * u, w - 6 * u, h - 6 * u)
        cairo_stroke(cr)
        let frame = CardArt.frame(for: size)
        s.setColour(Colour(1, 1, 1, 0.55))
        cairo_set_line_width(cr, 1.5 * u)
        s.roundedRect(frame.insetBy(2.5 * u, 2.5 * u), radius: 20 * u)
        cairo_stroke(cr)
        s.setColour(Colour(hex: 0x6B7079, alpha: 0.75))
        cairo_set_line_width(cr, 3 * u)
        s.roundedRect(frame, radius: 22 * u)
        cairo_stroke(cr)

        let (promptText, subline, diamondsY) = layout(on: s)

        // Five little diamonds above the words.
        s.setColour(Colour(hex: 0x5A5F67))
        for i in 0..<5 {
            let cx = w / 2 + Double(i - 2) * 26 * u, r = 3.5 * u * 2.squareRoot()
            cairo_move_to(cr, cx, diamondsY - r); cairo_line_to(cr, cx + r, diamondsY)
            cairo_line_to(cr, cx, diamondsY + r); cairo_line_to(cr, cx - r, diamondsY)
            cairo_close_path(cr)
        }
        cairo_fill(cr)

        // The prompt, embossed: a light copy just below, then the dark grey words.
        if let promptText {
            let drop = 0.031 * promptText.layout.pixelSize
            s.setColour(Colour(1, 1, 1, 0.7))
            promptText.show(on: s, dy: drop)
            s.setColour(Colour(hex: 0x34373C))
            promptText.show(on: s)
        }

        // The smaller line, between two rules.
        if let subline {
            s.setColour(Colour(hex: 0x4A4E55))
            subline.show(on: s)
            let ink = subline.ink, y = ink.midY
            cairo_set_line_width(cr, 2 * u)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
            cairo_move_to(cr, ink.x - 70 * u, y); cairo_line_to(cr, ink.x - 16 * u, y)
            cairo_move_to(cr, ink.maxX + 16 * u, y); cairo_line_to(cr, ink.maxX + 70 * u, y)
            cairo_stroke(cr)
        }
    }

    /// The foil's light at every pixel: a vertical gradient from 0.80 to 0.67, two
    /// Gaussian bands of sheen across the diagonal 0.55 x + y, and streaks (random per row,
    /// slowly varying along it), tinted cool. Fixed point, with tables for the sheen and
    /// the tint, written straight into the surface (opaque).
    private func brushedSilver(on s: Surface) {
        let w = size.width, h = size.height, u = unit, one = 4096.0
        // The tint: light (0...1 in 4096 steps) to a cool grey.
        let tint: [UInt32] = (0...4096).map { i in
            let v = Double(i) / one
            func byte(_ c: Double) -> UInt32 { UInt32((Swift.min(Swift.max(c, 0), 1) * 255).rounded()) }
            return 0xFF00_0000 | byte(v * 0.965) << 16 | byte(v * 0.985) << 8 | byte(v * 1.02)
        }
        // The sheens, along s = 0.55 x + y: one at the card's middle, a fainter one lower.
        let diagonal = Int(0.55 * Double(w)) + h + 2
        let first = 0.55 * Double(w) / 2 + 0.45 * Double(h), second = 0.69 * (0.55 * Double(w) + Double(h))
        let sheen: [Int32] = (0..<diagonal).map { i in
            let a = (Double(i) - first) / (150 * u), b = (Double(i) - second) / (60 * u)
            return Int32(((exp(-a * a) * 0.13 + exp(-b * b) * 0.05) * one).rounded())
        }
        let knots = 17
        var noise = Noise(seed: 0xC0FF_EE01)
        var previous = 0.0
        var values = [Int32](repeating: 0, count: knots)
        let slope = Int(0.55 * 65536)
        tint.withUnsafeBufferPointer { tint in
        sheen.withUnsafeBufferPointer { sheen in
            s.withPixels { y, row in
                previous = previous * 0.35 + noise.between(-1, 1) * 0.65
                let base = Int32(((0.80 - 0.13 * (Double(y) + 0.5) / Double(h) + previous * 0.022) * one).rounded())
                // The streak's knots, 16.16 fixed point, with the row's light in them.
                for k in 0..<knots { values[k] = Int32(((noise.between(-1, 1) * 0.014) * one * 65536 / 256).rounded()) << 8 + base << 16 }
                let segment = Double(w) / Double(knots - 1)
                var x = 0
                var along = y << 16 + slope / 2
                for k in 0..<(knots - 1) {
                    let end = k == knots - 2 ? w : Swift.min(w, Int((Double(k + 1) * segment).rounded()))
                    let count = Int32(Swift.max(end - x, 1))
                    var value = values[k]
                    let step = (values[k + 1] - values[k]) / count
                    while x < end {
                        let light = Swift.min(Swift.max((value >> 16) + sheen[along >> 16], 0), 4096)
                        row[x] = tint[Int(light)]
                        value &+= step
                        along &+= slope
                        x += 1
                    }
                }
            }
        }
        }
    }
}
