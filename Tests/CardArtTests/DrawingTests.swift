import CardRules
import Testing
import CardArt
import ScratchCore
import ScratchImage

/// The built-in card drawn for its size: its own detail at every size (not an
/// enlargement), the whole frame at any aspect, the same bytes every time.
@Suite struct DrawingTests {
    /// The mean absolute difference per channel between two images of one size.
    static func difference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
        precondition(a.size == b.size)
        var sum = 0
        a.bytes.withUnsafeBufferPointer { x in
            b.bytes.withUnsafeBufferPointer { y in
                for i in 0..<x.count where i % 4 != 3 { sum += abs(Int(x[i]) - Int(y[i])) }
            }
        }
        return Double(sum) / Double(a.size.pixelCount * 3)
    }

    /// What shrinking to half and enlarging back loses: little for a picture with no
    /// detail finer than two pixels (an enlargement), much for one drawn at its size.
    static func halvingLoss(_ image: RGBAImage) -> Double {
        let half = image.scaledToFill(PixelSize(width: image.width / 2, height: image.height / 2))
        return difference(image, half.scaledToFill(image.size))
    }

    @Test("at 1280x800 and 3840x2160 the cover and prize have their own detail: not a smaller card enlarged",
          arguments: [PixelSize(width: 1280, height: 800), PixelSize(width: 3840, height: 2160)])
    func notAnEnlargement(size: PixelSize) {
        // Against the 640x400 card enlarged, and against a card drawn at half the size
        // and enlarged twice: drawn for its size, the card has detail of its own pixels,
        // which halving loses; an enlargement has none to lose but what the filters blur.
        // An edge enlarged k times is k times as wide, so it can lose at most about k
        // times less: the bar is 1.6x for a 2x enlargement, 3x for 640x400 at 4K (6x).
        let smaller = [CardArt.designSize, PixelSize(width: size.width / 2, height: size.height / 2)]
        for (name, draw) in [("cover", { (s: PixelSize) in CardArt.cover(size: s) }),
                             ("prize", { (s: PixelSize) in CardArt.prize(size: s) })] {
            let drawnLoss = Self.halvingLoss(draw(size))
            for small in Set(smaller) {
                let enlargedLoss = Self.halvingLoss(draw(small).scaledToFill(size))
                print("\(name) at \(size): halving loses \(drawnLoss) drawn, \(enlargedLoss) enlarged from \(small)")
                let factor = Double(size.width) / Double(small.width)
                #expect(drawnLoss > (factor >= 4 ? 3 : 1.6) * enlargedLoss,
                        "\(name) at \(size): halving loses \(drawnLoss) drawn, \(enlargedLoss) when enlarged from \(small)")
            }
        }
    }

    /// The rows (or columns) where the frame's line crosses a line of pixels through the
    /// middle: the darkest (cover: a grey groove) or brightest (prize: a white line) pixel
    /// within `band` of each end.
    static func frameCrossings(_ values: [Double], band: Int, darkest: Bool) -> (Int, Int) {
        func pick(_ range: Range<Int>) -> Int {
            range.max { darkest ? values[$0] > values[$1] : values[$0] < values[$1] }!
        }
        return (pick(0..<band), pick((values.count - band)..<values.count))
    }

    static func luminance(_ p: RGBA) -> Double { 0.2126 * Double(p.r) + 0.7152 * Double(p.g) + 0.0722 * Double(p.b) }

    @Test("a 16:9 card shows its whole frame: the line runs at the same inset on all four sides",
          arguments: [PixelSize(width: 1920, height: 1080), PixelSize(width: 3840, height: 2160), PixelSize(width: 640, height: 400)])
    func wholeFrame(size: PixelSize) {
        let u = CardArt.unit(for: size), inset = 15.5 * u, band = Int(30 * u)
        for (name, image, darkest) in [("cover", CardArt.cover(size: size), true), ("prize", CardArt.prize(size: size), false)] {
            // Columns at a third and two thirds (clear of the prompt's letters), rows likewise.
            for x in [size.width / 3, size.width * 2 / 3] {
                let column = (0..<size.height).map { Self.luminance(image[x, $0]) }
                let (top, bottom) = Self.frameCrossings(column, band: band, darkest: darkest)
                #expect(abs(Double(top) + 0.5 - inset) <= 2.5 * u, "\(name) at \(size): top of the frame at row \(top), not \(inset)")
                #expect(abs(Double(size.height - 1 - bottom) + 0.5 - inset) <= 2.5 * u, "\(name) at \(size): bottom of the frame at row \(bottom)")
            }
            for y in [size.height / 3, size.height * 2 / 3] {
                let row = (0..<size.width).map { Self.luminance(image[$0, y]) }
                let (left, right) = Self.frameCrossings(row, band: band, darkest: darkest)
                #expect(abs(Double(left) + 0.5 - inset) <= 2.5 * u, "\(name) at \(size): left of the frame at column \(left)")
                #expect(abs(Double(size.width - 1 - right) + 0.5 - inset) <= 2.5 * u, "\(name) at \(size): right of the frame at column \(right)")
            }
        }
    }

    @Test("the same size gives the same bytes (fixed seeds); another size, another drawing")
    func deterministic() {
        let size = PixelSize(width: 800, height: 450)
        #expect(CardArt.cover(size: size) == CardArt.cover(size: size))
        #expect(CardArt.prize(size: size) == CardArt.prize(size: size))
        #expect(CardArt.cover(size: size, prompt: "刮开这里") != CardArt.cover(size: size))
        #expect(CardArt.cover(size: size).bytes.indices.contains(4 * 800 * 450 - 1))
    }

    @Test("a text card's colours: the background colour in place of the sunburst, the title in its colour")
    func textCardColours() {
        let size = PixelSize(width: 640, height: 400)
        let green = RGBA(r: 0x2E, g: 0x7D, b: 0x32), yellow = RGBA(r: 0xFF, g: 0xEB, b: 0x3B)
        let card = CardArt.prize(size: size, text: CardText(title: "Free tea", colour: yellow, background: green))
        // Beside the title's middle: the middle of the background's gradient, green.
        let beside = card[30, 200]
        #expect(beside.g > beside.r && beside.g > beside.b, "\(beside)")
        // Somewhere in the title: the title's own yellow, exactly.
        let title = CardArt.prizeLayout(size: size, text: CardText(title: "Free tea")).first!.ink
        var yellowPixels = 0
        for y in Int(title.y)..<Int(title.maxY) { for x in Int(title.x)..<Int(title.maxX) where card[x, y] == yellow { yellowPixels += 1 } }
        #expect(yellowPixels > 1000, "\(yellowPixels) pixels of the title's colour")
    }

    @Test("a text card over a prize image: the image shows around the words")
    func textOverImage() {
        let size = PixelSize(width: 640, height: 400), blue = RGBA(r: 20, g: 40, b: 200)
        let card = CardArt.prize(size: size, text: CardText(title: "Jackpot"), background: RGBAImage(size: size, filledWith: blue))
        #expect(card[5, 5] == blue && card[600, 380] == blue)
        #expect(card[320, 200] != blue, "the words are drawn over it")
        // A translucent image keeps its alpha through cairo's premultiplied pixels.
        let glass = RGBA(r: 200, g: 100, b: 50, a: 128)
        let over = CardArt.prize(size: size, text: CardText(title: "Jackpot"), background: RGBAImage(size: size, filledWith: glass))
        let corner = over[5, 5]
        #expect(corner.a == 128 && abs(Int(corner.r) - 200) <= 1 && abs(Int(corner.g) - 100) <= 1 && abs(Int(corner.b) - 50) <= 1, "\(corner)")
    }

    @Test("odd sizes draw without trouble: a pixel, a sliver, a tall strip; text that fits nowhere is left out")
    func oddSizes() {
        for size in [PixelSize(width: 1, height: 1), PixelSize(width: 3, height: 2), PixelSize(width: 4000, height: 2),
                     PixelSize(width: 2, height: 3000), PixelSize(width: 100, height: 60)] {
            #expect(CardArt.cover(size: size).size == size)
            #expect(CardArt.prize(size: size, text: CardText(title: "Free coffee", subtitle: "Now")).size == size)
            for placed in CardArt.prizeLayout(size: size, text: CardText(title: "Free coffee", subtitle: "Now")) + CardArt.coverLayout(size: size) {
                #expect(placed.area.contains(placed.drawn), "\(size): \(placed.role) \(placed.drawn) in \(placed.area)")
            }
        }
    }
}
