import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import ScratchCore
import ScratchImage
import InputTest
import XvfbSupport

/// A "pick 3 of 9" ticket as a player meets it: strokes through XTest (and real fingers
/// on the inputtest touchscreen), keys, a kill -9 and a restart; the window's pixels
/// read back, the `--events` lines checked in order.
@Suite(.serialized) struct ZoneTicketAppTests {
    /// The three symbols (solid images, so a zone's middle is exactly their colour) and
    /// the decoys' colour.
    static let symbolColours = [RGBA(r: 220, g: 20, b: 30), RGBA(r: 20, g: 170, b: 40), RGBA(r: 30, g: 60, b: 220)]
    static let decoyColour = RGBA(r: 250, g: 200, b: 0)

    /// A deck with one zone card: a 3 x 3 grid, pick 3 (640 x 400 points, window 640 x 400 px).
    static func deck(in folder: URL) throws -> String {
        var names: [String] = []
        for (i, colour) in symbolColours.enumerated() {
            _ = try App.solidPNG(colour, size: PixelSize(width: 20, height: 20), in: folder, name: "s\(i).png")
            names.append("\"s\(i).png\"")
        }
        _ = try App.solidPNG(decoyColour, size: PixelSize(width: 20, height: 20), in: folder, name: "decoy.png")
        let decoys = Array(repeating: "\"decoy.png\"", count: 6).joined(separator: ",")
        let text = """
            {"cover-text": "PICK 3", "cards": [{"id": "ticket", "grid": {"x": 40, "y": 110, "w": 560, "h": 270, "columns": 3, "rows": 3, "gap": 15},
             "pick": 3, "symbols": [\(names.joined(separator: ","))], "decoys": [\(decoys)], "celebrate": false, "sound": null}]}
            """
        let path = folder.appendingPathComponent("deck.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The middle of zone `zone` (row by row from the top left), in window pixels.
    static func centre(_ zone: Int) -> (x: Int, y: Int) {
        let cellW = (560.0 - 30) / 3, cellH = (270.0 - 30) / 3
        return (Int(40 + Double(zone % 3) * (cellW + 15) + cellW / 2), Int(110 + Double(zone / 3) * (cellH + 15) + cellH / 2))
    }

    static func close(_ a: RGBA, _ b: RGBA, _ tolerance: Int = 4) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance && abs(Int(a.b) - Int(b.b)) <= tolerance
    }

    /// A decoy as the ticket dims it: a grey veil (0.35, 0.35, 0.38) at 60% over it.
    static var dimmedDecoy: RGBA {
        func veil(_ c: UInt8, _ v: Double) -> UInt8 { UInt8((Double(c) * 0.4 + v * 255 * 0.6).rounded()) }
        return RGBA(r: veil(decoyColour.r, 0.35), g: veil(decoyColour.g, 0.35), b: veil(decoyColour.b, 0.38))
    }

    static let arguments = ["--size", "640x400", "--scale", "1", "--brush", "10", "--events", "--sound", "off", "--reveal-at", "60"]

    /// The zone events and the card's reveal, as (name, zone, symbol) in order.
    static func zoneEvents(_ app: RunningApp) -> [String] {
        app.events.compactMap { event in
            guard let name = event["event"] as? String, name.hasPrefix("zone-") || name == "revealed" else { return nil }
            #expect(event["card"] as? String == "ticket", "\(event)")
            var text = name
            if let zone = event["zone"] as? Int { text += " \(zone)" }
            if let symbol = event["symbol"] { text += " \(symbol)" }
            return text
        }
    }

    /// A zig-zag over most of a zone, pressed and released.
    static func scrub(_ zone: Int, on server: Xvfb, window: UInt) throws {
        let (x, y) = centre(zone)
        var path: [(Int, Int)] = []
        for dy in stride(from: -36, through: 36, by: 12) { path += [(x + 84, y + dy), (x - 84, y + dy + 6)] }
        try server.drag(window: window, from: (x - 84, y - 36), through: path)
    }

    @Test("9 zones, pick 3, through XTest: strokes outside change nothing; the first three zones touched show the deal's symbols in that order; a fourth does not scratch; the other six open dimmed with decoys; events in order")
    func pickThreeWithTheMouse() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(in: folder)
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        let outcomes = folder.appendingPathComponent("outcomes.jsonl").path
        let app = try RunningApp(["--deck", deck, "--log", outcomes] + Self.arguments, environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)")
        let before = try server.waitForPixels(window: window, timeout: 10) { $0[Self.centre(8).x, Self.centre(8).y] != RGBA(r: 0, g: 0, b: 0) }

        // Across the header band and down the left margin: outside every zone.
        try server.drag(window: window, from: (30, 60), through: [(320, 60), (610, 60), (610, 90), (20, 90), (20, 380)])
        usleep(400_000)
        let after = try server.capture(window: window)
        var changed = 0
        for y in 0..<400 { for x in 0..<640 where after[x, y] != before[x, y] { changed += 1 } }
        #expect(changed == 0, "pixels changed by strokes outside the zones")

        // Three zones, in an order that is not theirs: each shows the next symbol.
        for (n, zone) in [7, 2, 5].enumerated() {
            let (x, y) = Self.centre(zone)
            try server.drag(window: window, from: (x - 5, y), through: [(x + 5, y)])
            let shown = try server.waitForPixels(window: window, timeout: 10) { $0[x, y] == Self.symbolColours[n] }
            #expect(shown[x, y] == Self.symbolColours[n], "zone \(zone), the \(n + 1)th touched")
        }
        // A fourth zone does not scratch.
        let (x0, y0) = Self.centre(0)
        try server.drag(window: window, from: (x0 - 40, y0), through: [(x0 + 40, y0), (x0 + 40, y0 + 20)])
        usleep(400_000)
        let locked = try server.capture(window: window)
        #expect(locked[x0, y0] == before[x0, y0] && locked[x0 + 20, y0] == before[x0 + 20, y0], "the fourth zone took a scratch")

        for zone in [2, 7, 5] { try Self.scrub(zone, on: server, window: window) }
        let decoys = [0, 1, 3, 4, 6, 8]
        let opened = try server.waitForPixels(window: window, timeout: 15) { image in
            decoys.allSatisfy { Self.close(image[Self.centre($0).x, Self.centre($0).y], Self.dimmedDecoy) }
        }
        for zone in decoys {
            #expect(Self.close(opened[Self.centre(zone).x, Self.centre(zone).y], Self.dimmedDecoy), "decoy zone \(zone): \(opened[Self.centre(zone).x, Self.centre(zone).y])")
        }
        for (n, zone) in [7, 2, 5].enumerated() {
            #expect(opened[Self.centre(zone).x, Self.centre(zone).y] == Self.symbolColours[n], "zone \(zone) after the reveal")
        }
        #expect(waitUntil(timeout: 10) { app.eventNames.contains("revealed") })
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
        #expect(Self.zoneEvents(app) == ["zone-start 7", "zone-start 2", "zone-start 5",
                                         "zone-revealed 2 1", "zone-revealed 7 0", "zone-revealed 5 2",
                                         "zone-revealed 0 decoy", "zone-revealed 1 decoy", "zone-revealed 3 decoy",
                                         "zone-revealed 4 decoy", "zone-revealed 6 decoy", "zone-revealed 8 decoy", "revealed"])
        let revealed = app.events.first { $0["event"] as? String == "revealed" }
        #expect(revealed?["how"] as? String == "threshold")
        // The outcome log records the picks, in order, with their symbols.
        let logged = (try? String(contentsOfFile: outcomes, encoding: .utf8)) ?? ""
        #expect(logged.contains(#""card":"ticket""#) && logged.contains(#""outcome":"revealed""#)
                && logged.contains(#""picks":[{"zone":7,"symbol":"s0.png"},{"zone":2,"symbol":"s1.png"},{"zone":5,"symbol":"s2.png"}]"#), "\(logged)")
    }

    @Test("keyboard only: Tab to a zone, Space opens it; three picks reveal the card")
    func keyboardOnly() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(in: folder)
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        let app = try RunningApp(["--deck", deck] + Self.arguments, environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)")
        // The pointer rests on the window (focus follows it) and is never pressed.
        try server.xdotool("mousemove", "--window", "\(window)", "5", "5")
        try server.xdotool("key", "Tab")
        // The focus ring around zone 0: blue in the gap just left of it.
        let ring = try server.waitForPixels(window: window, timeout: 10) { Self.close($0[34, Self.centre(0).y], RGBA(r: 0x15, g: 0x65, b: 0xC0), 2) }
        #expect(Self.close(ring[34, Self.centre(0).y], RGBA(r: 0x15, g: 0x65, b: 0xC0), 2), "no focus ring: \(ring[34, Self.centre(0).y])")
        try server.xdotool("key", "space")
        let first = try server.waitForPixels(window: window, timeout: 10) { $0[Self.centre(0).x, Self.centre(0).y] == Self.symbolColours[0] }
        #expect(first[Self.centre(0).x, Self.centre(0).y] == Self.symbolColours[0])
        #expect(first[Self.centre(0).x - 80, Self.centre(0).y - 35] != RGBA(r: 0, g: 0, b: 0))
        // Tab moves on to zone 1, Right to zone 2.
        try server.xdotool("key", "Tab", "space")
        try server.xdotool("key", "Right", "space")
        let done = try server.waitForPixels(window: window, timeout: 15) { image in
            image[Self.centre(2).x, Self.centre(2).y] == Self.symbolColours[2] && Self.close(image[Self.centre(8).x, Self.centre(8).y], Self.dimmedDecoy)
        }
        #expect(done[Self.centre(1).x, Self.centre(1).y] == Self.symbolColours[1])
        #expect(done[Self.centre(2).x, Self.centre(2).y] == Self.symbolColours[2])
        #expect(Self.close(done[Self.centre(8).x, Self.centre(8).y], Self.dimmedDecoy))
        #expect(waitUntil(timeout: 10) { app.eventNames.contains("revealed") })
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
        #expect(Array(Self.zoneEvents(app).prefix(6)) == ["zone-start 0", "zone-revealed 0 0", "zone-start 1", "zone-revealed 1 1",
                                                         "zone-start 2", "zone-revealed 2 2"])
        #expect(Self.zoneEvents(app).last == "revealed")
        #expect(app.events.first { $0["event"] as? String == "revealed" }?["how"] as? String == "keyboard")
        #expect(!app.eventNames.contains("scratch-start"))
    }

    @Test("kill -9 after two picks: the restarted kiosk shows both with their symbols, and the third pick shows the third symbol")
    func resumeAfterKill() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(in: folder)
        let store = folder.appendingPathComponent("kiosk.db").path
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        let first = try RunningApp(["--deck", deck, "--store", store] + Self.arguments, environment: server.environment)
        var window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { first.eventNames.contains("ready") }, "\(first.standardError)")
        for (n, zone) in [4, 0].enumerated() {
            let (x, y) = Self.centre(zone)
            try server.drag(window: window, from: (x - 10, y), through: [(x + 10, y)])
            _ = try server.waitForPixels(window: window, timeout: 10) { $0[x, y] == Self.symbolColours[n] }
        }
        #expect(waitUntil(timeout: 10) { first.eventNames.filter { $0 == "zone-start" }.count == 2 })
        // The strokes reach the store within a second of the pen going up.
        usleep(1_500_000)
        kill(first.pid, SIGKILL)
        first.wait(timeout: 10)

        let second = try RunningApp(["--deck", deck, "--store", store] + Self.arguments, environment: server.environment)
        window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { second.eventNames.contains("ready") }, "\(second.standardError)")
        #expect(second.events.first?["resumed"] as? Bool == true, "\(second.standardOutput)")
        let shown = try server.waitForPixels(window: window, timeout: 10) {
            $0[Self.centre(4).x, Self.centre(4).y] == Self.symbolColours[0] && $0[Self.centre(0).x, Self.centre(0).y] == Self.symbolColours[1]
        }
        #expect(shown[Self.centre(4).x, Self.centre(4).y] == Self.symbolColours[0], "zone 4 after the restart")
        #expect(shown[Self.centre(0).x, Self.centre(0).y] == Self.symbolColours[1], "zone 0 after the restart")
        let (x, y) = Self.centre(8)
        try server.drag(window: window, from: (x - 10, y), through: [(x + 10, y)])
        let third = try server.waitForPixels(window: window, timeout: 10) { $0[x, y] == Self.symbolColours[2] }
        #expect(third[x, y] == Self.symbolColours[2], "the third pick")
        kill(second.pid, SIGTERM)
        #expect(second.wait(timeout: 20) == 0, "\(second.standardError)")
        #expect(Self.zoneEvents(second) == ["zone-start 8"])
    }

    @Test("real fingers: pressed in the gaps they start nothing; two at once each scratch their own zone, and cannot start more than pick (3) between them",
          .requires(DummyXorg.inputTestUnavailable))
    func twoFingers() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(in: folder)
        let server = try DummyXorg(modeline: DummyXorg.modeline800x600at60, inputDevices: [.touch])
        defer { server.stop() }
        let screen = try server.device(.touch)
        let app = try RunningApp(["--deck", deck] + Self.arguments, environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)")
        let before = try server.waitForPixels(window: window, timeout: 10) { $0[Self.centre(8).x, Self.centre(8).y] != RGBA(r: 0, g: 0, b: 0) }
        let g = try server.geometry(window: window)
        func touch(_ id: UInt32, _ phase: TouchPhase, _ p: (x: Int, y: Int), dx: Int = 0) throws {
            try screen.touch(id: id, phase, x: Double(g.x + p.x + dx) + 0.5, y: Double(g.y + p.y) + 0.5)
        }
        // Two fingers on the gaps at once: one taps where zones 0, 1, 3 and 4 meet, one
        // presses between zones 0 and 1 and slides down into zone 4. Neither starts a zone.
        let gaps = ZonePickAppTests.builtIn.gapCentres
        try touch(7, .begin, gaps[2]); try touch(8, .begin, gaps[0])
        let (x4, y4) = Self.centre(4)
        for k in 1...15 { try touch(8, .update, (gaps[0].x + (x4 - gaps[0].x) * k / 15, gaps[0].y + (y4 - gaps[0].y) * k / 15)) }
        try touch(7, .end, gaps[2]); try touch(8, .end, (x4, y4))
        try screen.sync()
        usleep(500_000)
        #expect(Self.zoneEvents(app).isEmpty, "fingers pressed in the gaps started zones: \(Self.zoneEvents(app))")
        // Two fingers at once, in zones 3 and 1, their moves interleaved.
        try touch(1, .begin, Self.centre(3)); try touch(2, .begin, Self.centre(1))
        for dx in stride(from: 4, through: 40, by: 4) { try touch(1, .update, Self.centre(3), dx: dx); try touch(2, .update, Self.centre(1), dx: -dx) }
        try touch(1, .end, Self.centre(3), dx: 40); try touch(2, .end, Self.centre(1), dx: -40)
        try screen.sync()
        _ = try server.waitForPixels(window: window, timeout: 10) { $0[Self.centre(3).x, Self.centre(3).y] != before[Self.centre(3).x, Self.centre(3).y] }
        // Two more fingers at once, in zones 6 and 8: one pick is left, one of them gets it.
        try touch(3, .begin, Self.centre(6)); try touch(4, .begin, Self.centre(8))
        for dx in stride(from: 4, through: 40, by: 4) { try touch(3, .update, Self.centre(6), dx: dx); try touch(4, .update, Self.centre(8), dx: -dx) }
        try touch(3, .end, Self.centre(6), dx: 40); try touch(4, .end, Self.centre(8), dx: -40)
        try screen.sync()
        #expect(waitUntil(timeout: 10) { app.eventNames.filter { $0 == "zone-start" }.count == 3 })
        usleep(500_000)
        let shown = try server.capture(window: window)
        let starts = Self.zoneEvents(app).filter { $0.hasPrefix("zone-start") }
        #expect(starts.count == 3, "\(starts)")
        #expect(Set(starts.prefix(2)) == ["zone-start 3", "zone-start 1"], "\(starts)")
        // Each started zone shows its symbol, in the order started; the zone left out shows foil.
        for (n, start) in starts.enumerated() {
            let zone = Int(start.split(separator: " ").last!)!
            #expect(shown[Self.centre(zone).x, Self.centre(zone).y] == Self.symbolColours[n], "zone \(zone)")
        }
        let leftOut = starts.contains("zone-start 6") ? 8 : 6
        #expect(shown[Self.centre(leftOut).x, Self.centre(leftOut).y] == before[Self.centre(leftOut).x, Self.centre(leftOut).y], "zone \(leftOut) took a scratch")
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
    }

    @Test("render replays a trace over a deck's zone card: the zones in the order touched show the symbols, the rest decoys")
    func renderTicket() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(in: folder)
        var trace = "scratch-trace 1\ncanvas 640 400\nbrush 10\n"
        for zone in [4, 0, 8] {
            let (x, y) = Self.centre(zone)
            trace += "down \(x - 84) \(y - 36)\n"
            for dy in stride(from: -36, through: 36, by: 12) { trace += "move \(x + 84) \(y + dy)\nmove \(x - 84) \(y + dy + 6)\n" }
            trace += "up\n"
        }
        // A stroke outside every zone, last.
        trace += "down 30 60\nmove 610 60\nup\n"
        let tracePath = folder.appendingPathComponent("t.trace").path, out = folder.appendingPathComponent("t.png").path
        try Data(trace.utf8).write(to: URL(fileURLWithPath: tracePath))
        let run = try runToExit(["render", "--trace", tracePath, "--deck", deck, "--card", "ticket", "--out", out], timeout: 60)
        #expect(run.status == 0, "\(run.err)")
        let image = try PNGFile.read(path: out)
        for (n, zone) in [4, 0, 8].enumerated() { #expect(image[Self.centre(zone).x, Self.centre(zone).y] == Self.symbolColours[n], "zone \(zone)") }
        for zone in [1, 2, 3, 5, 6, 7] { #expect(Self.close(image[Self.centre(zone).x, Self.centre(zone).y], Self.dimmedDecoy), "zone \(zone)") }
        let missing = try runToExit(["render", "--trace", tracePath, "--deck", deck, "--card", "nope", "--out", out])
        #expect(missing.status == 2 && missing.err.contains("no card with the id \"nope\""), "\(missing.err)")
    }

    @Test("a bad zone card ends the program with exit 2, naming the deck entry", arguments: [
        (#"{"id": "t", "grid": {"x": 0, "y": 0, "w": 300, "h": 300, "columns": 3, "rows": 3}, "pick": 10, "symbols": [{"text": "a"}]}"#,
         #"cards[0] ("t"): pick is 10, more than the card's 9 zones"#),
        (#"{"id": "t", "zones": [{"x": 10, "y": 10, "w": 100, "h": 100}, {"x": 50, "y": 50, "w": 100, "h": 100}], "symbols": [{"text": "a"}, {"text": "b"}]}"#,
         #"cards[0] ("t"): zones[1] overlaps zones[0]"#),
        (#"{"id": "t", "zones": [{"x": 600, "y": 10, "w": 100, "h": 100}], "symbols": [{"text": "a"}]}"#,
         #"cards[0] ("t"): zone 0 (x 600, y 10, w 100, h 100) is outside the ticket (0, 0, 640 x 400 points)"#),
        (#"{"id": "t", "grid": {"x": 0, "y": 0, "w": 300, "h": 300, "columns": 3, "rows": 1}, "pick": 2, "symbols": ["gone.png", {"text": "b"}], "decoys": [{"text": "d"}]}"#,
         #"cards[0] ("t"): symbols[0]: symbol image"#),
    ])
    func badZoneDecks(entry: String, message: String) throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("deck.json").path
        try Data(#"{"cards": [\#(entry)]}"#.utf8).write(to: URL(fileURLWithPath: path))
        let run = try runToExit(["--deck", path])
        #expect(run.status == 2, "\(run.err)")
        #expect(run.err.contains(path) && run.err.contains(message), "\(run.err)")
    }

    @Test("a ticket of words and emoji: the header carries the cover text, a started zone shows its symbol in the card's style, the rest stay foil (ZONES_SCREENSHOT=FILE keeps the picture, as docs/ticket.png)")
    func ticketWithWords() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = folder.appendingPathComponent("deck.json").path
        let decoys = ["🍋", "⭐", "🍒", "🍀", "🎁", "🔔"].map { #"{"text": "\#($0)"}"# }.joined(separator: ",")
        let text = ##"{"cover-text": "PICK 3 · MATCH 3 TO WIN", "cards": [{"id": "coffee", "grid": {"x": 40, "y": 110, "w": 560, "h": 270, "columns": 3, "rows": 3, "gap": 15}, "pick": 3, "symbols": [{"text": "☕ COFFEE", "color": "#6D4C41"}, {"text": "☕ COFFEE", "color": "#6D4C41"}, {"text": "☕ COFFEE", "color": "#6D4C41"}], "decoys": [\##(decoys)], "sound": null}]}"##
        try Data(text.utf8).write(to: URL(fileURLWithPath: deck))
        let server = try Xvfb(width: 1024, height: 700); defer { server.stop() }
        let app = try RunningApp(["--deck", deck, "--size", "960x600", "--scale", "1", "--brush", "14", "--events", "--sound", "off"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)")
        let before = try server.waitForPixels(window: window, timeout: 10) { $0[480, 100] != RGBA(r: 0, g: 0, b: 0) }
        // Zone 4 scratched open (its middle at 480, 397 at 1.5x), zone 0 half, zone 8 a streak.
        func zone(_ z: Int) -> (x: Int, y: Int) { let c = Self.centre(z); return (c.x * 3 / 2, c.y * 3 / 2) }
        let (x4, y4) = zone(4)
        var path: [(Int, Int)] = []
        for dy in stride(from: -50, through: 50, by: 16) { path += [(x4 + 125, y4 + dy), (x4 - 125, y4 + dy + 8)] }
        try server.drag(window: window, from: (x4 - 125, y4 - 50), through: path)
        let (x0, y0) = zone(0)
        try server.drag(window: window, from: (x0 - 110, y0 - 30), through: [(x0 + 20, y0 - 25), (x0 - 100, y0 + 5), (x0 + 30, y0 + 15), (x0 - 60, y0 + 40)])
        let (x8, y8) = zone(8)
        try server.drag(window: window, from: (x8 - 100, y8 + 30), through: [(x8 + 60, y8 - 35)])
        #expect(waitUntil(timeout: 10) { app.eventNames.filter { $0 == "zone-start" }.count == 3 && app.eventNames.contains("zone-revealed") })
        usleep(800_000)
        let shot = try server.capture(window: window)
        // The opened zone shows the symbol's brown words on the light well, where foil was.
        let brown = (y4 - 50...y4 + 50).reduce(0) { n, y in n + (x4 - 120...x4 + 120).filter { shot[$0, y].r < 140 && shot[$0, y].r > 70 && shot[$0, y].b < 90 }.count }
        #expect(brown > 200, "no symbol drawn in the opened zone")
        #expect(shot[x4 - 120, y4 - 55] != before[x4 - 120, y4 - 55])
        // A zone never touched is foil as before; the header's words are unchanged.
        #expect(shot[zone(2).x, zone(2).y] == before[zone(2).x, zone(2).y])
        for y in 30..<150 { for x in 30..<930 where shot[x, y] != before[x, y] { Issue.record("header pixel \(x),\(y) changed"); return } }
        if let keep = ProcessInfo.processInfo.environment["ZONES_SCREENSHOT"] { try PNGFile.write(shot, to: keep) }
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
    }

    @Test("keyboard picks survive a kill -9: the restarted kiosk shows them, and the third key pick reveals the card")
    func keyboardPicksResume() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(in: folder)
        let store = folder.appendingPathComponent("kiosk.db").path
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        let first = try RunningApp(["--deck", deck, "--store", store] + Self.arguments, environment: server.environment)
        var window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { first.eventNames.contains("ready") }, "\(first.standardError)")
        try server.xdotool("mousemove", "--window", "\(window)", "5", "5")
        try server.xdotool("key", "Tab", "space", "Down", "space")
        _ = try server.waitForPixels(window: window, timeout: 10) { $0[Self.centre(3).x, Self.centre(3).y] == Self.symbolColours[1] }
        #expect(waitUntil(timeout: 10) { first.eventNames.filter { $0 == "zone-start" }.count == 2 })
        usleep(1_500_000)
        kill(first.pid, SIGKILL)
        first.wait(timeout: 10)

        let second = try RunningApp(["--deck", deck, "--store", store] + Self.arguments, environment: server.environment)
        window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { second.eventNames.contains("ready") }, "\(second.standardError)")
        let shown = try server.waitForPixels(window: window, timeout: 10) {
            $0[Self.centre(0).x, Self.centre(0).y] == Self.symbolColours[0] && $0[Self.centre(3).x, Self.centre(3).y] == Self.symbolColours[1]
        }
        #expect(shown[Self.centre(0).x, Self.centre(0).y] == Self.symbolColours[0], "zone 0 after the restart")
        #expect(shown[Self.centre(3).x, Self.centre(3).y] == Self.symbolColours[1], "zone 3 after the restart")
        // Tab goes to the first zone still to pick (1), Space opens it: the third symbol, then the decoys.
        try server.xdotool("mousemove", "--window", "\(window)", "5", "5")
        try server.xdotool("key", "Tab", "space")
        let done = try server.waitForPixels(window: window, timeout: 10) {
            $0[Self.centre(1).x, Self.centre(1).y] == Self.symbolColours[2] && Self.close($0[Self.centre(8).x, Self.centre(8).y], Self.dimmedDecoy)
        }
        #expect(done[Self.centre(1).x, Self.centre(1).y] == Self.symbolColours[2])
        #expect(waitUntil(timeout: 10) { second.eventNames.contains("revealed") })
        kill(second.pid, SIGTERM)
        #expect(second.wait(timeout: 20) == 0, "\(second.standardError)")
        #expect(Array(Self.zoneEvents(second).prefix(2)) == ["zone-start 1", "zone-revealed 1 2"], "\(Self.zoneEvents(second))")
    }
}
