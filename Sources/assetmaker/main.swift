// assetmaker: draws the built-in default card and writes it as PNGs.
//
//     swift run assetmaker Assets            cover.png, prize.png, icon.png into Assets/
//     swift run assetmaker --icons Assets/icons   the icon at each size, and as SVG
//     swift run assetmaker --specimen F.png  every glyph of the stroke font, for checking
//     swift run -c release assetmaker --time-scaling   times a 3840x2160 -> 1920x1080 shrink
//
// Everything is deterministic (fixed seeds), so rerunning gives the same bytes.
@preconcurrency import Glibc
import Foundation
import ScratchCore
import ScratchImage

let cardWidth = 640, cardHeight = 400

func drawCover() -> RGBAImage {
    let w = Double(cardWidth), h = Double(cardHeight)
    var canvas = Canvas(width: cardWidth, height: cardHeight)
    var noise = Noise(seed: 0xC0FF_EE01)

    // Brushed silver: a cool vertical gradient, a soft diagonal sheen, and horizontal
    // streaks (random per row, slowly varying along it).
    let knots = 17
    var rowShade = [Double](repeating: 0, count: cardHeight)
    var streaks = [[Double]](repeating: [], count: cardHeight)
    var previous = 0.0
    for y in 0..<cardHeight {
        previous = previous * 0.35 + noise.between(-1, 1) * 0.65
        rowShade[y] = previous
        streaks[y] = (0..<knots).map { _ in noise.between(-1, 1) }
    }
    canvas.fill { x, y in
        let yi = Swift.min(Int(y), cardHeight - 1)
        let t = x / w * Double(knots - 1)
        let k = Swift.min(Int(t), knots - 2), f = t - Double(k)
        let smooth = f * f * (3 - 2 * f)
        let streak = streaks[yi][k] * (1 - smooth) + streaks[yi][k + 1] * smooth
        let diagonal = (x * 0.55 + y - 0.55 * w * 0.5 - h * 0.45) / 150
        let sheen = exp(-diagonal * diagonal) * 0.13
        let second = exp(-pow((x * 0.55 + y - 520) / 60, 2)) * 0.05
        let base = 0.80 - 0.13 * (y / h) + sheen + second
        let v = base + rowShade[yi] * 0.022 + streak * 0.014
        return Colour(v * 0.965, v * 0.985, v * 1.02)
    }

    // Sparkle: sparse bright specks with a faint cross.
    for _ in 0..<420 {
        let x = Int(noise.between(0, w)), y = Int(noise.between(0, h))
        let strength = noise.between(0.06, 0.22)
        canvas.brighten(x: x, y: y, by: strength)
        if strength > 0.17 {
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                canvas.brighten(x: x + dx, y: y + dy, by: strength * 0.35)
            }
        }
    }

    // The rounded border: a dark groove with a light edge under it (a bevel).
    var groove = Coverage(width: cardWidth, height: cardHeight)
    groove.roundedRect(x: 14, y: 14, width: w - 28, height: h - 28, radius: 22, stroke: 3)
    var bevel = Coverage(width: cardWidth, height: cardHeight)
    bevel.roundedRect(x: 16.5, y: 16.5, width: w - 33, height: h - 33, radius: 20, stroke: 1.5)
    canvas.paint(bevel, opacity: 0.55, colour: Colour(1, 1, 1))
    canvas.paint(groove, opacity: 0.75, colour: Colour(hex: 0x6B7079))

    // The outer rim of the card, a little darker.
    var rim = Coverage(width: cardWidth, height: cardHeight)
    rim.roundedRect(x: 0, y: 0, width: w, height: h, radius: 0, stroke: 6)
    canvas.paint(rim, opacity: 0.25, colour: Colour(hex: 0x50555C))

    // "SCRATCH HERE", embossed: a light copy just below, then the dark grey text.
    let text = "SCRATCH HERE", capHeight = 50.0, baseline = h / 2 + capHeight / 2 - 6
    var light = Coverage(width: cardWidth, height: cardHeight)
    StrokeFont.draw(text, into: &light, centreX: w / 2, baseline: baseline + 2.2, capHeight: capHeight, weight: 1.1, gap: 1.45)
    canvas.paint(light, opacity: 0.7, colour: Colour(1, 1, 1))
    var letters = Coverage(width: cardWidth, height: cardHeight)
    StrokeFont.draw(text, into: &letters, centreX: w / 2, baseline: baseline, capHeight: capHeight, weight: 1.1, gap: 1.45)
    canvas.paint(letters, colour: Colour(hex: 0x34373C))

    // A smaller line beneath, between two rules.
    let small = "TO REVEAL YOUR PRIZE", smallCap = 15.0, smallBase = baseline + 46
    var line = Coverage(width: cardWidth, height: cardHeight)
    StrokeFont.draw(small, into: &line, centreX: w / 2, baseline: smallBase, capHeight: smallCap, weight: 1.0, gap: 1.9)
    let half = StrokeFont.width(of: small, capHeight: smallCap, gap: 1.9) / 2
    line.capsule(w / 2 - half - 70, smallBase - smallCap / 2, w / 2 - half - 16, smallBase - smallCap / 2, radius: 1)
    line.capsule(w / 2 + half + 16, smallBase - smallCap / 2, w / 2 + half + 70, smallBase - smallCap / 2, radius: 1)
    canvas.paint(line, colour: Colour(hex: 0x4A4E55))

    // Four little diamonds above the text.
    var diamonds = Coverage(width: cardWidth, height: cardHeight)
    for i in 0..<5 {
        let cx = w / 2 + Double(i - 2) * 26, cy = baseline - capHeight - 34
        diamonds.rotatedRect(cx, cy, 7, 7, angle: .pi / 4)
    }
    canvas.paint(diamonds, colour: Colour(hex: 0x5A5F67))
    return canvas.image
}

