// The card file's type icon (share/icons/hicolor/NxN/mimetypes/application-x-scratchcard):
// a page with a folded corner, as a file manager shows documents, holding a small scratch
// card, its silver cover scratched open over the gold prize. Drawn at each size, like the
// application icon: below 48 px the page's lines go and edges sit on whole pixels.
import Foundation
import ScratchCore
import ScratchImage

enum MimeIcon {
    /// The name in the icon theme: the media type with its slash made a dash.
    static let name = "application-x-scratchcard"

    static func png(size: Int) -> RGBAImage {
        var canvas = CairoCanvas(size: size)
        draw(on: &canvas, size: size)
        defer { canvas.finish() }
        return canvas.image()
    }

    static func svg() -> String {
        var canvas = SVGCanvas(size: Icon.svgSize)
        draw(on: &canvas, size: Icon.svgSize)
        return canvas.text
    }

    static func draw<Canvas: VectorCanvas>(on canvas: inout Canvas, size: Int) {
        let k = Double(size) / 128
        let small = size < 48
        func px(_ v: Double) -> Double { small ? (v * k).rounded() : v * k }

        // The page, its top-right corner folded down.
        let left = px(small ? 18 : 22), right = px(small ? 110 : 106), top = px(8), bottom = px(120)
        let fold = px(small ? 26 : 24)
        let page = Shape.polygon([Point(left, top), Point(right - fold, top), Point(right, top + fold),
                                  Point(right, bottom), Point(left, bottom)])
        canvas.fill(.polygon([Point(left + 2 * k, top + 3 * k), Point(right - fold + 2 * k, top + 3 * k), Point(right + 2 * k, top + fold + 3 * k),
                              Point(right + 2 * k, bottom + 3 * k), Point(left + 2 * k, bottom + 3 * k)]),
                    with: .solid(Colour(0, 0, 0)), opacity: 0.18)
        canvas.fill(page, with: .linear(from: Point(0, top), to: Point(0, bottom), stops: [
            (0, Colour(hex: 0xFFFFFF)), (1, Colour(hex: 0xE9ECF0)),
        ]), opacity: 1)
        canvas.fill(.polygon([Point(right - fold, top), Point(right - fold, top + fold), Point(right, top + fold)]),
                    with: .solid(Colour(hex: 0xC9CED6)), opacity: 1)
        let rim = max(1, 1.5 * k)
        canvas.outline(page, width: rim, with: .solid(Colour(hex: 0x6B717A)), opacity: 0.8)

        // Lines of text on the page, where there is room for them.
        if !small {
            for (n, y) in [28.0, 38.0].enumerated() {
                canvas.fill(.roundedRect(x: left + 10 * k, y: y * k, width: (n == 0 ? 44 : 56) * k, height: 4 * k, radius: 2 * k),
                            with: .solid(Colour(hex: 0xAEB4BD)), opacity: 1)
            }
        }

        // The card: gold prize, silver cover scratched away in a zigzag.
        let cardX = px(small ? 24 : 30), cardY = px(small ? 52 : 56)
        let cardW = px(small ? 104 : 98) - cardX, cardH = px(small ? 110 : 104) - cardY
        let card = Shape.roundedRect(x: cardX, y: cardY, width: cardW, height: cardH, radius: max(small ? 1.5 : 2, 6 * k))
        canvas.fill(card, with: .radial(centre: Point(cardX + 20 * k, cardY + 22 * k), radius: 70 * k, stops: [
            (0, Colour(hex: 0xFFE27A)), (0.5, Colour(hex: 0xFFA23A)), (1, Colour(hex: 0xE8465B)),
        ]), opacity: 1)
        let zigzag: [(Double, Double)] = small ? [(4, 12), (40, 10), (6, 40), (44, 40)] : [(4, 8), (36, 6), (6, 22), (44, 18), (8, 38), (36, 38)]
        let scratch = Lines(polylines: [zigzag.map { Point(cardX + $0.0 * k, cardY + $0.1 * k) }], width: (small ? 16 : 11) * k)
        canvas.fill(card, with: .linear(from: Point(0, cardY), to: Point(0, cardY + cardH), stops: [
            (0, Colour(0.84 * 0.96, 0.84 * 0.98, 0.84 * 1.03)), (1, Colour(0.62 * 0.96, 0.62 * 0.98, 0.62 * 1.03)),
        ]), erasing: scratch)
        let cardRim = max(1, 1.2 * k)
        canvas.outline(.roundedRect(x: cardX + cardRim / 2, y: cardY + cardRim / 2, width: cardW - cardRim, height: cardH - cardRim,
                                    radius: max(max(small ? 1.5 : 2, 6 * k) - cardRim / 2, 0.5)),
                       width: cardRim, with: .solid(Colour(hex: 0x4A4E55)), opacity: 0.6)
    }
}
