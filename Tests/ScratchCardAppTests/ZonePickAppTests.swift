import Claims
import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import ScratchCore
import ScratchImage
import XvfbSupport

/// One touch, one pick, as a player meets it through XTest on two "pick 3 of 9" tickets:
/// the built-in one and a promoter's own printed artwork (a 960 x 640 PNG with silver
/// panels, the zones in its points). Taps in the gaps, scrubbing an opened zone past its
/// edges with a 40 pt brush over 15 pt gaps, strokes on the artwork, a kill -9, a resize.
@Suite(.serialized) struct ZonePickAppTests {
    /// A ticket: where its grid lies in the window (the window is the card's size at
    /// scale 1, so points are pixels), and the artwork it is printed on, if any.
    struct Ticket: CustomTestStringConvertible, Sendable {
        let name: String
        let window: PixelSize
        let grid: (x: Double, y: Double, w: Double, h: Double, gap: Double)
        let printed: Bool
        var testDescription: String { name }

        var cell: (w: Double, h: Double) { ((grid.w - 2 * grid.gap) / 3, (grid.h - 2 * grid.gap) / 3) }
        func left(_ zone: Int) -> Double { grid.x + Double(zone % 3) * (cell.w + grid.gap) }
        func top(_ zone: Int) -> Double { grid.y + Double(zone / 3) * (cell.h + grid.gap) }
        func centre(_ zone: Int) -> (x: Int, y: Int) { (Int(left(zone) + cell.w / 2), Int(top(zone) + cell.h / 2)) }
        /// The centre of every gap: between neighbours in a row, in a column, and where four meet.
        var gapCentres: [(x: Int, y: Int)] {
            var points: [(Int, Int)] = []
            for zone in 0..<9 {
                let (cx, cy) = centre(zone)
                let right = Int(left(zone) + cell.w + grid.gap / 2), below = Int(top(zone) + cell.h + grid.gap / 2)
                if zone % 3 < 2 { points.append((right, cy)) }
                if zone / 3 < 2 { points.append((cx, below)) }
                if zone % 3 < 2 && zone / 3 < 2 { points.append((right, below)) }
            }
            return points
        }
        var arguments: [String] {
            ["--size", "\(window.width)x\(window.height)", "--scale", "1", "--brush", "40", "--events", "--sound", "off", "--reveal-at", "60"]
        }
    }

    static let builtIn = Ticket(name: "built-in", window: PixelSize(width: 640, height: 400),
                                grid: (40, 110, 560, 270, 15), printed: false)
    static let artwork = Ticket(name: "printed artwork", window: PixelSize(width: 960, height: 640),
                                grid: (60, 180, 840, 420, 15), printed: true)

    static let paper = RGBA(r: 238, g: 226, b: 196), header = RGBA(r: 20, g: 90, b: 60), panel = RGBA(r: 186, g: 190, b: 198)

    /// The promoter's artwork: cream paper, a green header band, a silver panel per zone.
    static func artworkPNG(_ ticket: Ticket, in folder: URL) throws -> String {
        var image = RGBAImage(size: ticket.window, filledWith: paper)
        for y in 30..<130 { for x in 40..<920 { image[x, y] = header } }
        for zone in 0..<9 {
            for y in Int(ticket.top(zone).rounded())..<Int((ticket.top(zone) + ticket.cell.h).rounded()) {
                for x in Int(ticket.left(zone).rounded())..<Int((ticket.left(zone) + ticket.cell.w).rounded()) { image[x, y] = panel }
            }
        }
        let path = folder.appendingPathComponent("ticket.png").path
        try PNGFile.write(image, to: path)
        return path
    }