/// The sunburst and confetti behind the prize text (and the icon's prize).
func paintPrizeBackground(_ canvas: inout Canvas, centreX: Double, centreY: Double, reach: Double, rays: Int) {
    let inner = Colour(hex: 0xFFE27A), middle = Colour(hex: 0xFFA23A), outer = Colour(hex: 0xE8465B)
    canvas.fill { x, y in
        let dx = x - centreX, dy = y - centreY
        let t = Swift.min((dx * dx + dy * dy).squareRoot() / reach, 1)
        var c = t < 0.5 ? inner.mixed(with: middle, t / 0.5) : middle.mixed(with: outer, (t - 0.5) / 0.5)
        // Rays with soft edges, fading in away from the centre.
        let ray = sin(atan2(dy, dx) * Double(rays) / 2)
        let edge = Swift.min(Swift.max(ray * 3, -1), 1)
        c = c.mixed(with: Colour(1, 0.97, 0.85), Swift.max(edge, 0) * 0.22 * Swift.min(t * 3, 1))
        return c
    }
}

func drawPrize() -> RGBAImage {
    let w = Double(cardWidth), h = Double(cardHeight)
    var canvas = Canvas(width: cardWidth, height: cardHeight)
    paintPrizeBackground(&canvas, centreX: w / 2, centreY: h * 0.46, reach: 420, rays: 28)

    // Confetti, kept off the text.
    var noise = Noise(seed: 0x5EED_2025)
    let palette = [0x2EC4B6, 0x3A86FF, 0xFF4F9A, 0x8338EC, 0x7BD648, 0xFFFFFF, 0xFFD23F].map { Colour(hex: UInt32($0)) }
    var placed = 0
    while placed < 110 {
        let x = noise.between(10, w - 10), y = noise.between(10, h - 10)
        let angle = noise.between(0, .pi), long = noise.between(7, 13), colour = palette[Int(noise.next() % UInt64(palette.count))]
        if x > 110 && x < w - 110 && y > 95 && y < 320 { continue }
        var piece = Coverage(width: cardWidth, height: cardHeight)
        if placed % 4 == 0 {
            piece.circle(x, y, radius: long * 0.33)
        } else {
            piece.rotatedRect(x, y, long, long * 0.42, angle: angle)
        }
        var shadow = Coverage(width: cardWidth, height: cardHeight)
        shadow.rotatedRect(x + 1.5, y + 2, long, long * 0.42, angle: angle)
        if placed % 4 != 0 { canvas.paint(shadow, opacity: 0.15, colour: Colour(0.3, 0.05, 0)) }
        canvas.paint(piece, opacity: 0.95, colour: colour)
        placed += 1
    }

    // The frame: a thin white rounded line.
    var frame = Coverage(width: cardWidth, height: cardHeight)
    frame.roundedRect(x: 14, y: 14, width: w - 28, height: h - 28, radius: 22, stroke: 3)
    canvas.paint(frame, opacity: 0.8, colour: Colour(1, 1, 1))

    // "YOU WIN!": white letters with a dark red outline and a drop shadow.
    let text = "YOU WIN!", capHeight = 86.0, baseline = 218.0, weight = 1.2
    var shadow = Coverage(width: cardWidth, height: cardHeight)
    StrokeFont.draw(text, into: &shadow, centreX: w / 2 + 4, baseline: baseline + 5, capHeight: capHeight, weight: weight + 0.9)
    canvas.paint(shadow, opacity: 0.3, colour: Colour(0.35, 0, 0.05))
    var outline = Coverage(width: cardWidth, height: cardHeight)
    StrokeFont.draw(text, into: &outline, centreX: w / 2, baseline: baseline, capHeight: capHeight, weight: weight + 0.8)
    canvas.paint(outline, colour: Colour(hex: 0xA3122A))
    var letters = Coverage(width: cardWidth, height: cardHeight)
    StrokeFont.draw(text, into: &letters, centreX: w / 2, baseline: baseline, capHeight: capHeight, weight: weight)
    canvas.paint(letters) { _, y in
        // White to a pale gold, top to bottom.
        Colour(1, 1, 1).mixed(with: Colour(hex: 0xFFE9A8), Swift.min(Swift.max((y - (baseline - capHeight)) / capHeight, 0), 1))
    }

    // "FREE COFFEE" on a dark red ribbon.
    let prize = "FREE COFFEE", prizeCap = 30.0, prizeBase = 298.0
    let ribbonWidth = StrokeFont.width(of: prize, capHeight: prizeCap, gap: 1.8) + 64
    var ribbon = Coverage(width: cardWidth, height: cardHeight)
    ribbon.roundedRect(x: w / 2 - ribbonWidth / 2, y: prizeBase - prizeCap - 14, width: ribbonWidth, height: prizeCap + 28, radius: 29)
    var ribbonShadow = Coverage(width: cardWidth, height: cardHeight)
    ribbonShadow.roundedRect(x: w / 2 - ribbonWidth / 2 + 3, y: prizeBase - prizeCap - 10, width: ribbonWidth, height: prizeCap + 28, radius: 29)
    canvas.paint(ribbonShadow, opacity: 0.25, colour: Colour(0.3, 0, 0))
    canvas.paint(ribbon, colour: Colour(hex: 0x8E1330))
    var ribbonEdge = Coverage(width: cardWidth, height: cardHeight)
    ribbonEdge.roundedRect(x: w / 2 - ribbonWidth / 2 + 5, y: prizeBase - prizeCap - 9, width: ribbonWidth - 10, height: prizeCap + 18, radius: 24, stroke: 1.5)
    canvas.paint(ribbonEdge, opacity: 0.6, colour: Colour(hex: 0xFFD27A))
    var prizeLetters = Coverage(width: cardWidth, height: cardHeight)
    StrokeFont.draw(prize, into: &prizeLetters, centreX: w / 2, baseline: prizeBase, capHeight: prizeCap, weight: 1.0, gap: 1.8)
    canvas.paint(prizeLetters, colour: Colour(1, 1, 1))
    return canvas.image
}

