// A small stroke font: capital letters, digits and a few symbols drawn as polylines on
// a grid 6 units tall (y down, 0 = cap line, 6 = baseline), most glyphs 4 units wide.
// Strokes are rendered as capsules into a supersampled Coverage, so the edges are smooth.
// Only the icon's "WIN" and coin star use it now: the card's words are set by Pango
// (Sources/CardArt), in any script.
import Foundation

struct Glyph {
    var width: Double
    var strokes: [[(Double, Double)]]
}

enum StrokeFont {
    /// Points along an elliptical arc; angles in degrees, 0 = right, 90 = down.
    static func arc(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double,
                    from a0: Double, to a1: Double, steps: Int = 24) -> [(Double, Double)] {
        (0...steps).map { i in
            let a = (a0 + (a1 - a0) * Double(i) / Double(steps)) * .pi / 180
            return (cx + rx * cos(a), cy + ry * sin(a))
        }
    }

    static let glyphs: [Character: Glyph] = {
        var g: [Character: Glyph] = [:]
        let ring = arc(2, 3, 2, 3, from: 0, to: 360, steps: 40)
        g["A"] = Glyph(width: 4.4, strokes: [[(0, 6), (2.2, 0), (4.4, 6)], [(0.75, 4), (3.65, 4)]])
        g["B"] = Glyph(width: 4, strokes: [[(2.2, 3)] + arc(2.2, 1.5, 1.6, 1.5, from: 90, to: -90) + [(0, 0), (0, 6)]
                                          + arc(2.2, 4.5, 1.8, 1.5, from: 90, to: -90) + [(0, 3)]])
        g["C"] = Glyph(width: 4, strokes: [arc(2, 3, 2, 3, from: -40, to: -320, steps: 36)])
        g["D"] = Glyph(width: 4, strokes: [[(0, 0), (0, 6), (1.6, 6)] + arc(1.6, 3, 2.4, 3, from: 90, to: -90) + [(0, 0)]])
        g["E"] = Glyph(width: 3.6, strokes: [[(3.6, 0), (0, 0), (0, 6), (3.6, 6)], [(0, 3), (3, 3)]])
        g["F"] = Glyph(width: 3.5, strokes: [[(3.5, 0), (0, 0), (0, 6)], [(0, 3), (3, 3)]])
        g["G"] = Glyph(width: 4, strokes: [arc(2, 3, 2, 3, from: -40, to: -360, steps: 36) + [(4, 6)], [(4, 3.4), (2.3, 3.4)]])
        g["H"] = Glyph(width: 4, strokes: [[(0, 0), (0, 6)], [(4, 0), (4, 6)], [(0, 3), (4, 3)]])
        g["I"] = Glyph(width: 0, strokes: [[(0, 0), (0, 6)]])
        g["J"] = Glyph(width: 3.6, strokes: [[(3.6, 0), (3.6, 4.2)] + arc(1.8, 4.2, 1.8, 1.8, from: 0, to: 165)])
        g["K"] = Glyph(width: 4, strokes: [[(0, 0), (0, 6)], [(4, 0), (0, 3.8)], [(1.4, 2.6), (4, 6)]])
        g["L"] = Glyph(width: 3.5, strokes: [[(0, 0), (0, 6), (3.5, 6)]])
        g["M"] = Glyph(width: 5, strokes: [[(0, 6), (0, 0), (2.5, 4.2), (5, 0), (5, 6)]])
        g["N"] = Glyph(width: 4, strokes: [[(0, 6), (0, 0), (4, 6), (4, 0)]])
        g["O"] = Glyph(width: 4, strokes: [ring])
        g["P"] = Glyph(width: 4, strokes: [[(0, 6), (0, 0), (2.3, 0)] + arc(2.3, 1.6, 1.7, 1.6, from: -90, to: 90) + [(0, 3.2)]])
        g["Q"] = Glyph(width: 4, strokes: [ring, [(2.5, 4.3), (4.2, 6.3)]])
        g["R"] = Glyph(width: 4, strokes: [[(0, 6), (0, 0), (2.3, 0)] + arc(2.3, 1.5, 1.7, 1.5, from: -90, to: 90) + [(0, 3)],
                                          [(1.9, 3), (4, 6)]])
        g["S"] = Glyph(width: 4, strokes: [arc(2, 1.5, 1.9, 1.5, from: -25, to: -270, steps: 24)
                                          + arc(2, 4.5, 2, 1.5, from: -90, to: 155, steps: 24)])
        g["T"] = Glyph(width: 4, strokes: [[(0, 0), (4, 0)], [(2, 0), (2, 6)]])
        g["U"] = Glyph(width: 4, strokes: [[(0, 0), (0, 4)] + arc(2, 4, 2, 2, from: 180, to: 0) + [(4, 0)]])
        g["V"] = Glyph(width: 4.4, strokes: [[(0, 0), (2.2, 6), (4.4, 0)]])
        g["W"] = Glyph(width: 5.6, strokes: [[(0, 0), (1.3, 6), (2.8, 1.2), (4.3, 6), (5.6, 0)]])
        g["X"] = Glyph(width: 4, strokes: [[(0, 0), (4, 6)], [(4, 0), (0, 6)]])
        g["Y"] = Glyph(width: 4.4, strokes: [[(0, 0), (2.2, 3.2), (4.4, 0)], [(2.2, 3.2), (2.2, 6)]])
        g["Z"] = Glyph(width: 4, strokes: [[(0, 0), (4, 0), (0, 6), (4, 6)]])

        g["0"] = Glyph(width: 4, strokes: [ring])
        g["1"] = Glyph(width: 2.4, strokes: [[(0, 1.3), (1.6, 0), (1.6, 6)]])
        g["2"] = Glyph(width: 4, strokes: [arc(2, 1.9, 1.9, 1.9, from: -160, to: 35) + [(0, 6), (4, 6)]])
        g["3"] = Glyph(width: 4, strokes: [arc(2, 1.5, 1.8, 1.5, from: -160, to: 90) + arc(2, 4.5, 2, 1.5, from: -90, to: 160)])
        g["4"] = Glyph(width: 4, strokes: [[(3, 6), (3, 0), (0, 4.2), (4, 4.2)]])
        g["5"] = Glyph(width: 4, strokes: [[(3.8, 0), (0.4, 0), (0.2, 2.8)] + arc(2, 4.1, 2, 1.9, from: -120, to: 150)])
        g["6"] = Glyph(width: 4, strokes: [arc(2, 4.1, 2, 1.9, from: 0, to: 360), [(0.05, 3.8), (0.9, 1.6), (2.6, 0.1), (3.4, 0.05)]])
        g["7"] = Glyph(width: 4, strokes: [[(0, 0), (4, 0), (1.4, 6)]])
        g["8"] = Glyph(width: 4, strokes: [arc(2, 1.45, 1.7, 1.45, from: 0, to: 360), arc(2, 4.4, 2, 1.6, from: 0, to: 360)])
        g["9"] = Glyph(width: 4, strokes: [arc(2, 1.9, 2, 1.9, from: 0, to: 360), [(3.95, 2.2), (3.1, 4.4), (1.4, 5.9), (0.6, 5.95)]])

        g["!"] = Glyph(width: 0, strokes: [[(0, 0), (0, 4.1)], [(0, 5.9), (0, 5.9)]])
        g["?"] = Glyph(width: 3.6, strokes: [arc(1.8, 1.6, 1.8, 1.6, from: -170, to: 60) + [(1.8, 4.1)], [(1.8, 5.9), (1.8, 5.9)]])
        g["."] = Glyph(width: 0, strokes: [[(0, 5.9), (0, 5.9)]])
        g[","] = Glyph(width: 0.6, strokes: [[(0.6, 5.6), (0, 7)]])
        g["-"] = Glyph(width: 2.6, strokes: [[(0, 3.4), (2.6, 3.4)]])
        g[":"] = Glyph(width: 0, strokes: [[(0, 2), (0, 2)], [(0, 5.9), (0, 5.9)]])
        g["'"] = Glyph(width: 0, strokes: [[(0, 0), (0, 1.6)]])
        g["+"] = Glyph(width: 4, strokes: [[(0, 3.2), (4, 3.2)], [(2, 1.2), (2, 5.2)]])
        g["*"] = Glyph(width: 4, strokes: [[(2, 0.6), (2, 5.4)], [(0, 1.8), (4, 4.2)], [(0, 4.2), (4, 1.8)]])
        return g
    }()

