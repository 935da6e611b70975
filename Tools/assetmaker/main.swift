// assetmaker: draws the icon and writes it as a PNG. (The built-in card is no longer
// a file: the program draws it at the window's size, in Sources/CardArt.)
//
//     swift run assetmaker Assets            icon.png into Assets/
//     swift run assetmaker --icons Assets/icons   the icon at each size, and as SVG
//     swift run -c release assetmaker --time-scaling   times a 3840x2160 -> 1920x1080 shrink
//
// Everything is deterministic (fixed seeds), so rerunning gives the same bytes.
@preconcurrency import Glibc
import Foundation
import ScratchCore
import ScratchImage

/// The sunburst behind the icon's prize.
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
    case let folder? where arguments.count == 1 && !folder.hasPrefix("-"):
        for (name, image) in [("icon.png", drawIcon())] {
            let path = folder + "/" + name
            try PNGFile.write(image, to: path)
            print("wrote \(path) (\(image.size))")
        }
    default:
        fail("usage: assetmaker FOLDER | --icons FOLDER | --time-scaling")
    }
} catch {
    fail("\(error)")
}
