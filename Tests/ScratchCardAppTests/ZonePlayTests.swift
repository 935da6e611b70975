import Testing
import CardRules
@testable import scratchcard
import ScratchCore

/// A pick-3-of-9 ticket played on a canvas, pixels read back from the framebuffer.
struct ZonePlayTests {
    static let size = PixelSize(width: 640, height: 400)
    static let coverColour = RGBA(r: 180, g: 180, b: 180)
    static let symbolColours = [RGBA(r: 255, g: 0, b: 0), RGBA(r: 0, g: 255, b: 0), RGBA(r: 0, g: 0, b: 255)]
    static let decoyColour = RGBA(r: 60, g: 60, b: 60)

    static func card() -> ZoneCard {
        var zones: [ZoneOutline] = []
        for r in 0..<3 { for c in 0..<3 { zones.append(ZoneOutline(x: 40 + Double(c) * 190, y: 40 + Double(r) * 115, width: 170, height: 95)) } }
        let symbols = (0..<3).map { ZoneSymbol.text("s\($0)", colour: nil) }
        let decoys = (0..<6).map { ZoneSymbol.text("d\($0)", colour: nil) }
        return ZoneCard(zones: zones, pick: 3, symbols: symbols, decoys: decoys)
    }

    static func flat(_ shows: ZoneTicket.Shows, _ size: PixelSize) -> RGBAImage {
        switch shows {
        case .symbol(let i): RGBAImage(size: size, filledWith: symbolColours[i])
        case .decoy: RGBAImage(size: size, filledWith: decoyColour)
        }
    }

    func centre(_ zone: Int) -> Point {
        let r = zone / 3, c = zone % 3
        return Point(x: 40 + Double(c) * 190 + 85, y: 40 + Double(r) * 115 + 47)
    }

    /// Scrubs most of a zone: a zig-zag over its middle.
    func scrub(_ canvas: ScratchCanvas, _ zone: Int) {
        let p = centre(zone)
        canvas.penDown(at: Point(x: p.x - 80, y: p.y - 40))
        var y = p.y - 40
        while y <= p.y + 40 {
            canvas.penMove(to: Point(x: p.x + 80, y: y))
            canvas.penMove(to: Point(x: p.x - 80, y: y + 10))
            y += 20
        }
        canvas.penUp()
    }

    @Test("strokes outside change nothing; three zones in any order show the deal's symbols in order; a fourth does not scratch; the rest open as decoys")
    func pickThreeOfNine() throws {
        let cover = RGBAImage(size: Self.size, filledWith: Self.coverColour)
        let canvas = try ScratchCanvas(cover: cover, prize: cover, layout: .bgrx, brush: Brush(radius: 12))
        let play = ZonePlay(card: Self.card(), canvas: canvas, revealAt: 0.6, drawShows: Self.flat)
        let framebuffer = Framebuffer(size: Self.size, layout: .bgrx)
        canvas.composite(PixelRect(size: Self.size), into: framebuffer)
        var events: [ZoneTicket.Event] = []

        // Between the zones and around them: nothing.
        canvas.brush = try Brush(radius: 6)
        canvas.penDown(at: Point(x: 5, y: 20)); canvas.penMove(to: Point(x: 630, y: 20))
        canvas.penMove(to: Point(x: 220, y: 20)); canvas.penMove(to: Point(x: 220, y: 395))
        canvas.penUp()
        canvas.brush = try Brush(radius: 12)
        events += play.afterStroke(now: 0)
        #expect(canvas.compositeChanges(into: framebuffer).pixels == 0)
        #expect(events.isEmpty)

        for (n, zone) in [7, 2, 5].enumerated() {
            canvas.penDown(at: centre(zone))
            events += play.afterStroke(now: 0)
            canvas.compositeChanges(into: framebuffer)
            #expect(framebuffer[Int(centre(zone).x), Int(centre(zone).y)] == Self.symbolColours[n], "zone \(zone)")
            canvas.penUp()
        }
        #expect(events == [.zoneStart(zone: 7), .zoneStart(zone: 2), .zoneStart(zone: 5)])
        // A fourth zone does not scratch.
        canvas.penDown(at: centre(0)); canvas.penMove(to: Point(x: centre(0).x + 40, y: centre(0).y)); canvas.penUp()
        events += play.afterStroke(now: 0)
        #expect(canvas.compositeChanges(into: framebuffer).pixels == 0)
        #expect(framebuffer[Int(centre(0).x), Int(centre(0).y)] == Self.coverColour)

        events.removeAll()
        for zone in [2, 7, 5] {
            scrub(canvas, zone)
            events += play.afterStroke(now: 1)
        }
        var expected: [ZoneTicket.Event] = [.zoneRevealed(zone: 2, shows: .symbol(1)), .zoneRevealed(zone: 7, shows: .symbol(0)),
                                            .zoneRevealed(zone: 5, shows: .symbol(2))]
        for (d, zone) in [0, 1, 3, 4, 6, 8].enumerated() { expected.append(.zoneRevealed(zone: zone, shows: .decoy(d))) }
        expected.append(.cardRevealed)
        #expect(events == expected)
        // The fades run out; every zone shows what it was given, edge to edge.
        #expect(play.isAnimating)
        _ = play.animate(into: framebuffer, now: 1.15)
        #expect(framebuffer[Int(centre(4).x), Int(centre(4).y)] != Self.coverColour)
        _ = play.animate(into: framebuffer, now: 2)
        canvas.compositeChanges(into: framebuffer)
        #expect(!play.isAnimating)
        for zone in 0..<9 {
            let p = centre(zone)
            let want = [7: Self.symbolColours[0], 2: Self.symbolColours[1], 5: Self.symbolColours[2]][zone] ?? Self.decoyColour
            #expect(framebuffer[Int(p.x) - 80, Int(p.y) - 45] == want, "zone \(zone)")
        }
        #expect(framebuffer[20, 20] == Self.coverColour)
    }