    /// The width in pixels of `text` at the given cap height and letter gap (in units).
    static func width(of text: String, capHeight: Double, gap: Double = 1.6, space: Double = 2.6) -> Double {
        let unit = capHeight / 6
        var total = 0.0
        for (n, ch) in text.enumerated() {
            if n > 0 { total += gap }
            total += ch == " " ? space : (glyphs[ch]?.width ?? 4)
        }
        return total * unit
    }

    /// Adds the strokes of `text` to `mask`, its baseline at `baseline`, centred on `centreX`.
    /// `weight` is the stroke thickness in units.
    static func draw(_ text: String, into mask: inout Coverage, centreX: Double, baseline: Double,
                     capHeight: Double, weight: Double = 0.95, gap: Double = 1.6, space: Double = 2.6) {
        let unit = capHeight / 6
        var x = centreX - width(of: text, capHeight: capHeight, gap: gap, space: space) / 2
        let top = baseline - capHeight
        for (n, ch) in text.enumerated() {
            if n > 0 { x += gap * unit }
            if ch == " " { x += space * unit; continue }
            guard let glyph = glyphs[ch] else { x += 4 * unit; continue }
            for stroke in glyph.strokes {
                let points = stroke.map { (x + $0.0 * unit, top + $0.1 * unit) }
                if points.count == 1 {
                    mask.circle(points[0].0, points[0].1, radius: weight * unit / 2)
                }
                for i in 0..<(points.count - 1) {
                    mask.capsule(points[i].0, points[i].1, points[i + 1].0, points[i + 1].1, radius: weight * unit / 2)
                }
            }
            x += glyph.width * unit
        }
    }
}
