import CardRules
import CPangoCairo
@preconcurrency import Glibc
import ScratchCore

/// The built-in prize's style, for its own words ("YOU WIN!" on "FREE COFFEE") and for a
/// deck's text cards: an orange sunburst with confetti (or the card's colour, or its
/// image), a thin white frame, the title in white to pale gold with a dark red outline
/// and a drop shadow, and the subtitle in white on a dark red ribbon.
struct PrizeDrawing {
    let size: PixelSize
    let text: CardText
    /// Built-in words are spaced out; an operator's are set as written.
    let spaced: Bool

    var unit: Double { CardArt.unit(for: size) }

    /// The outline's width and the shadow's offset, as fractions of the title's size.
    static let outline = 0.09, shadowOffset = (x: 0.035, y: 0.045)

    var titleStyle: TextStyle {
        TextStyle(largestPixelSize: 120 * unit, letterSpacing: spaced ? 0.02 : 0,
                  reach: Self.outline / 2 + Swift.max(Self.shadowOffset.x, Self.shadowOffset.y))
    }

    var subtitleStyle: TextStyle { TextStyle(largestPixelSize: 42 * unit, letterSpacing: spaced ? 0.06 : 0) }

    /// The ribbon's padding around the subtitle: across, and above and below.
    var ribbonPadding: (x: Double, y: Double) { (32 * unit, 10 * unit) }

    /// Where the words go: the area text may use (inside the frame, with a margin).
    var textArea: Box { CardArt.textArea(for: size) }

    /// The title and subtitle fitted and placed, and the ribbon around the subtitle.
    func layout(on surface: Surface) -> (title: FittedText?, subtitle: FittedText?, ribbon: Box?) {
        let u = unit, area = textArea
        let pad = ribbonPadding, gap = 18 * u
        var subtitle: FittedText?
        if let words = text.subtitle {
            let box = Box(x: area.x + pad.x, y: 0, width: area.width - 2 * pad.x,
                          height: Swift.min(96 * u, area.height * 0.4) - 2 * pad.y)
            subtitle = FittedText.fit(words, style: subtitleStyle, into: box, on: surface)
        }
        let ribbonHeight = subtitle.map { $0.drawn.height + 2 * pad.y } ?? 0
        let titleBox = Box(x: area.x, y: area.y, width: area.width,
                           height: area.height - (subtitle == nil ? 0 : ribbonHeight + gap))
        let title = FittedText.fit(text.title, style: titleStyle, into: titleBox, on: surface)
        // The title above the ribbon, the pair centred in the area.
        let titleHeight = title?.drawn.height ?? 0
        let total = titleHeight + (subtitle == nil ? 0 : (title == nil ? 0 : gap) + ribbonHeight)
        let top = area.y + (area.height - total) / 2
        let placedTitle = title?.moved(top: top)
        guard let subtitle else { return (placedTitle, nil, nil) }
        let subtitleTop = top + total - ribbonHeight + pad.y
        let placedSubtitle = subtitle.moved(top: subtitleTop)
        let drawn = placedSubtitle.drawn
        let ribbon = Box(x: drawn.x - pad.x, y: drawn.y - pad.y, width: drawn.width + 2 * pad.x, height: drawn.height + 2 * pad.y)
        return (placedTitle, placedSubtitle, ribbon)
    }

    /// Draws the card; `background`, if given, is an image of the card's size under the words.
    func draw(on s: Surface, background: RGBAImage?) {
        let cr = s.cr, u = unit
        let (title, subtitle, ribbon) = layout(on: s)

        if let background {
            s.fill(with: background)
        } else {
            drawSunburst(on: s)
            drawConfetti(on: s, avoiding: [title?.drawn, ribbon].compactMap { $0?.insetBy(-14 * u, -12 * u) })
        }

        // The frame: a thin white rounded line.
        s.setColour(Colour(1, 1, 1, 0.8))
        cairo_set_line_width(cr, 3 * u)
        s.roundedRect(CardArt.frame(for: size), radius: 22 * u)
        cairo_stroke(cr)

        if let title { drawTitle(title, on: s) }

        if let subtitle, let ribbon {
            let radius = Swift.min(29 * u, ribbon.height / 2)
            s.setColour(Colour(0.3, 0, 0, 0.25))
            s.roundedRect(ribbon.offset(3 * u, 4 * u), radius: radius)
            cairo_fill(cr)
            s.setColour(ribbonColour)
            s.roundedRect(ribbon, radius: radius)
            cairo_fill(cr)
            s.setColour(Colour(hex: 0xFFD27A, alpha: 0.6))
            cairo_set_line_width(cr, 1.5 * u)
            s.roundedRect(ribbon.insetBy(5 * u, 5 * u), radius: Swift.max(radius - 5 * u, 0))
            cairo_stroke(cr)
            s.setColour(.white)
            subtitle.show(on: s)
        }
    }

    /// The outline's colour: dark red, or for a title of its own colour a darker shade
    /// of it (white around a dark one).
    var outlineColour: Colour {
        guard let colour = text.colour.map(Colour.init) else { return Colour(hex: 0xA3122A) }
        return colour.luminance > 0.35 ? colour.mixed(with: .black, 0.6) : .white
    }

    var ribbonColour: Colour {
        guard let background = text.background.map(Colour.init) else { return Colour(hex: 0x8E1330) }
        let dark = background.mixed(with: .black, 0.55)
        return dark.luminance > 0.3 ? background.mixed(with: .black, 0.75) : dark
    }