    /// A deck with the ticket (the artwork as its cover when printed).
    static func deck(_ ticket: Ticket, in folder: URL, claim: Bool = false) throws -> String {
        var names: [String] = []
        for (i, colour) in ZoneTicketAppTests.symbolColours.enumerated() {
            _ = try App.solidPNG(colour, size: PixelSize(width: 20, height: 20), in: folder, name: "s\(i).png")
            names.append("\"s\(i).png\"")
        }
        _ = try App.solidPNG(ZoneTicketAppTests.decoyColour, size: PixelSize(width: 20, height: 20), in: folder, name: "decoy.png")
        let decoys = Array(repeating: "\"decoy.png\"", count: 6).joined(separator: ",")
        var cover = ""
        if ticket.printed { cover = "\"cover\": \"\(URL(fileURLWithPath: try artworkPNG(ticket, in: folder)).lastPathComponent)\", " }
        let g = ticket.grid
        let text = """
            {"cards": [{"id": "ticket", \(cover)"grid": {"x": \(g.x), "y": \(g.y), "w": \(g.w), "h": \(g.h), "columns": 3, "rows": 3, "gap": \(g.gap)},
             "pick": 3, "symbols": [\(names.joined(separator: ","))], "decoys": [\(decoys)], "celebrate": false, "sound": null\(claim ? ", \"claim\": true" : "")}]}
            """
        let path = folder.appendingPathComponent("deck.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func starts(_ app: RunningApp) -> [Int] {
        app.events.compactMap { $0["event"] as? String == "zone-start" ? $0["zone"] as? Int : nil }
    }

    static func differing(_ a: RGBAImage, _ b: RGBAImage) -> Int {
        var n = 0
        for y in 0..<a.size.height { for x in 0..<a.size.width where a[x, y] != b[x, y] { n += 1 } }
        return n
    }

    /// A zig-zag over most of a zone, pressed inside it and released.
    static func scrub(_ ticket: Ticket, _ zone: Int, on server: Xvfb, window: UInt) throws {
        let (x, y) = ticket.centre(zone)
        let dx = Int(ticket.cell.w / 2) - 8, dy = Int(ticket.cell.h / 2) - 8
        var path: [(Int, Int)] = []
        for row in stride(from: -dy, through: dy, by: 10) { path += [(x + dx, row + y), (x - dx, row + y + 5)] }
        try server.drag(window: window, from: (x - dx, y - dy), through: path)
    }

    /// Strokes pressed inside an opened zone and dragged out past each of its edges,
    /// far into the neighbours: along every row of the zone, every column.
    static func scrubPastTheEdges(_ ticket: Ticket, _ zone: Int, on server: Xvfb, window: UInt) throws {
        let (x, y) = ticket.centre(zone)
        let halfW = Int(ticket.cell.w / 2), halfH = Int(ticket.cell.h / 2), reach = Int(ticket.grid.gap) + 60
        for row in stride(from: y - halfH + 4, through: y + halfH - 4, by: 12) {
            try server.drag(window: window, from: (x, row), through: [(x + halfW + reach, row), (x - halfW - reach, row)])
        }
        for column in stride(from: x - halfW + 4, through: x + halfW - 4, by: 24) {
            try server.drag(window: window, from: (column, y), through: [(column, y + halfH + reach), (column, y - halfH - reach)])
        }
    }

    func start(_ ticket: Ticket, in folder: URL, server: Xvfb, extra: [String] = []) throws -> (RunningApp, UInt) {
        let deck = try Self.deck(ticket, in: folder)
        let app = try RunningApp(["--deck", deck] + ticket.arguments + extra, environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)")
        _ = try server.waitForPixels(window: window, timeout: 10) { $0[ticket.centre(8).x, ticket.centre(8).y] != RGBA(r: 0, g: 0, b: 0) }
        return (app, window)
    }

    @Test("a tap in the centre of every gap starts no zone and changes no pixel; scrubbing each opened zone past its edges starts no other; the three picks are the three touched",
          arguments: [builtIn, artwork])
    func tapsInGapsAndOpenedZones(ticket: Ticket) throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let server = try Xvfb(width: 1024, height: 700); defer { server.stop() }
        let (app, window) = try start(ticket, in: folder, server: server)
        let before = try server.capture(window: window)
        #expect(ticket.gapCentres.count == 16)
        for (x, y) in ticket.gapCentres { try server.drag(window: window, from: (x, y), through: []) }
        usleep(500_000)
        #expect(Self.differing(try server.capture(window: window), before) == 0, "taps in the gaps changed pixels")
        #expect(Self.starts(app) == [], "taps in the gaps started zones")

        // Pick 4, open it, scrub it past every edge; then 8 likewise; then 0.
        for (n, zone) in [4, 8].enumerated() {
            try Self.scrub(ticket, zone, on: server, window: window)
            #expect(waitUntil(timeout: 10) { app.events.contains { $0["event"] as? String == "zone-revealed" && $0["zone"] as? Int == zone } },
                    "zone \(zone) did not open")
            usleep(500_000)     // the fade
            try Self.scrubPastTheEdges(ticket, zone, on: server, window: window)
            usleep(300_000)
            #expect(Self.starts(app) == Array([4, 8].prefix(n + 1)), "scrubbing opened zone \(zone) started another")
        }
        let (x, y) = ticket.centre(0)
        try server.drag(window: window, from: (x - 10, y), through: [(x + 10, y)])
        let shown = try server.waitForPixels(window: window, timeout: 10) { $0[x, y] == ZoneTicketAppTests.symbolColours[2] }
        for (n, zone) in [4, 8, 0].enumerated() {
            #expect(shown[ticket.centre(zone).x, ticket.centre(zone).y] == ZoneTicketAppTests.symbolColours[n], "pick \(n + 1), zone \(zone)")
        }
        #expect(Self.starts(app) == [4, 8, 0])
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
    }

    @Test("the promoter's artwork: a stroke on it changes no pixel; three picks show the deal's symbols in touch order beneath it; the other six open dimmed with decoys; the artwork stays")
    func printedArtwork() throws {
        let ticket = Self.artwork
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let server = try Xvfb(width: 1024, height: 700); defer { server.stop() }
        let (app, window) = try start(ticket, in: folder, server: server)
        let before = try server.capture(window: window)
        // The window shows the artwork as printed: its header, paper and panels.
        #expect(before[480, 80] == Self.header && before[20, 400] == Self.paper, "\(before[480, 80]) \(before[20, 400])")
        #expect(before[ticket.centre(4).x, ticket.centre(4).y] == Self.panel, "\(before[ticket.centre(4).x, ticket.centre(4).y])")
        // Strokes over the header, the margins and down the gaps, pressed on the artwork.
        let gx = Int(ticket.left(1)) - 7, gy = Int(ticket.top(3)) - 7
        try server.drag(window: window, from: (60, 80), through: [(900, 80), (900, 150), (20, 150), (20, 620)])
        try server.drag(window: window, from: (gx, 170), through: [(gx, 630)])
        try server.drag(window: window, from: (40, gy), through: [(940, gy)])
        usleep(500_000)
        #expect(Self.differing(try server.capture(window: window), before) == 0, "strokes on the artwork changed pixels")

        for zone in [6, 1, 5] { try Self.scrub(ticket, zone, on: server, window: window) }
        let decoys = [0, 2, 3, 4, 7, 8]
        let opened = try server.waitForPixels(window: window, timeout: 15) { image in
            decoys.allSatisfy { ZoneTicketAppTests.close(image[ticket.centre($0).x, ticket.centre($0).y], ZoneTicketAppTests.dimmedDecoy) }
        }
        for (n, zone) in [6, 1, 5].enumerated() {
            #expect(opened[ticket.centre(zone).x, ticket.centre(zone).y] == ZoneTicketAppTests.symbolColours[n], "zone \(zone), pick \(n + 1)")
        }
        for zone in decoys {
            #expect(ZoneTicketAppTests.close(opened[ticket.centre(zone).x, ticket.centre(zone).y], ZoneTicketAppTests.dimmedDecoy), "decoy in zone \(zone)")
        }
        #expect(opened[480, 80] == Self.header && opened[20, 400] == Self.paper, "the artwork around the zones changed")
        #expect(waitUntil(timeout: 10) { app.eventNames.contains("revealed") })
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
        #expect(Self.starts(app) == [6, 1, 5])
    }

    @Test("the promoter's artwork: kill -9 after two picks; the restarted kiosk shows both with their symbols, and the third pick the third")
    func printedArtworkResumes() throws {
        let ticket = Self.artwork
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let server = try Xvfb(width: 1024, height: 700); defer { server.stop() }
        let store = folder.appendingPathComponent("kiosk.db").path
        let (first, window) = try start(ticket, in: folder, server: server, extra: ["--store", store])
        for (n, zone) in [2, 7].enumerated() {
            let (x, y) = ticket.centre(zone)
            try server.drag(window: window, from: (x - 10, y), through: [(x + 10, y)])
            _ = try server.waitForPixels(window: window, timeout: 10) { $0[x, y] == ZoneTicketAppTests.symbolColours[n] }
        }
        usleep(1_500_000)       // the strokes reach the store within a second of the pen going up
        kill(first.pid, SIGKILL)
        first.wait(timeout: 10)

        let deck = folder.appendingPathComponent("deck.json").path
        let second = try RunningApp(["--deck", deck, "--store", store] + ticket.arguments, environment: server.environment)
        let again = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { second.eventNames.contains("ready") }, "\(second.standardError)")
        let shown = try server.waitForPixels(window: again, timeout: 10) {
            $0[ticket.centre(2).x, ticket.centre(2).y] == ZoneTicketAppTests.symbolColours[0]
                && $0[ticket.centre(7).x, ticket.centre(7).y] == ZoneTicketAppTests.symbolColours[1]
        }
        #expect(shown[ticket.centre(2).x, ticket.centre(2).y] == ZoneTicketAppTests.symbolColours[0], "zone 2 after the restart")
        #expect(shown[ticket.centre(7).x, ticket.centre(7).y] == ZoneTicketAppTests.symbolColours[1], "zone 7 after the restart")
        #expect(shown[480, 80] == Self.header, "the artwork after the restart")
        let (x, y) = ticket.centre(3)
        try server.drag(window: again, from: (x - 10, y), through: [(x + 10, y)])
        let third = try server.waitForPixels(window: again, timeout: 10) { $0[x, y] == ZoneTicketAppTests.symbolColours[2] }
        #expect(third[x, y] == ZoneTicketAppTests.symbolColours[2], "the third pick")
        kill(second.pid, SIGTERM)
        #expect(second.wait(timeout: 20) == 0, "\(second.standardError)")
        #expect(Self.starts(second) == [3])
    }

    @Test("a resize with a ticket on show, to another shape: the picks stay in their zones with their symbols, no zone starts, the third pick is the third symbol",
          arguments: [builtIn, artwork])
    func resizeWithATicket(ticket: Ticket) throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let server = try Xvfb(width: 2000, height: 1000); defer { server.stop() }
        let (app, window) = try start(ticket, in: folder, server: server)
        try Self.scrub(ticket, 4, on: server, window: window)                 // opened
        let (x0, y0) = ticket.centre(0)
        try server.drag(window: window, from: (x0 - 10, y0), through: [(x0 + 10, y0)])   // started
        _ = try server.waitForPixels(window: window, timeout: 10) { $0[x0, y0] == ZoneTicketAppTests.symbolColours[1] }
        usleep(500_000)
        // Twice as wide, one and a half times as tall.
        let size = PixelSize(width: ticket.window.width * 2, height: ticket.window.height * 3 / 2)
        try server.xdotool("windowsize", "--sync", "\(window)", "\(size.width)", "\(size.height)")
        // Where the zones are now: the built-in ticket stretches each axis, artwork is fitted whole, centred.
        func placed(_ zone: Int) -> (x: Int, y: Int) {
            let (x, y) = ticket.centre(zone)
            if ticket.printed {
                let scale = min(Double(size.width) / Double(ticket.window.width), Double(size.height) / Double(ticket.window.height))
                let dx = (Double(size.width) - Double(ticket.window.width) * scale) / 2
                return (Int(dx + Double(x) * scale), Int(Double(y) * scale))
            }
            return (x * size.width / ticket.window.width, y * size.height / ticket.window.height)
        }
        let resized = try server.waitForPixels(window: window, timeout: 10) { image in
            image.size == size && image[placed(4).x, placed(4).y] == ZoneTicketAppTests.symbolColours[0]
        }
        #expect(resized.size == size)
        #expect(resized[placed(4).x, placed(4).y] == ZoneTicketAppTests.symbolColours[0], "the opened pick after the resize")
        #expect(resized[placed(0).x, placed(0).y] == ZoneTicketAppTests.symbolColours[1], "the started pick after the resize")
        for zone in [1, 2, 3, 5, 6, 7, 8] {
            #expect(resized[placed(zone).x, placed(zone).y] != ZoneTicketAppTests.symbolColours[2], "zone \(zone) shows a symbol")
        }
        let (x, y) = placed(8)
        try server.drag(window: window, from: (x - 10, y), through: [(x + 10, y)])
        let third = try server.waitForPixels(window: window, timeout: 10) { $0[x, y] == ZoneTicketAppTests.symbolColours[2] }
        #expect(third[x, y] == ZoneTicketAppTests.symbolColours[2], "the third pick after the resize")
        #expect(Self.starts(app) == [4, 0, 8])
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
    }

    @Test("a zone card's cover that cannot hold its zones is refused at start, exit 2, naming the entry, the zone and the cover")
    func coverTooSmall() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(Self.artwork, in: folder)
        // The ticket's zones reach y 600; a 640 x 400 --cover for a deck of the same
        // zones without a cover of their own cannot hold them.
        let small = try App.solidPNG(Self.paper, size: PixelSize(width: 640, height: 400), in: folder, name: "small.png")
        let text = try String(contentsOfFile: deck, encoding: .utf8).replacingOccurrences(of: "\"cover\": \"ticket.png\", ", with: "")
        try Data(text.utf8).write(to: URL(fileURLWithPath: deck))
        let result = try runToExit(["--deck", deck, "--cover", small])
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err.contains("cards[0] (\"ticket\"): zone 2 (x 630, y 180, w 270, h 130) is outside the cover (0, 0, 640 x 400 points)"),
                "\(result.err)")
        #expect(result.err.contains(deck) && result.err.contains("small.png"), "\(result.err)")
    }

    @Test("a zone opening sounds through PulseAudio: a bell near 1568 Hz (G6) within 150 ms of the zone-revealed line, over the silence before it")
    func zoneSounds() throws {
        let ticket = Self.builtIn
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let pulse = try PulseServer(); defer { pulse.stop() }
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        var environment = server.environment
        environment["PULSE_SERVER"] = pulse.server
        let deck = try Self.deck(ticket, in: folder)
        let arguments = ticket.arguments.filter { $0 != "--sound" && $0 != "off" }
        let app = try RunningApp(["--deck", deck, "--verbose"] + arguments, environment: environment, stampOutput: true)
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.standardError.contains("sound: PulseAudio") }, "\(app.standardError)")
        let recording = try MonitorRecording(server: pulse); defer { recording.stop() }
        #expect(waitUntil { recording.data.count > 9_600 }, "parec records")
        let quietFrom = monotonicNow()
        try server.xdotool("mousemove", "--window", "\(window)", "5", "5")
        usleep(300_000)
        try server.xdotool("key", "Tab", "space")
        #expect(waitUntil(timeout: 10) { app.standardOutput.contains("zone-revealed") })
        let revealed = try #require(app.arrival(ofLineContaining: "zone-revealed"))
        usleep(600_000)
        recording.stop()
        typealias R = MonitorRecording
        let before = R.rms(recording.samples(from: quietFrom, to: revealed - 0.05))
        let onset = try #require(recording.onset(after: revealed - 0.1, threshold: Swift.max(300, before * 8)), "no sound after zone-revealed")
        #expect(onset - revealed < 0.15 && onset - revealed > -0.1, "the bell began \(onset - revealed) s after the line")
        // Its pitch over 100 ms from its onset, wherever the onset falls: zero crossings.
        let bell = recording.samples(from: onset, to: onset + 0.1)
        var crossings = 0
        for i in bell.indices.dropFirst() where (bell[i - 1] < 0) != (bell[i] < 0) { crossings += 1 }
        let hertz = Double(crossings) / 2 / (Double(bell.count) / R.rate)
        #expect(abs(hertz - 1568) < 120, "the bell read \(hertz) Hz")
        #expect(R.rms(bell) > before * 8, "the bell (RMS \(R.rms(bell))) is not over the silence before it (\(before))")
        try server.press("q", in: window)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
    }

    @Test("kiosk mode: Tab and Space pick three zones with no pointer, the card is revealed, the kiosk stays and deals the next ticket; other keys do nothing")
    func kioskKeyPicks() throws {
        let ticket = Self.builtIn
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let server = try Xvfb(width: 640, height: 400); defer { server.stop() }
        let deck = try Self.deck(ticket, in: folder)
        let app = try RunningApp(["--deck", deck, "--kiosk", "--idle-reset", "2"] + ticket.arguments, environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)")
        for key in ["q", "Escape", "r", "alt+F4"] { try server.press(key, in: window) }
        usleep(300_000)
        #expect(app.process.isRunning, "keys must not end kiosk mode")
        #expect(Self.starts(app) == [])
        try server.xdotool("key", "Tab", "space")
        try server.xdotool("key", "Tab", "Tab", "space")
        try server.xdotool("key", "Down", "space")
        let done = try server.waitForPixels(window: window, timeout: 15) { image in
            ZoneTicketAppTests.close(image[ticket.centre(1).x, ticket.centre(1).y], ZoneTicketAppTests.dimmedDecoy)
        }
        for (n, zone) in [0, 2, 5].enumerated() {
            #expect(done[ticket.centre(zone).x, ticket.centre(zone).y] == ZoneTicketAppTests.symbolColours[n], "key pick \(n + 1), zone \(zone)")
        }
        #expect(Self.starts(app) == [0, 2, 5])
        #expect(waitUntil(timeout: 10) { app.eventNames.contains("revealed") })
        #expect(app.events.first { $0["event"] as? String == "revealed" }?["how"] as? String == "keyboard")
        // The kiosk deals the next ticket, covered again, and goes on taking key picks.
        #expect(waitUntil(timeout: 15) { app.eventNames.contains("new-card") }, "\(app.eventNames)")
        let fresh = try server.waitForPixels(window: window, timeout: 10) { $0[ticket.centre(0).x, ticket.centre(0).y] != ZoneTicketAppTests.symbolColours[0] }
        #expect(fresh[ticket.centre(0).x, ticket.centre(0).y] != ZoneTicketAppTests.symbolColours[0], "the next ticket is covered")
        try server.xdotool("key", "Tab", "space")
        #expect(waitUntil(timeout: 10) { Self.starts(app).count == 4 }, "\(Self.starts(app))")
        #expect(app.process.isRunning)
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
    }

    @Test("a stroke in one zone while another fades open shows at once (the fade's frame once put only the fading zone)")
    func strokeDuringAFade() throws {
        let ticket = Self.artwork
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let server = try Xvfb(width: 1024, height: 700); defer { server.stop() }
        let (app, window) = try start(ticket, in: folder, server: server)
        // One xdotool run, a few milliseconds from end to end: zone 0 scrubbed open, and
        // at once, while it fades open (0.3 s), a short stroke in zone 4.
        let (x0, y0) = ticket.centre(0), (x, y) = ticket.centre(4)
        var steps = ["mousemove", "--window", "\(window)", "\(x0 - 120)", "\(y0 - 50)", "mousedown", "1"]
        for row in stride(from: y0 - 50, through: y0 + 50, by: 25) {
            steps += ["mousemove", "--window", "\(window)", "\(x0 + 120)", "\(row)", "mousemove", "--window", "\(window)", "\(x0 - 120)", "\(row + 12)"]
        }
        steps += ["mouseup", "1", "mousemove", "--window", "\(window)", "\(x - 100)", "\(y)", "mousedown", "1"]
        // Dabs along the zone, one at a time: each is its own repaint, during the fade.
        let dabs = [-90, -45, 0, 45, 90]
        for dx in dabs { steps += ["mousemove", "--window", "\(window)", "\(x + dx)", "\(y)", "sleep", "0.03"] }
        steps += ["mouseup", "1"]
        _ = try server.run("xdotool", steps)
        usleep(1_000_000)
        let image = try server.capture(window: window)
        let revealed = app.events.firstIndex { $0["event"] as? String == "zone-revealed" && $0["zone"] as? Int == 0 }
        let started = app.events.firstIndex { $0["event"] as? String == "zone-start" && $0["zone"] as? Int == 4 }
        #expect(revealed != nil && started != nil && revealed! < started!, "zone 0 was not open before the stroke in zone 4: the test did not try what it names")
        for dx in dabs { #expect(image[x + dx, y] != Self.panel, "the stroke in zone 4 at \(dx) is not on screen: \(image[x + dx, y])") }
        #expect(Self.starts(app) == [0, 4])
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
    }

    @Test("render --cover over a deck's ticket: the artwork is the ticket, the zones touched show the symbols in order; --prize is refused")
    func renderOnArtwork() throws {
        let ticket = Self.artwork
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(ticket, in: folder)
        let text = try String(contentsOfFile: deck, encoding: .utf8).replacingOccurrences(of: "\"cover\": \"ticket.png\", ", with: "")
        try Data(text.utf8).write(to: URL(fileURLWithPath: deck))
        let artwork = folder.appendingPathComponent("ticket.png").path
        var trace = "scratch-trace 1\ncanvas 960 640\nbrush 40\n"
        for zone in [5, 3, 1] {
            let (x, y) = ticket.centre(zone)
            trace += "down \(x - 110) \(y - 45)\n"
            for dy in stride(from: -45, through: 45, by: 15) { trace += "move \(x + 110) \(y + dy)\nmove \(x - 110) \(y + dy + 7)\n" }
            trace += "up\n"
        }
        let tracePath = folder.appendingPathComponent("t.trace").path, out = folder.appendingPathComponent("t.png").path
        try Data(trace.utf8).write(to: URL(fileURLWithPath: tracePath))
        let run = try runToExit(["render", "--trace", tracePath, "--deck", deck, "--card", "ticket", "--cover", artwork, "--out", out])
        #expect(run.status == 0, "\(run.err)")
        let image = try ImageFile.read(path: out)
        #expect(image.size == ticket.window)
        #expect(image[480, 80] == Self.header && image[20, 400] == Self.paper, "the artwork: \(image[480, 80]) \(image[20, 400])")
        for (n, zone) in [5, 3, 1].enumerated() {
            #expect(image[ticket.centre(zone).x, ticket.centre(zone).y] == ZoneTicketAppTests.symbolColours[n], "zone \(zone)")
        }
        let refused = try runToExit(["render", "--trace", tracePath, "--deck", deck, "--card", "ticket", "--prize", artwork, "--out", out])
        #expect(refused.status == 2 && refused.err.contains("--prize does not go with --deck and --card"), "\(refused.err)")
    }

    @Test("a claim ticket on the promoter's artwork: once revealed its code shows over it, the QR read off the screen is the code the event and the store hold; the top row's symbols stay in sight",
          .requires(Requirement.zbarimg))
    func claimTicketShowsItsCode() throws {
        let ticket = Self.artwork
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(ticket, in: folder, claim: true)
        let store = folder.appendingPathComponent("kiosk.db").path, key = folder.appendingPathComponent("promo.key").path
        _ = try ClaimKey.createFile(at: key)
        let server = try Xvfb(width: 1024, height: 700); defer { server.stop() }
        let app = try RunningApp(["--deck", deck, "--store", store, "--claim-key", key] + ticket.arguments, environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)")
        // Before the reveal no code is on screen.
        #expect(try ClaimKioskTests.zbar(try server.capture(window: window), in: folder) == [])
        try server.xdotool("mousemove", "--window", "\(window)", "5", "5")
        try server.xdotool("key", "Tab", "space", "Tab", "space", "Tab", "space")
        #expect(waitUntil(timeout: 15) { app.eventNames.contains("revealed") }, "\(app.eventNames)")
        let code = try #require(app.events.first { $0["event"] as? String == "revealed" }?["claim"] as? String, "the revealed event carries no claim")
        let shown = try server.waitForPixels(window: window, timeout: 10) { (try? ClaimKioskTests.zbar($0, in: folder)) == [code] }
        #expect(try ClaimKioskTests.zbar(shown, in: folder) == [code])
        for (n, zone) in [0, 1, 2].enumerated() {
            #expect(shown[ticket.centre(zone).x, ticket.centre(zone).y] == ZoneTicketAppTests.symbolColours[n], "zone \(zone) under the claim")
        }
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
        let claims = try runCommand(["claims", "--store", store])
        #expect(claims.out.hasPrefix(code + " ticket "), "\(claims.out)")
    }
}
