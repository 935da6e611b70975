import CardRules
import Testing
import CardArt
import ScratchCore

/// Text cards and the cover's prompt, laid out by Pango: whatever the words, the script
/// and the size, all of the drawing (glyphs, outline, shadow) stays inside the card's
/// text area. Measured with Pango's own extents of the layout as drawn.
@Suite struct TextLayoutTests {
    /// Repeated to make texts of any length; each mixes words and spaces as real ones do.
    static let scripts: [(name: String, sample: String)] = [
        ("English", "Free coffee for everyone today "),
        ("accents", "Café crème brûlée à volonté, ÉTÉ "),
        ("Chinese", "恭喜中奖免费咖啡一杯请到柜台领取"),
        ("Arabic", "شاي مجاني للجميع اليوم "),
        ("mixed", "Free 咖啡 شاي café 123 "),
        ("one long word", "Supercalifragilisticexpialidocious"),
    ]

    static let sizes = [PixelSize(width: 640, height: 400), PixelSize(width: 1280, height: 800),
                        PixelSize(width: 3840, height: 2160), PixelSize(width: 400, height: 640),
                        PixelSize(width: 320, height: 200)]

    /// The first `count` characters of the sample, repeated as needed.
    static func text(_ sample: String, count: Int) -> String {
        String(String(repeating: sample, count: count / sample.count + 1).prefix(count))
    }

    /// Every placed text inside the card's text area: the drawing, the ink, the logical box.
    func expectInside(_ placed: [CardArt.PlacedText], size: PixelSize, _ what: @autoclosure () -> String) {
        let card = Box(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
        for text in placed {
            #expect(card.contains(text.area), "\(what()): the text area lies on the card")
            #expect(text.area.contains(text.drawn), "\(what()): \(text.role) drawn \(text.drawn) outside \(text.area)")
            #expect(text.area.contains(text.ink), "\(what()): \(text.role) ink \(text.ink) outside \(text.area)")
            #expect(text.area.contains(text.logical), "\(what()): \(text.role) logical \(text.logical) outside \(text.area)")
            #expect(text.pixelSize > 0)
        }
    }

    @Test("a title of 1 to 200 characters, in every script, stays inside the card at 640x400 and 3840x2160",
          arguments: scripts.map(\.name))
    func everyLength(script: String) {
        let sample = Self.scripts.first { $0.name == script }!.sample
        for size in [Self.sizes[0], Self.sizes[2]] {
            for count in 1...CardText.maximumCharacters {
                let words = Self.text(sample, count: count)
                guard CardText.problem(with: words) == nil else { continue }     // a lone space
                let placed = CardArt.prizeLayout(size: size, text: CardText(title: words))
                #expect(placed.count == 1, "\(script) \(count) at \(size): the title is drawn")
                expectInside(placed, size: size, "\(script), \(count) characters, at \(size)")
            }
        }
    }

    @Test("title and subtitle together, long and short, at every size: inside the card, not over each other",
          arguments: sizes)
    func titleAndSubtitle(size: PixelSize) {
        for (name, sample) in Self.scripts {
            for count in [1, 2, 5, 11, 24, 50, 99, 150, 200] {
                for subtitleCount in [3, 24, 200] {
                    let text = CardText(title: Self.text(sample, count: count), subtitle: Self.text(sample, count: subtitleCount))
                    guard CardText.problem(with: text.title) == nil else { continue }
                    let placed = CardArt.prizeLayout(size: size, text: text)
                    #expect(placed.map(\.role) == ["title", "subtitle"], "\(name) \(count)+\(subtitleCount) at \(size)")
                    expectInside(placed, size: size, "\(name) \(count)+\(subtitleCount) at \(size)")
                    if placed.count == 2 {
                        #expect(placed[0].drawn.maxY <= placed[1].drawn.y, "\(name) \(count)+\(subtitleCount) at \(size): the title above the subtitle")
                    }
                }
            }
        }
    }

    @Test("the cover's prompt, built-in or of any length and script, stays inside the card", arguments: sizes)
    func coverPrompt(size: PixelSize) {
        expectInside(CardArt.coverLayout(size: size), size: size, "SCRATCH HERE at \(size)")
        #expect(CardArt.coverLayout(size: size).map(\.role) == ["prompt", "subline"])
        for (name, sample) in Self.scripts {
            for count in [1, 4, 12, 40, 120, 200] {
                let prompt = Self.text(sample, count: count)
                guard CardText.problem(with: prompt) == nil else { continue }
                let placed = CardArt.coverLayout(size: size, prompt: prompt)
                #expect(placed.map(\.role) == ["prompt"], "\(name) \(count) at \(size)")
                expectInside(placed, size: size, "cover-text \(name) \(count) at \(size)")
            }
        }
    }

    @Test("short words are set big, long ones smaller: the text is shrunk only as far as it must")
    func shrinksOnlyAsNeeded() throws {
        let size = PixelSize(width: 1280, height: 800)
        let short = try #require(CardArt.prizeLayout(size: size, text: CardText(title: "Win")).first)
        let long = try #require(CardArt.prizeLayout(size: size, text: CardText(title: Self.text("Free coffee for everyone today ", count: 200))).first)
        #expect(short.pixelSize == 240, "the largest size, 120 pt at 2 px a point")
        #expect(long.pixelSize < short.pixelSize / 3 && long.lines > 3, "\(long.pixelSize) px, \(long.lines) lines")
        // Wrapped lines fill the area's width or height: not shrunk far below what fits.
        #expect(long.drawn.width > long.area.width * 0.85 || long.drawn.height > long.area.height * 0.85)
    }

    @Test("characters no installed font has are counted, for the warning; every script the tests use has a font")
    func unknownGlyphs() {
        #expect(CardArt.unknownGlyphs(in: CardText(title: "Free coffee", subtitle: "恭喜中奖 شاي مجاني Café")) == 0)
        // Plane 16's private use area: no font on a Debian system draws it.
        #expect(CardArt.unknownGlyphs(in: CardText(title: "A\u{10FFFD}B", subtitle: "\u{10FFFC}")) == 2)
        #expect(CardArt.unknownGlyphs(inPrompt: "刮开这里") == 0)
    }
}