    private func drawTitle(_ title: FittedText, on s: Surface) {
        let cr = s.cr, size = title.layout.pixelSize
        let line = Self.outline * size
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_width(cr, line)
        // The drop shadow: the letters and their outline, offset and faint.
        title.path(on: s, dx: Self.shadowOffset.x * size, dy: Self.shadowOffset.y * size)
        s.setColour(Colour(0.35, 0, 0.05, 0.3))
        cairo_stroke_preserve(cr)
        cairo_fill(cr)
        // The outline, then the letters over it.
        title.path(on: s)
        s.setColour(outlineColour)
        cairo_stroke_preserve(cr)
        if let colour = text.colour {
            s.setColour(Colour(colour))
        } else {
            let ink = title.ink
            s.setSource(s.linearGradient(0, ink.y, 0, ink.maxY, [(0, .white), (1, Colour(hex: 0xFFE9A8))]))
        }
        cairo_fill(cr)
    }

    /// Rays on a radial gradient, from a point a little above the middle. Smooth, so
    /// drawn at up to about half a million pixels and stretched (with bilinear filtering)
    /// over a bigger card: at 4K a sixteenth of the work, and the same picture.
    private func drawSunburst(on target: Surface) {
        let factor = Swift.max(1, (Double(size.pixelCount) / 500_000).squareRoot().rounded())
        let small = PixelSize(width: Int((Double(size.width) / factor).rounded(.up)), height: Int((Double(size.height) / factor).rounded(.up)))
        guard factor > 1, let s = Surface(size: small) else { return drawSunburst(on: target, at: size) }
        PrizeDrawing(size: small, text: text, spaced: spaced).drawSunburst(on: s, at: small)
        target.paintStretched(s)
    }

    private func drawSunburst(on s: Surface, at size: PixelSize) {
        let cr = s.cr, w = Double(size.width), h = Double(size.height)
        var inner = Colour(hex: 0xFFE27A), middle = Colour(hex: 0xFFA23A), outer = Colour(hex: 0xE8465B)
        if let background = text.background.map(Colour.init) {
            inner = background.mixed(with: .white, 0.45)
            middle = background
            outer = background.mixed(with: .black, 0.3)
        }
        let cx = w / 2, cy = h * 0.46, reach = (w * w + h * h).squareRoot() * 0.56
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        s.setSource(s.radialGradient(cx, cy, reach, [(0, inner), (0.5, middle), (1, outer)]))
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        // 14 light wedges, fading in away from the centre.
        let rays = 14, cream = Colour(1, 0.97, 0.85)
        for i in 0..<rays {
            let a0 = Double(i) * 2 * .pi / Double(rays), a1 = a0 + .pi / Double(rays)
            cairo_move_to(cr, cx, cy)
            cairo_line_to(cr, cx + reach * 1.5 * cos(a0), cy + reach * 1.5 * sin(a0))
            cairo_line_to(cr, cx + reach * 1.5 * cos(a1), cy + reach * 1.5 * sin(a1))
            cairo_close_path(cr)
        }
        s.setSource(s.radialGradient(cx, cy, reach, [(0, cream.with(alpha: 0)), (0.33, cream.with(alpha: 0.2)), (1, cream.with(alpha: 0.22))]))
        cairo_fill(cr)
    }

    /// Confetti: little bars and dots with a faint shadow, kept off the words.
    private func drawConfetti(on s: Surface, avoiding clear: [Box]) {
        let cr = s.cr, u = unit, w = Double(size.width), h = Double(size.height)
        var noise = Noise(seed: 0x5EED_2025)
        let palette: [UInt32] = [0x2EC4B6, 0x3A86FF, 0xFF4F9A, 0x8338EC, 0x7BD648, 0xFFFFFF, 0xFFD23F]
        // As many per card unit of area as the design has; bounded for extreme aspects.
        let wanted = Swift.min(Int(110 * (w * h) / (640 * 400 * u * u)), 1500)
        var placed = 0, tries = 0
        while placed < wanted && tries < wanted * 20 {
            tries += 1
            let x = noise.between(10 * u, w - 10 * u), y = noise.between(10 * u, h - 10 * u)
            let angle = noise.between(0, .pi), long = noise.between(7, 13) * u
            let colour = Colour(hex: palette[Int(noise.next() % UInt64(palette.count))])
            let spot = Box(x: x - long, y: y - long, width: 2 * long, height: 2 * long)
            if clear.contains(where: { $0.intersects(spot) }) { continue }
            let round = placed % 4 == 0
            func piece(_ px: Double, _ py: Double) {
                if round {
                    cairo_arc(cr, px, py, long * 0.33, 0, 2 * .pi)
                } else {
                    cairo_save(cr)
                    cairo_translate(cr, px, py)
                    cairo_rotate(cr, angle)
                    cairo_rectangle(cr, -long / 2, -long * 0.21, long, long * 0.42)
                    cairo_restore(cr)
                }
            }
            if !round {
                piece(x + 1.5 * u, y + 2 * u)
                s.setColour(Colour(0.3, 0.05, 0, 0.15))
                cairo_fill(cr)
            }
            piece(x, y)
            s.setColour(colour.with(alpha: 0.95))
            cairo_fill(cr)
            placed += 1
        }
    }
}