func drawIcon() -> RGBAImage {
    let size = 128
    var canvas = Canvas(width: size, height: size)  // transparent
    let cardX = 8.0, cardY = 22.0, cardW = 112.0, cardH = 78.0, radius = 10.0

    // A soft shadow: a few widening, fainter copies.
    for (grow, opacity) in [(4.0, 0.06), (2.5, 0.08), (1.0, 0.12)] {
        var shadow = Coverage(width: size, height: size)
        shadow.roundedRect(x: cardX - grow + 2, y: cardY - grow + 4, width: cardW + 2 * grow, height: cardH + 2 * grow, radius: radius + grow)
        canvas.paint(shadow, opacity: opacity, colour: Colour(0, 0, 0))
    }

    // The prize side: the sunburst, clipped to the card, with "WIN".
    var prizeCanvas = Canvas(width: size, height: size)
    paintPrizeBackground(&prizeCanvas, centreX: 38, centreY: 60, reach: 90, rays: 14)
    var card = Coverage(width: size, height: size)
    card.roundedRect(x: cardX, y: cardY, width: cardW, height: cardH, radius: radius)
    let prizeImage = prizeCanvas
    canvas.paint(card) { x, y in
        let i = (Int(y) * size + Int(x)) * 4
        return Colour(prizeImage.pixels[i], prizeImage.pixels[i + 1], prizeImage.pixels[i + 2])
    }
    var win = Coverage(width: size, height: size)
    StrokeFont.draw("WIN", into: &win, centreX: 40, baseline: 69, capHeight: 19, weight: 1.9, gap: 1.9)
    canvas.paint(win, colour: Colour(hex: 0xA3122A))
    var winInner = Coverage(width: size, height: size)
    StrokeFont.draw("WIN", into: &winInner, centreX: 40, baseline: 69, capHeight: 19, weight: 1.0, gap: 1.9)
    canvas.paint(winInner, colour: Colour(1, 1, 1))

    // The silver cover, scratched away on the left by a zigzag of strokes.
    var cover = Coverage(width: size, height: size)
    cover.roundedRect(x: cardX, y: cardY, width: cardW, height: cardH, radius: radius)
    let path: [(Double, Double)] = [(14, 34), (60, 30), (16, 52), (70, 46), (18, 72), (66, 70), (22, 92), (52, 92)]
    for i in 0..<(path.count - 1) {
        cover.capsule(path[i].0, path[i].1, path[i + 1].0, path[i + 1].1, radius: 9, erase: true)
    }
    canvas.paint(cover) { x, y in
        let v = 0.84 - 0.2 * (y - cardY) / cardH + 0.1 * exp(-pow((x * 0.6 + y - 120) / 22, 2))
        return Colour(v * 0.96, v * 0.98, v * 1.03)
    }
    // A thin edge around the scratched area and the card.
    var rim = Coverage(width: size, height: size)
    rim.roundedRect(x: cardX, y: cardY, width: cardW, height: cardH, radius: radius, stroke: 1.6)
    canvas.paint(rim, opacity: 0.55, colour: Colour(hex: 0x4A4E55))

    // A gold coin, the scratching tool.
    let coinX = 100.0, coinY = 96.0
    var coin = Coverage(width: size, height: size)
    coin.circle(coinX, coinY, radius: 17)
    var coinShadow = Coverage(width: size, height: size)
    coinShadow.circle(coinX + 1.5, coinY + 2.5, radius: 17)
    canvas.paint(coinShadow, opacity: 0.3, colour: Colour(0, 0, 0))
    canvas.paint(coin) { x, y in
        let t = Swift.min(Swift.max(((x - coinX) + (y - coinY)) / 34 + 0.5, 0), 1)
        return Colour(hex: 0xFFE07A).mixed(with: Colour(hex: 0xD9931C), t)
    }
    var coinRing = Coverage(width: size, height: size)
    coinRing.roundedRect(x: coinX - 12.5, y: coinY - 12.5, width: 25, height: 25, radius: 12.5, stroke: 1.8)
    canvas.paint(coinRing, opacity: 0.8, colour: Colour(hex: 0xB0700E))
    var star = Coverage(width: size, height: size)
    StrokeFont.draw("*", into: &star, centreX: coinX, baseline: coinY + 6.5, capHeight: 13, weight: 1.5)
    canvas.paint(star, opacity: 0.85, colour: Colour(hex: 0xB0700E))
    return canvas.image
}

