// The application icon, drawn at each size it ships in (16 to 256 px) rather than scaled
// from one bitmap: below 48 px the text and the coin's star go, fewer rays and thicker
// strokes stay legible, and the card's edges sit on whole pixels; the scalable SVG is
// the same geometry at full detail.
import Foundation
import ScratchCore
import ScratchImage

enum Icon {
    /// The sizes of share/icons/hicolor/NxN/apps/scratchcard.png.
    static let sizes = [16, 24, 32, 48, 64, 128, 256]

    /// The view box of the scalable icon (its full detail).
    static let svgSize = 128

    /// The icon at `size` x `size` pixels.
    static func png(size: Int) -> RGBAImage {
        var canvas = CairoCanvas(size: size)
        draw(on: &canvas, size: size)
        defer { canvas.finish() }
        return canvas.image()
    }

    /// The scalable icon, as SVG text.
    static func svg() -> String {
        var canvas = SVGCanvas(size: svgSize)
        draw(on: &canvas, size: svgSize)
        return canvas.text
    }

    /// Writes every size and the SVG into `folder` (scratchcard-N.png, scratchcard.svg).
    static func write(into folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for size in sizes {
            let path = "\(folder)/scratchcard-\(size).png"
            try PNGFile.write(png(size: size), to: path)
            print("wrote \(path) (\(size)x\(size))")
        }
        let path = "\(folder)/scratchcard.svg"
        try Data(svg().utf8).write(to: URL(fileURLWithPath: path))
        print("wrote \(path)")
    }

