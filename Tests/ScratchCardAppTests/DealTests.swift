import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchImage
import XvfbSupport

/// Dealing a new card off the loop: with 4K PNGs a deal takes a while (about 1.5 s in a
/// debug build), and meanwhile the card on show takes input and repaints. Nothing here
/// times anything: the checks are on the order of events and on pixels.
@Suite(.serialized) struct DealTests {
    static let cover = RGBA(r: 190, g: 190, b: 195)
    static let gold = RGBA(r: 240, g: 160, b: 20)
    /// Two 4K images, shown in a small window: every deal decodes and scales them.
    static let imageSize = PixelSize(width: 3840, height: 2160)
    /// How long to wait for what must come: generous, for `make test-tsan`, where one
    /// deal of these images takes about 6 s (a resize re-lays out the card on show
    /// first, as long again).
    static let patience = 60.0

    /// A grey cover and a deck of one gold prize, both 4K, in a fresh folder.
    static func files() throws -> (card: SolidCard, deck: String) {
        let card = try SolidCard(cover: cover, prize: gold, size: imageSize, prizeName: "gold.png")
        let deck = card.folder.appendingPathComponent("deck")
        try FileManager.default.createDirectory(at: deck, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: card.prize, toPath: deck.appendingPathComponent("gold.png").path)
        return (card, deck.path)
    }

    func waitUntil(_ done: () -> Bool) -> Bool { ScratchCardAppTests.waitUntil(timeout: Self.patience, done) }

    func isAll(_ colour: RGBA, _ size: PixelSize) -> (RGBAImage) -> Bool {
        { image in image.size == size && stride(from: 0, to: image.bytes.count, by: 4).allSatisfy {
            image.bytes[$0] == colour.r && image.bytes[$0 + 1] == colour.g && image.bytes[$0 + 2] == colour.b } }
    }

    @Test("r with 4K deck images: a drag right after it scratches the card on show, on screen, before the new card comes fresh")
    func dragDuringSlowDeal() throws {
        let (card, deck) = try Self.files(); defer { card.remove() }
        let size = PixelSize(width: 320, height: 180)
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["--cover", card.cover, "--deck", deck, "--size", "320x180", "--scale", "1",
                                  "--brush", "20", "--events"], environment: server.environment)
        let window = try server.scratchcardWindow(timeout: Self.patience)
        _ = try server.waitForPixels(window: window, timeout: Self.patience, until: isAll(Self.cover, size))

        // One xdotool run: `r`, then at once a press and a drag across the middle.
        try server.xdotool("mousemove", "--window", "\(window)", "20", "90", "key", "r", "mousedown", "1",
                           "mousemove", "--window", "\(window)", "160", "90",
                           "mousemove", "--window", "\(window)", "300", "90", "mouseup", "1")

        // The scratch shows on screen while the new card is still being made: a capture
        // taken before any new-card event shows the prize along the drag.
        var scratchShownBeforeNewCard = false
        while !app.eventNames.contains("new-card") && !scratchShownBeforeNewCard {
            let before = app.eventNames.contains("new-card")
            let image = try server.capture(window: window)
            if !before, image[160, 90] == Self.gold, image[300, 90] == Self.gold { scratchShownBeforeNewCard = true }
            if !app.process.isRunning { break }
        }
        #expect(scratchShownBeforeNewCard, "the scratch was not on screen before the new card: \(app.eventNames)")

        // Then the new card comes, fresh: all cover again.
        #expect(waitUntil { app.eventNames.contains("new-card") }, "\(app.eventNames)")
        let fresh = isAll(Self.cover, size)(try server.waitForPixels(window: window, timeout: Self.patience,
                                                                     until: isAll(Self.cover, size)))
        #expect(fresh, "the new card is covered")