func drawSpecimen() -> RGBAImage {
    let lines = ["ABCDEFGHIJKLM", "NOPQRSTUVWXYZ", "0123456789", "!?.,-:'+* YOU WIN!"]
    var canvas = Canvas(width: 900, height: 400)
    canvas.fill { _, _ in Colour(1, 1, 1) }
    var mask = Coverage(width: 900, height: 400)
    for (n, line) in lines.enumerated() {
        StrokeFont.draw(line, into: &mask, centreX: 450, baseline: 80 + Double(n) * 90, capHeight: 54)
    }
    canvas.paint(mask, colour: Colour(0.1, 0.1, 0.1))
    return canvas.image
}

func timeScaling() {
    var noise = Noise(seed: 42)
    let size = PixelSize(width: 3840, height: 2160)
    var bytes = [UInt8](repeating: 0, count: size.pixelCount * 4)
    for i in 0..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: noise.next() >> 40) }
    let big = RGBAImage(size: size, bytes: bytes)!
    for target in [PixelSize(width: 1920, height: 1080), PixelSize(width: 1366, height: 768), PixelSize(width: 7680, height: 4320)] {
        let clock = ContinuousClock()
        var out: RGBAImage?
        let elapsed = clock.measure { out = big.scaledToFill(target) }
        print("scaledToFill \(size) -> \(target): \(elapsed) (\(out!.size))")
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("assetmaker: \(message)\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "--time-scaling":
        timeScaling()
    case "--icons":
        guard arguments.count == 2 else { fail("usage: assetmaker --icons FOLDER") }
        try Icon.write(into: arguments[1])
    case "--specimen":
        guard arguments.count == 2 else { fail("usage: assetmaker --specimen FILE.png") }
        try PNGFile.write(drawSpecimen(), to: arguments[1])
    case let folder? where arguments.count == 1 && !folder.hasPrefix("-"):
        for (name, image) in [("cover.png", drawCover()), ("prize.png", drawPrize()), ("icon.png", drawIcon())] {
            let path = folder + "/" + name
            try PNGFile.write(image, to: path)
            print("wrote \(path) (\(image.size))")
        }
    default:
        fail("usage: assetmaker FOLDER | --icons FOLDER | --specimen FILE.png | --time-scaling")
    }
} catch {
    fail("\(error)")
}