    /// The drawing, in the pixels of a `size` icon: a card, its silver cover scratched
    /// away on the left in a zigzag over a sunburst prize ("WIN"), and a gold coin.
    static func draw<Canvas: VectorCanvas>(on canvas: inout Canvas, size: Int) {
        let s = Double(size)
        let k = s / 128                              // the design grid is 128 units
        let small = size < 48                        // no text, no star; edges on pixels
        let tiny = size <= 24                        // the card larger, fewer strokes
        func px(_ v: Double) -> Double { small ? (v * k).rounded() : v * k }

        // The card: on a small icon it takes more of the square, and its edges are whole pixels.
        let cardX = px(tiny ? 3 : 8), cardY = px(tiny ? 20 : 22)
        let cardW = px(tiny ? 122 : 120) - cardX, cardH = px(tiny ? 102 : 100) - cardY
        let radius = max(tiny ? 2 : 2.5, 10 * k)
        let card = Shape.roundedRect(x: cardX, y: cardY, width: cardW, height: cardH, radius: radius)

        // A soft shadow: widening, fainter copies below and to the right.
        for (grow, opacity) in (tiny ? [(0.0, 0.22)] : [(4.0, 0.06), (2.5, 0.08), (1.0, 0.12)]) {
            let g = grow * k
            canvas.fill(.roundedRect(x: cardX - g + 2 * k, y: cardY - g + 4 * k, width: cardW + 2 * g, height: cardH + 2 * g,
                                     radius: radius + g), with: .solid(Colour(0, 0, 0)), opacity: opacity)
        }

        // The prize: a sunburst, with "WIN" on it where there is room for letters.
        let centre = Point(cardX + 30 * k, cardY + 38 * k)
        canvas.clipped(to: card) { canvas in
            canvas.fill(card, with: .radial(centre: centre, radius: 90 * k, stops: [
                (0, Colour(hex: 0xFFE27A)), (0.5, Colour(hex: 0xFFA23A)), (1, Colour(hex: 0xE8465B)),
            ]), opacity: 1)
            let rays = tiny ? 8 : 14
            for ray in 0..<rays {
                let a0 = Double(ray) * 2 * .pi / Double(rays), a1 = a0 + .pi / Double(rays)
                let reach = 200 * k
                canvas.fill(.polygon([centre, Point(centre.x + reach * cos(a0), centre.y + reach * sin(a0)),
                                      Point(centre.x + reach * cos(a1), centre.y + reach * sin(a1))]),
                            with: .solid(Colour(1, 0.97, 0.85)), opacity: 0.22)
            }
            if !small {
                let win = StrokeFont.polylines("WIN", centreX: cardX + 32 * k, baseline: cardY + 47 * k, capHeight: 19 * k, gap: 1.9)
                canvas.stroke(Lines(polylines: win, width: 1.9 * 19 * k / 6), with: .solid(Colour(hex: 0xA3122A)), opacity: 1)
                canvas.stroke(Lines(polylines: win, width: 1.0 * 19 * k / 6), with: .solid(Colour(1, 1, 1)), opacity: 1)
            }
        }

        // The silver cover, scratched away on the left by a zigzag of strokes.
        let zigzag: [(Double, Double)] = tiny
            ? [(6, 30), (56, 30), (8, 58), (60, 60), (12, 92), (44, 92)]
            : [(6, 12), (52, 8), (8, 30), (62, 24), (10, 50), (58, 48), (14, 70), (44, 70)]
        let scratch = Lines(polylines: [zigzag.map { Point(cardX + $0.0 * k, cardY + $0.1 * k) }], width: (tiny ? 24 : 18) * k)
        canvas.fill(card, with: .linear(from: Point(0, cardY), to: Point(0, cardY + cardH), stops: [
            (0, Colour(0.84 * 0.96, 0.84 * 0.98, 0.84 * 1.03)), (1, Colour(0.64 * 0.96, 0.64 * 0.98, 0.64 * 1.03)),
        ]), erasing: scratch)
        // A sheen across the cover, where it is left.
        canvas.clipped(to: card) { canvas in
            canvas.fill(.polygon([Point(cardX + 86 * k, cardY), Point(cardX + 104 * k, cardY),
                                  Point(cardX + 64 * k, cardY + cardH), Point(cardX + 46 * k, cardY + cardH)]),
                        with: .solid(Colour(1, 1, 1)), opacity: tiny ? 0 : 0.18)
        }

        // The card's edge: at least a pixel, inside the card so that it stays crisp.
        let rim = max(1, 1.6 * k)
        canvas.outline(.roundedRect(x: cardX + rim / 2, y: cardY + rim / 2, width: cardW - rim, height: cardH - rim,
                                    radius: max(radius - rim / 2, 0.5)),
                       width: rim, with: .solid(Colour(hex: 0x4A4E55)), opacity: 0.6)

        // A gold coin, the scratching tool.
        let coin = Point(px(tiny ? 104 : 100) + (small ? 0 : 0), px(tiny ? 100 : 96))
        let coinRadius = (tiny ? 23 : 17) * k
        canvas.fill(.circle(centre: Point(coin.x + 1.5 * k, coin.y + 2.5 * k), radius: coinRadius),
                    with: .solid(Colour(0, 0, 0)), opacity: 0.3)
        canvas.fill(.circle(centre: coin, radius: coinRadius), with: .linear(
            from: Point(coin.x - coinRadius / 2, coin.y - coinRadius / 2), to: Point(coin.x + coinRadius / 2, coin.y + coinRadius / 2),
            stops: [(0, Colour(hex: 0xFFE07A)), (1, Colour(hex: 0xD9931C))]), opacity: 1)
        canvas.outline(.circle(centre: coin, radius: coinRadius * (tiny ? 0.62 : 0.735)), width: max(1, 1.8 * k),
                       with: .solid(Colour(hex: 0xB0700E)), opacity: 0.8)
        if !small {
            let star = StrokeFont.polylines("*", centreX: coin.x, baseline: coin.y + 6.5 * k, capHeight: 13 * k, gap: 1.6)
            canvas.stroke(Lines(polylines: star, width: 1.5 * 13 * k / 6), with: .solid(Colour(hex: 0xB0700E)), opacity: 0.85)
        }
    }
}

extension StrokeFont {
    /// The strokes of `text` as polylines (what `draw` turns into capsules), its baseline
    /// at `baseline`, centred on `centreX`.
    static func polylines(_ text: String, centreX: Double, baseline: Double, capHeight: Double,
                          gap: Double = 1.6, space: Double = 2.6) -> [[Point]] {
        let unit = capHeight / 6
        var x = centreX - width(of: text, capHeight: capHeight, gap: gap, space: space) / 2
        let top = baseline - capHeight
        var lines: [[Point]] = []
        for (n, ch) in text.enumerated() {
            if n > 0 { x += gap * unit }
            if ch == " " { x += space * unit; continue }
            guard let glyph = glyphs[ch] else { x += 4 * unit; continue }
            for stroke in glyph.strokes { lines.append(stroke.map { Point(x + $0.0 * unit, top + $0.1 * unit) }) }
            x += glyph.width * unit
        }
        return lines
    }
}
