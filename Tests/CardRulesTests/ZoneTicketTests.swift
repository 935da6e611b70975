import Foundation
import Testing
@testable import CardRules
import EngineTestSupport
import ScratchCore

/// The rules of a zone ticket: symbols by order of first touch, locks, decoys, events.
struct ZoneTicketTests {
    @Test("pick 3 of 9: the i-th zone started shows symbols[i], in any order; a fourth is locked")
    func pickThree() {
        var ticket = ZoneTicket(zoneCount: 9, pick: 3)
        #expect(ticket.start(8) == [.zoneStart(zone: 8)])
        #expect(ticket.start(8) == [])                       // touched again: nothing new
        #expect(ticket.start(0) == [.zoneStart(zone: 0)])
        #expect(ticket.isScratchable(4) && !ticket.isLocked(4))
        #expect(ticket.start(4) == [.zoneStart(zone: 4)])
        #expect(ticket.shows(8) == .symbol(0) && ticket.shows(0) == .symbol(1) && ticket.shows(4) == .symbol(2))
        // Every pick is started: the others are locked and do not start.
        #expect(ticket.isLocked(5) && !ticket.isScratchable(5))
        #expect(ticket.start(5) == [])
        #expect(ticket.shows(5) == nil)
        #expect(ticket.isScratchable(0))
        // Revealed one by one; the third reveal opens the six others as decoys, in zone order.
        #expect(ticket.reveal(0) == [.zoneRevealed(zone: 0, shows: .symbol(1))])
        #expect(ticket.reveal(5) == [])                       // a locked zone never reveals by itself
        #expect(ticket.reveal(8) == [.zoneRevealed(zone: 8, shows: .symbol(0))])
        #expect(!ticket.isRevealed)
        let last = ticket.reveal(4)
        #expect(last == [.zoneRevealed(zone: 4, shows: .symbol(2)),
                         .zoneRevealed(zone: 1, shows: .decoy(0)), .zoneRevealed(zone: 2, shows: .decoy(1)),
                         .zoneRevealed(zone: 3, shows: .decoy(2)), .zoneRevealed(zone: 5, shows: .decoy(3)),
                         .zoneRevealed(zone: 6, shows: .decoy(4)), .zoneRevealed(zone: 7, shows: .decoy(5)),
                         .cardRevealed])
        #expect(ticket.isRevealed)
        #expect(ticket.reveal(4) == [] && ticket.start(2) == [])
    }

    @Test("without pick, zone i shows symbols[i], and the card is revealed when every zone is")
    func everyZone() {
        var ticket = ZoneTicket(zoneCount: 3, pick: nil)
        #expect(ticket.start(2) == [.zoneStart(zone: 2)])
        #expect(ticket.shows(2) == .symbol(2))
        #expect(ticket.openWhole(0) == [.zoneStart(zone: 0), .zoneRevealed(zone: 0, shows: .symbol(0))])
        #expect(ticket.reveal(2) == [.zoneRevealed(zone: 2, shows: .symbol(2))])
        #expect(ticket.openWhole(1) == [.zoneStart(zone: 1), .zoneRevealed(zone: 1, shows: .symbol(1)), .cardRevealed])
    }

    @Test("the outcome log's record carries a zone card's picks with their symbols, and reads them back")
    func outcomePicks() throws {
        var record = OutcomeRecord(shownAt: 0, cardID: "t", prize: "t", outcome: .revealed, how: .threshold, fraction: 0.5,
                                   revealMilliseconds: 10, durationMilliseconds: 20)
        record.picks = [ZonePick(zone: 7, symbol: "☕"), ZonePick(zone: 2, symbol: "☕"), ZonePick(zone: 5, symbol: "lemon.png")]
        #expect(record.json.hasSuffix(#""duration_ms":20,"picks":[{"zone":7,"symbol":"☕"},{"zone":2,"symbol":"☕"},{"zone":5,"symbol":"lemon.png"}]}"#))
        #expect(OutcomeRecord(line: Substring(record.json))?.picks == record.picks)
    }

    @Test("a resumed ticket keeps its picks and their symbols, and the next pick gets the next symbol")
    func resume() {
        var before = ZoneTicket(zoneCount: 9, pick: 3)
        _ = before.start(6); _ = before.start(2); _ = before.reveal(6)
        var after = ZoneTicket(resuming: before.started, open: [6], zoneCount: 9, pick: 3)
        #expect(after == before)
        #expect(after.start(3) == [.zoneStart(zone: 3)])
        #expect(after.shows(3) == .symbol(2))
    }
}

