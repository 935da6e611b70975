import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchImage
import XvfbSupport

/// The card as a product, under Xvfb: reveal at the threshold, the keyboard, decks,
/// events for a kiosk controller, snapshots.
@Suite(.serialized) struct CardTests {
    static let cover = RGBA(r: 190, g: 190, b: 195)
    static let red = RGBA(r: 220, g: 30, b: 30)
    static let green = RGBA(r: 30, g: 180, b: 60)
    static let size = PixelSize(width: 120, height: 80)

    /// The grey cover over the red prize, in a fresh folder.
    static func files() throws -> SolidCard { try SolidCard(cover: cover, prize: red, size: size, prizeName: "red.png") }

    /// The events a run wrote, parsed.
    func events(_ app: RunningApp) throws -> [[String: Any]] {
        try app.standardOutput.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not an object: \(line)")
        }
    }

    func names(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["event"] as? String } }

    func isAll(_ colour: RGBA) -> (RGBAImage) -> Bool {
        { image in image.size == CardTests.size && stride(from: 0, to: image.bytes.count, by: 4).allSatisfy {
            image.bytes[$0] == colour.r && image.bytes[$0 + 1] == colour.g && image.bytes[$0 + 2] == colour.b } }
    }

    @Test("a drag past the threshold fades to the whole prize, with exactly one revealed event")
    func thresholdReveal() throws {
        let files = try Self.files(); defer { files.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["--cover", files.cover, "--prize", files.prize, "--scale", "1", "--brush", "20",
                                  "--events", "--reveal-at", "60"], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window, until: isAll(Self.cover))
        // Rows of scratching, each 40 px tall: the threshold falls in the second; the
        // third and fourth go on scratching a revealed card.
        for y in [10, 30, 50, 70] {
            try server.drag(window: window, from: (0, y), through: [(60, y), (119, y)])
        }
        let shown = try server.waitForPixels(window: window, until: isAll(Self.red))
        #expect(isAll(Self.red)(shown), "the whole prize once the fade has run")
        try server.press("q", in: window)
        #expect(app.wait() == 0)

        let log = try events(app)
        let kinds = names(log)
        #expect(kinds.first == "ready" && kinds.last == "quit", "\(kinds)")
        #expect(kinds.filter { $0 == "revealed" }.count == 1, "\(kinds)")
        #expect(kinds.filter { $0 == "scratch-start" }.count == 1, "\(kinds)")
        let revealed = try #require(log.first { $0["event"] as? String == "revealed" })
        #expect(revealed["how"] as? String == "threshold")
        #expect(revealed["card"] as? String == "red")
        let fraction = try #require(revealed["fraction"] as? Double)
        #expect(fraction >= 0.6 && fraction < 1)
        #expect((revealed["ms"] as? Int ?? -1) >= 0)
        let percents = log.compactMap { $0["percent"] as? Int }
        #expect(percents == Array(stride(from: 10, through: percents.last ?? 0, by: 10)) && percents.count >= 6, "\(percents)")
        let ready = try #require(log.first)
        #expect(ready["width"] as? Int == 120 && ready["height"] as? Int == 80 && ready["scale"] as? Double == 1)
    }

    @Test("Space reveals the whole card with the same fade; revealed says keyboard")
    func keyboardReveal() throws {
        let files = try Self.files(); defer { files.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["--cover", files.cover, "--prize", files.prize, "--events"], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window, until: isAll(Self.cover))
        try server.press("space", in: window)
        #expect(isAll(Self.red)(try server.waitForPixels(window: window, until: isAll(Self.red))))
        try server.press("Return", in: window)          // already revealed: nothing more
        try server.press("Escape", in: window)
        #expect(app.wait() == 0)
        let log = try events(app)
        #expect(names(log) == ["ready", "revealed", "quit"])
        #expect(log[1]["how"] as? String == "keyboard")
    }

    @Test("r deals a new card from the deck, drawn by weight, fresh and covered")
    func deckAndNewCard() throws {
        let files = try Self.files(); defer { files.remove() }
        _ = try App.solidPNG(Self.green, size: Self.size, in: files.folder, name: "green.png")
        let deck = files.folder.appendingPathComponent("deck.json").path
        try #"{"cards": [{"id": "lose", "prize": "red.png", "weight": 1}, {"id": "win", "prize": "green.png", "weight": 1}, {"id": "never", "prize": "red.png", "weight": 0}]}"#
            .write(toFile: deck, atomically: true, encoding: .utf8)
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["--cover", files.cover, "--deck", deck, "--events"], environment: server.environment)
        let window = try server.scratchcardWindow()
        var seen: [String] = []
        for round in 0..<6 {
            _ = try server.waitForPixels(window: window, until: isAll(Self.cover))
            #expect(isAll(Self.cover)(try server.capture(window: window)), "round \(round): a fresh card is covered")
            try server.press("space", in: window)
            let shown = try server.waitForPixels(window: window) { isAll(Self.red)($0) || isAll(Self.green)($0) }
            seen.append(isAll(Self.green)(shown) ? "win" : isAll(Self.red)(shown) ? "lose" : "?")
            try server.press("r", in: window)
        }
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        let log = try events(app)
        // The card each round named (ready, then new-card) is the prize that was shown.
        let dealt = log.filter { ["ready", "new-card"].contains($0["event"] as? String) }.compactMap { $0["card"] as? String }
        #expect(Array(dealt.prefix(6)) == seen, "\(dealt) vs \(seen)")
        #expect(!dealt.contains("never"))
        #expect(names(log).filter { $0 == "new-card" }.count == 6)
    }

    @Test("s saves a snapshot: a valid PNG identical to what the window shows")
    func snapshot() throws {
        let files = try Self.files(); defer { files.remove() }
        let shots = files.folder.appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["--cover", files.cover, "--prize", files.prize, "--scale", "1", "--brush", "8",
                                  "--snapshot-dir", shots.path], environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window, until: isAll(Self.cover))
        try server.drag(window: window, from: (10, 40), through: [(110, 45)])
        let shown = try server.waitForPixels(window: window) { $0[60, 42] == Self.red }
        try server.press("s", in: window)
        try server.press("s", in: window)
        let deadline = Date().addingTimeInterval(5)
        var names: [String] = []
        while names.count < 2 && Date() < deadline {
            usleep(20_000)
            // A snapshot being written is a hidden temporary file until its rename.
            names = ((try? FileManager.default.contentsOfDirectory(atPath: shots.path)) ?? []).filter { !$0.hasPrefix(".") }
        }
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        // Once it has ended, nothing but the snapshots is left (no temporary file).
        names = (try? FileManager.default.contentsOfDirectory(atPath: shots.path)) ?? []
        #expect(names.count == 2, "two snapshots, two names: \(names)")
        #expect(names.allSatisfy { $0.hasPrefix("scratchcard-") && $0.hasSuffix(".png") })
        for name in names {
            let saved = try PNGFile.read(path: shots.appendingPathComponent(name).path)
            #expect(saved == shown)
        }
    }
}