    @Test("a resumed ticket shows its picks with their symbols; the next pick shows the next symbol")
    func resumeAfterTwoPicks() throws {
        let cover = RGBAImage(size: Self.size, filledWith: Self.coverColour)
        let first = try ScratchCanvas(cover: cover, prize: cover, layout: .bgrx, brush: Brush(radius: 12))
        let before = ZonePlay(card: Self.card(), canvas: first, revealAt: 0.6, drawShows: Self.flat)
        for zone in [4, 0] { first.penDown(at: centre(zone)); first.penUp(); _ = before.afterStroke(now: 0) }
        // The store keeps the order and the mask (its strokes); a new canvas replays them.
        let again = try ScratchCanvas(cover: cover, prize: cover, layout: .bgrx, brush: Brush(radius: 12), keeping: first.mask)
        let after = ZonePlay(card: Self.card(), canvas: again, revealAt: 0.6, started: before.ticket.started, drawShows: Self.flat)
        let framebuffer = Framebuffer(size: Self.size, layout: .bgrx)
        again.composite(PixelRect(size: Self.size), into: framebuffer)
        #expect(framebuffer[Int(centre(4).x), Int(centre(4).y)] == Self.symbolColours[0])
        #expect(framebuffer[Int(centre(0).x), Int(centre(0).y)] == Self.symbolColours[1])
        again.penDown(at: centre(8)); again.penUp()
        #expect(after.afterStroke(now: 0) == [.zoneStart(zone: 8)])
        again.compositeChanges(into: framebuffer)
        #expect(framebuffer[Int(centre(8).x), Int(centre(8).y)] == Self.symbolColours[2])
    }

    @Test("a key opens a zone whole as a pick; three picks reveal the card")
    func keyboardPicks() throws {
        let cover = RGBAImage(size: Self.size, filledWith: Self.coverColour)
        let canvas = try ScratchCanvas(cover: cover, prize: cover, layout: .bgrx, brush: Brush(radius: 12))
        let play = ZonePlay(card: Self.card(), canvas: canvas, revealAt: 0.6, drawShows: Self.flat)
        #expect(play.open(3, now: 0) == [.zoneStart(zone: 3), .zoneRevealed(zone: 3, shows: .symbol(0))])
        #expect(play.open(3, now: 0) == [])
        _ = play.open(1, now: 0)
        let last = play.open(6, now: 0)
        #expect(last.first == .zoneStart(zone: 6) && last.last == .cardRevealed && last.count == 2 + 6 + 1)
        #expect(play.ticket.isRevealed)
    }
}