/// A zone card's deck keys and the bad decks the issue names, each an error naming the entry.
struct ZoneCardParseTests {
    func parse(_ json: String, folder: String = "/nonexistent") throws(DeckError) -> ZoneCard? {
        let fail = { (message: String) in DeckError(path: "deck.json", message: "cards[0] (\"t\"): \(message)") }
        guard case .object(let fields) = try JSONValue.parse(Data(json.utf8), limit: 1 << 20, what: "a deck", fail: fail) else {
            throw fail("not an object")
        }
        return try ZoneCard.parse(fields, files: FolderFiles(folder: folder), fail: fail)
    }

    func message(_ json: String, folder: String = "/nonexistent") -> String? {
        do { _ = try parse(json, folder: folder); return nil } catch { return error.description }
    }

    let texts = (0..<9).map { "{\"text\": \"s\($0)\"}" }.joined(separator: ",")

    @Test("a grid makes zones row by row with gaps; symbols as text or images")
    func grid() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("cup.png")
        let card = try #require(try parse("""
            {"grid": {"x": 40, "y": 100, "w": 560, "h": 280, "columns": 3, "rows": 3, "gap": 10}, "pick": 3,
             "symbols": ["cup.png", {"text": "☕", "color": "#FF0000"}, {"text": "Win"}],
             "decoys": [\(texts)]}
            """, folder: tmp.path))
        #expect(card.zones.count == 9 && card.pick == 3)
        #expect(card.zones[1].x == 40 + 180 + 10 && abs(card.zones[3].y - (100 + 260.0 / 3 + 10)) < 1e-9)
        #expect(abs(card.zones[8].x + card.zones[8].width - 600) < 1e-9)
        #expect(card.symbols == [.image(tmp.path + "/cup.png"), .text("☕", colour: RGBA(r: 255, g: 0, b: 0)), .text("Win", colour: nil)])
        #expect(try parse("{\"text\": \"x\"}") == nil)
        let listed = try #require(try parse("""
            {"zones": [{"x": 10, "y": 10, "w": 100, "h": 50, "shape": "ellipse"}, {"x": 120, "y": 10, "w": 100, "h": 50}],
             "symbols": [{"text": "a"}, {"text": "b"}]}
            """))
        #expect(listed.zones[0].shape == .ellipse && listed.pick == nil)
        let outlines = listed.outlines(in: PixelSize(width: 1280, height: 800))
        #expect(outlines[1] == ZoneOutline(x: 240, y: 20, width: 200, height: 100))
    }

    @Test("bad zone cards: each a clear error naming the deck entry", arguments: [
        (#"{"zones": [{"x": 10, "y": 10, "w": 100, "h": 50}, {"x": 60, "y": 30, "w": 100, "h": 50}], "symbols": [{"text": "a"}, {"text": "b"}]}"#, "zones[1] overlaps zones[0]"),
        (#"{"grid": {"x": 0, "y": 0, "w": 300, "h": 300, "columns": 2, "rows": 2}, "pick": 5, "symbols": [{"text": "a"}]}"#, "pick is 5, more than the card's 4 zones"),
        (#"{"grid": {"x": 0, "y": 0, "w": 300, "h": 300, "columns": 2, "rows": 2}, "symbols": [{"text": "a"}]}"#, "symbols has 1, fewer than the 4 zones"),
        (#"{"grid": {"x": 0, "y": 0, "w": 300, "h": 300, "columns": 2, "rows": 2}, "pick": 2, "symbols": [{"text": "a"}], "decoys": [{"text": "d"}, {"text": "d"}]}"#, "symbols has 1, fewer than pick (2)"),
        (#"{"grid": {"x": 0, "y": 0, "w": 300, "h": 300, "columns": 2, "rows": 2}, "pick": 2, "symbols": [{"text": "a"}, {"text": "b"}], "decoys": [{"text": "d"}]}"#, "decoys has 1, fewer than the 2 zones left over after pick"),
        (#"{"grid": {"x": 0, "y": 0, "w": 300, "h": 300, "columns": 1, "rows": 1}, "symbols": ["missing.png"]}"#, "symbols[0]: symbol image /nonexistent/missing.png does not exist"),
        (#"{"grid": {"x": 0, "y": 0, "w": 300, "h": 300, "columns": 1, "rows": 1}, "pick": 1, "symbols": [{"text": "a"}], "decoys": ["gone.png"]}"#, "decoys[0]: symbol image /nonexistent/gone.png does not exist"),
        (#"{"pick": 3, "symbols": [{"text": "a"}]}"#, "pick belongs to a zone card"),
        (#"{"zones": [], "symbols": []}"#, "zones must be a non-empty array"),
        (#"{"grid": {"x": 0, "y": 0, "w": 30, "h": 30, "columns": 4, "rows": 1, "gap": 20}, "symbols": []}"#, "grid leaves no room"),
        (#"{"grid": {"x": 0, "y": 0, "w": 300, "h": 300, "columns": 1, "rows": 1}, "pick": 0, "symbols": [{"text": "a"}]}"#, "pick must be a whole number from 1"),
        (#"{"zones": [{"x": 0, "y": 0, "w": 10, "h": 10, "shape": "star"}], "symbols": [{"text": "a"}]}"#, "zones[0].shape must be"),
    ])
    func badCards(json: String, expected: String) {
        let text = message(json)
        #expect(text?.hasPrefix("deck.json: cards[0] (\"t\"): ") == true, "\(text ?? "no error")")
        #expect(text?.contains(expected) == true, "\(text ?? "no error")")
    }

    @Test("zones lie on their card: the built-in ticket (640 x 400 points, each axis scaled), or the artwork they are printed on (its points, fitted whole)")
    func zonesOnTheirCard() throws {
        let card = try #require(try parse(#"{"zones": [{"x": 600, "y": 10, "w": 100, "h": 50}, {"x": 10, "y": 500, "w": 100, "h": 100}], "symbols": [{"text": "a"}, {"text": "b"}]}"#))
        #expect(card.artwork == nil)
        #expect(card.zoneOffTheCard == "zone 0 (x 600, y 10, w 100, h 50) is outside the ticket (0, 0, 640 x 400 points)")
        let printed = card.printed(on: PixelSize(width: 960, height: 640))
        #expect(printed.zoneOffTheCard == nil)
        #expect(card.printed(on: PixelSize(width: 960, height: 560)).zoneOffTheCard == "zone 1 (x 10, y 500, w 100, h 100) is outside the cover (0, 0, 960 x 560 points)")
        // At its own size the artwork's points are pixels; in a wider window it is fitted
        // whole (scale 1.25 to 800 rows), centred (a 200-pixel band each side).
        #expect(printed.outlines(in: PixelSize(width: 960, height: 640))[0] == ZoneOutline(x: 600, y: 10, width: 100, height: 50))
        #expect(printed.outlines(in: PixelSize(width: 1600, height: 800))[1] == ZoneOutline(x: 200 + 12.5, y: 625, width: 125, height: 125))
        // The built-in ticket stretches each axis with the window.
        #expect(card.outlines(in: PixelSize(width: 1280, height: 1600))[0] == ZoneOutline(x: 1200, y: 40, width: 200, height: 200))
    }

    @Test("through Deck.load: a zone card is a deck entry with its zones; errors name the deck and the entry")
    func inADeck() throws {
        let tmp = try TemporaryFolder()
        let grid = #""grid": {"x": 40, "y": 110, "w": 560, "h": 270, "columns": 3, "rows": 1, "gap": 10}"#
        let good = try tmp.write("deck.json", #"{"cover-text": "PICK 1", "cards": [{"id": "t", \#(grid), "pick": 1, "symbols": [{"text": "W"}], "decoys": [{"text": "a"}, {"text": "b"}]}, {"id": "p", "text": "plain"}]}"#)
        let deck = try Deck.load(path: good)
        #expect(deck.cards[0].zoneCard?.zones.count == 3 && deck.cards[0].zoneCard?.pick == 1 && deck.cards[0].coverText == "PICK 1")
        #expect(deck.cards[1].zoneCard == nil)
        for (entry, expected) in [
            (#"{"id": "t", \#(grid), "symbols": [{"text": "a"}, {"text": "b"}, {"text": "c"}], "prize": "x.png"}"#, #"cards[0] ("t"): prize does not go with zones: a zone card is a ticket, its symbols are what it shows (its artwork is a cover)"#),
            (#"{\#(grid), "symbols": [{"text": "a"}, {"text": "b"}, {"text": "c"}]}"#, "cards[0]: a zone card needs an \"id\""),
            (#"{"id": "t", \#(grid), "symbols": [{"text": "a"}]}"#, #"cards[0] ("t"): symbols has 1, fewer than the 3 zones"#),
        ] {
            let path = try tmp.write("bad.json", #"{"cards": [\#(entry)]}"#)
            #expect(deckError { () throws(DeckError) in try Deck.load(path: path) }?.description == path + ": " + expected)
        }
    }

    @Test("saved strokes replayed through a ticket's zones give the canvas's mask and order: each pen kept to its zone, keys' opens in place")
    func replayMatchesTheCanvas() throws {
        let size = PixelSize(width: 320, height: 200)
        var outlines: [ZoneOutline] = []
        for c in 0..<3 { outlines.append(ZoneOutline(x: 10 + Double(c) * 105, y: 20, width: 95, height: 160)) }
        let image = RGBAImage(size: size, filledWith: .white)
        let canvas = try ScratchCanvas(cover: image, prize: image, layout: .bgrx, brush: Brush(radius: 9))
        canvas.setZones(outlines, touchLimit: 2)
        var log = StrokeLog()
        log.append(.canvas(size, brush: 9))
        func down(_ pen: Int, _ x: Double, _ y: Double) { canvas.penDown(at: Point(x: x, y: y), pen: pen); log.append(.down(pen: pen, Point(x: x, y: y))) }
        func move(_ pen: Int, _ x: Double, _ y: Double) { canvas.penMove(to: Point(x: x, y: y), pen: pen); log.append(.move(pen: pen, Point(x: x, y: y))) }
        down(0, 150, 100); move(0, 60, 90); move(0, 300, 120)      // zone 1, straying over 0 and 2
        canvas.penUp(); log.append(.up(pen: 0))
        canvas.markTouched(2); canvas.revealZone(2); log.append(.open(zone: 2))
        down(1, 40, 60); move(1, 60, 150)                           // zone 0: locked by the limit
        let replayed = try StrokeLog(parsing: log.text, name: "test").replay(to: size) { canvasSize, previous in
            var mask = Mask(size: canvasSize, keeping: previous, cover: nil)
            mask.setZones(outlines, touchLimit: 2)
            return mask
        }
        #expect(replayed.zones?.touchOrder == [1, 2] && canvas.zones?.touchOrder == [1, 2])
        var differ = 0
        for y in 0..<size.height { for x in 0..<size.width where replayed[x, y] != canvas.mask[x, y] { differ += 1 } }
        #expect(differ == 0)
    }
}