        try server.press("q", in: window)
        #expect(app.wait(timeout: Self.patience) == 0)
        // The press was taken by the card on show, before the new card replaced it.
        let kinds = app.eventNames
        #expect(kinds.first == "ready" && kinds.last == "quit", "\(kinds)")
        let start = try #require(kinds.firstIndex(of: "scratch-start"), "\(kinds)")
        let dealt = try #require(kinds.firstIndex(of: "new-card"), "\(kinds)")
        #expect(start < dealt, "the drag waited for the deal: \(kinds)")
        #expect(kinds.filter { $0 == "new-card" }.count == 1, "\(kinds)")
        #expect(app.events[dealt]["card"] as? String == "gold")
    }

    @Test("r, then a resize while the card is being made: the new card shows at the new size, fresh")
    func resizeDuringSlowDeal() throws {
        let (card, deck) = try Self.files(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["--cover", card.cover, "--deck", deck, "--size", "320x180", "--scale", "1",
                                  "--brush", "20", "--events"], environment: server.environment)
        let window = try server.scratchcardWindow(timeout: Self.patience)
        let small = PixelSize(width: 320, height: 180), large = PixelSize(width: 480, height: 270)
        _ = try server.waitForPixels(window: window, timeout: Self.patience, until: isAll(Self.cover, small))
        try server.drag(window: window, from: (20, 90), through: [(300, 90)])
        _ = try server.waitForPixels(window: window, timeout: Self.patience) { $0[160, 90] == Self.gold }

        try server.xdotool("mousemove", "--window", "\(window)", "1", "1", "key", "r",
                           "windowsize", "\(window)", "\(large.width)", "\(large.height)")
        #expect(waitUntil { app.eventNames.contains("new-card") }, "\(app.eventNames)")
        let shown = try server.waitForPixels(window: window, timeout: Self.patience, until: isAll(Self.cover, large))
        let fresh = isAll(Self.cover, large)(shown)
        #expect(fresh, "the new card fills the new size, covered: \(shown.size)")

        try server.press("q", in: window)
        #expect(app.wait(timeout: Self.patience) == 0)
        let kinds = app.eventNames.filter { $0 != "progress" }
        #expect(kinds == ["ready", "scratch-start", "new-card", "quit"], "\(kinds)")
    }

    @Test("kiosk with 4K deck images: an idle reset due before the next card is made waits for it asleep, then deals it")
    func kioskResetWaitsForTheCard() throws {
        let (card, deck) = try Self.files(); defer { card.remove() }
        let logPath = card.folder.appendingPathComponent("cards.log").path
        let screen = PixelSize(width: 200, height: 150)
        let server = try Xvfb(width: screen.width, height: screen.height); defer { server.stop() }
        // The reset is due 0.1 s after the reveal; the next card takes far longer to make.
        let app = try RunningApp(["--cover", card.cover, "--deck", deck, "--scale", "1", "--kiosk", "--events",
                                  "--brush", "60", "--idle-reset", "0.1", "--log", logPath], environment: server.environment)
        let window = try server.scratchcardWindow(timeout: Self.patience)
        #expect(waitUntil { app.eventNames.contains("ready") })
        for y in [20, 60, 100, 140] { try server.drag(window: window, from: (0, y), through: [(100, y), (199, y)]) }
        #expect(waitUntil { app.eventNames.contains("revealed") }, "\(app.eventNames)")
        let ticks = try cpuTicks(app.pid, thread: app.pid)
        #expect(waitUntil { app.eventNames.contains("new-card") }, "\(app.eventNames)")
        // A loop that spun while waiting would have burnt about a tick every 10 ms of the
        // deal (some 1.5 s in a debug build); the fade's frames take a few.
        let spent = try cpuTicks(app.pid, thread: app.pid) - ticks
        #expect(spent <= 25, "the loop used \(spent) ticks while the card was made")
        let fresh = isAll(Self.cover, screen)(try server.waitForPixels(window: window, timeout: Self.patience,
                                                                       until: isAll(Self.cover, screen)))
        #expect(fresh, "the new card is covered")
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: Self.patience) == 0)
        #expect(app.eventNames.filter { $0 == "new-card" }.count == 1, "\(app.eventNames)")
        let (records, damaged) = try OutcomeLog.read(path: logPath)
        #expect(damaged == 0)
        #expect(records.map(\.outcome) == [.revealed, .quit])
    }
}
