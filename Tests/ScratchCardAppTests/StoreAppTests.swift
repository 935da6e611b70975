import CardFileSupport
import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchImage
import ScratchStore
import XvfbSupport

/// The kiosk's store as a user meets it: a card that survives kill -9, stock that runs
/// out honestly, the operator's commands, and the events that name the deal.
@Suite(.serialized) struct StoreAppTests {
    static let size = PixelSize(width: 160, height: 120)
    static let red = RGBA(r: 220, g: 30, b: 40), green = RGBA(r: 30, g: 200, b: 60), blue = RGBA(r: 20, g: 40, b: 230)

    static func deck(_ stocks: [Int?] = [3, 2, nil]) throws -> StockedDeck {
        let colours = [red, green, blue]
        let ids = ["bike", "cup", "sorry"]
        return try StockedDeck(stocks.enumerated().map { StockedDeck.Entry(id: ids[$0.offset], colour: colours[$0.offset], stock: $0.element) },
                               size: size)
    }

    @Test("kill -9 mid-scratch: the restarted kiosk shows the same card (same deal, resumed) with the same scratches as a replay of the store")
    func resumesAfterKill() throws {
        let deck = try Self.deck(); defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let first = try RunningApp(deck.kioskArguments(), environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { first.cardShown?.deal != nil })
        let shown = try #require(first.cardShown)
        try server.drag(window: window, from: (10, 20), through: [(50, 40), (90, 30), (150, 100)])
        try server.xdotool("mousemove", "20", "100", "mousedown", "1", "mousemove", "60", "110", "mousemove", "70", "60")
        usleep(400_000)     // past the 150 ms flush, the pen still down
        kill(first.pid, SIGKILL)
        first.wait()
        try server.xdotool("mouseup", "1")

        let second = try RunningApp(deck.kioskArguments(), environment: server.environment)
        defer { kill(second.pid, SIGKILL) }
        let window2 = try server.scratchcardWindow()
        #expect(waitUntil { second.cardShown != nil })
        let again = try #require(second.cardShown)
        #expect(again.card == shown.card && again.deal == shown.deal && again.resumed, "\(second.standardOutput)")
        #expect(second.events.first?["resumed"] as? Bool == true)
        let store = try KioskStore(path: deck.store, access: .read)
        let expected = try #require(try deck.expectedImage(store: store, brush: 16))
        #expect(expected.deal.deal.text == shown.deal)
        // Both drags are there: the second's last point too (saved while the pen was down).
        #expect(expected.deal.strokes.contains("m 0 70.5 60.5"), "\(expected.deal.strokes)")
        let image = try server.waitForPixels(window: window2) { differingPixels($0, expected.image) == 0 }
        #expect(differingPixels(image, expected.image) == 0)
        #expect(image[150, 100] == deck.colour(of: shown.card) && image[5, 115] == StockedDeck.cover)
    }

    @Test("restarted on a larger screen: the same card, its scratches carried over scaled (as a resize does), equal to the store's replay")
    func resumesOnAnotherScreenSize() throws {
        let deck = try Self.deck([nil]); defer { deck.remove() }
        do {
            let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
            let first = try RunningApp(deck.kioskArguments(), environment: server.environment)
            let window = try server.scratchcardWindow()
            #expect(waitUntil { first.cardShown?.deal != nil })
            try server.drag(window: window, from: (10, 20), through: [(80, 60), (150, 30)])
            usleep(400_000)
            kill(first.pid, SIGKILL)
            first.wait()
        }
        let large = PixelSize(width: 320, height: 240)
        let server = try Xvfb(width: large.width, height: large.height); defer { server.stop() }
        let second = try RunningApp(deck.kioskArguments(), environment: server.environment)
        defer { kill(second.pid, SIGKILL) }
        let window = try server.scratchcardWindow()
        #expect(waitUntil { second.cardShown?.resumed == true }, "\(second.standardOutput) \(second.standardError)")
        let store = try KioskStore(path: deck.store, access: .read)
        let expected = try #require(try deck.expectedImage(store: store, brush: 16, screen: large))
        #expect(expected.deal.strokes.hasPrefix("c 160 120 16\n"))
        let image = try server.waitForPixels(window: window) { differingPixels($0, expected.image) == 0 }
        #expect(differingPixels(image, expected.image) == 0)
        // The stroke from (10, 20) to (80, 60) on the small screen is at twice that here.
        #expect(image[90, 80] == Self.red && image[300, 220] == StockedDeck.cover)
    }

    @Test("a revealed card stays revealed after kill -9 until its idle reset; then a new deal, the old one revealed once")
    func revealedStaysRevealed() throws {
        let deck = try Self.deck([nil]); defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let first = try RunningApp(deck.kioskArguments(brush: 40, idleReset: 4), environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { first.cardShown?.deal != nil })
        for y in [20, 60, 100] { try server.drag(window: window, from: (0, y), through: [(80, y), (159, y)]) }
        #expect(waitUntil { first.eventNames.contains("revealed") })
        let deal = try #require(first.cardShown?.deal)
        usleep(100_000)
        kill(first.pid, SIGKILL)
        first.wait()

        let second = try RunningApp(deck.kioskArguments(brush: 40, idleReset: 4), environment: server.environment)
        defer { kill(second.pid, SIGKILL) }
        let window2 = try server.scratchcardWindow()
        #expect(waitUntil { second.cardShown != nil })
        #expect(second.cardShown?.deal == deal && second.cardShown?.resumed == true)
        let image = try server.waitForPixels(window: window2) { $0[2, 2] == Self.red && $0[157, 117] == Self.red }
        #expect(image[2, 2] == Self.red && image[157, 117] == Self.red, "the whole prize shows")
        // No second reveal event: it was revealed before.
        #expect(!second.eventNames.contains("revealed"))
        // The idle reset goes on from the reveal, not from the restart: a new card within the 4 s.
        #expect(waitUntil(timeout: 10) { second.eventNames.contains("new-card") })
        let store = try KioskStore(path: deck.store, access: .read)
        let rows = try store.dealsWithOutcomeCounts()
        #expect(rows.count == 2 && rows[0].deal.text == deal && rows[0].outcomes == 1 && rows[1].outcomes == 0)
        #expect(try store.outcomeRecords().map(\.outcome) == [.revealed])
    }

    @Test("a store that stalls for a second (its write lock held elsewhere): the window goes on drawing, the strokes that waited go in one commit after it, none lost")
    func stalledStoreDelaysButLosesNothing() throws {
        let deck = try Self.deck([nil]); defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let app = try RunningApp(deck.kioskArguments(), environment: server.environment)
        defer { kill(app.pid, SIGKILL); app.wait() }
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.cardShown?.deal != nil })
        let deal = try #require(app.cardShown?.deal)
        func strokeRows() throws -> Int {
            Int(try sqlite(deck.store, "SELECT count(*) FROM strokes WHERE deal = '\(deal)'").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        try server.xdotool("mousemove", "5", "10", "mousedown", "1", "mousemove", "10", "10")
        #expect(waitUntil(timeout: 3) { (try? strokeRows()) == 1 })

        // A second writer takes the store's write lock: every commit of the kiosk's waits.
        let holder = Process(), input = Pipe(), output = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        holder.arguments = [deck.store]
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 'locked';\n".utf8))
        let said = output.fileHandleForReading.availableData
        #expect(String(decoding: said, as: UTF8.self).contains("locked"))
        let stallStarted = Date()
        var points: [(Int, Int)] = []
        while Date().timeIntervalSince(stallStarted) < 0.8, points.count < 16 {  // batches due every 150 ms
            let step = points.count + 1
            let point = (10 + step * 9, 10 + step * 6)
            try server.xdotool("mousemove", "\(point.0)", "\(point.1)")
            points.append(point)
            usleep(30_000)
        }
        // The window did not wait for the store: the last point is scratched on screen.
        let prize = deck.colour(of: try #require(app.cardShown?.card))
        let image = try server.waitForPixels(window: window, timeout: 0.5) { $0[points.last!.0, points.last!.1] == prize }
        #expect(image[points.last!.0, points.last!.1] == prize)
        #expect(try strokeRows() == 1, "nothing can be committed while the lock is held")
        let stall = Date().timeIntervalSince(stallStarted)
        input.fileHandleForWriting.write(Data("COMMIT;\n.quit\n".utf8))
        holder.waitUntilExit()

        // Once the lock is free, everything sent is saved, in a commit or two, not one per batch.
        let store = try KioskStore(path: deck.store, access: .read)
        func saved() throws -> String { try store.pendingDeal()?.strokes ?? "" }
        #expect(waitUntil(timeout: 3) { points.allSatisfy { p in (try? saved())?.contains("m 0 \(Double(p.0) + 0.5) \(Double(p.1) + 0.5)") == true } },
                "after a \(stall) s stall: \((try? saved()) ?? "")")
        let rows = try strokeRows()
        #expect(rows >= 2 && rows <= 3, "\(rows) commits for the strokes of a \(stall) s stall (one in flight, then the rest together)")
        #expect(!app.standardError.contains("cannot save"), "\(app.standardError)")
    }

    /// The sqlite3 shell's output for one statement on `path`, read-only.
    func sqlite(_ path: String, _ statement: String) throws -> String {
        let shell = Process(), output = Pipe()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = ["-readonly", path, statement]
        shell.standardOutput = output
        try shell.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        shell.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("a scratched card left past its abandon time before the restart is abandoned at start")
    func abandonedAtStart() throws {
        let deck = try Self.deck([nil]); defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let first = try RunningApp(deck.kioskArguments(abandonReset: 1), environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { first.cardShown?.deal != nil })
        let deal = try #require(first.cardShown?.deal)
        try server.drag(window: window, from: (10, 20), through: [(50, 40)])
        usleep(300_000)
        kill(first.pid, SIGKILL)
        first.wait()
        usleep(1_200_000)       // past the abandon time, while nothing runs
        let second = try RunningApp(deck.kioskArguments(abandonReset: 1, extra: ["--log", deck.log]), environment: server.environment)
        defer { kill(second.pid, SIGKILL) }
        #expect(waitUntil { second.eventNames.contains("new-card") })
        #expect(second.events.first?["deal"] as? String == deal)
        let store = try KioskStore(path: deck.store, access: .read)
        #expect(try store.outcomeRecords().map(\.outcome) == [.abandoned])
        // --log has the line, written after the commit.
        let (records, _) = try OutcomeLog.read(path: deck.log)
        #expect(records.map(\.outcome) == [.abandoned])
    }

    @Test("a kiosk that exhausts a fully stocked deck shows the sold-out card; SIGHUP after the deck gains stock deals again")
    func soldOutThenRestocked() throws {
        let deck = try Self.deck([2]); defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let app = try RunningApp(deck.kioskArguments(abandonReset: 0.3), environment: server.environment)
        defer { kill(app.pid, SIGKILL) }
        let window = try server.scratchcardWindow()
        // Two deals: the first, then a scratch and the abandon reset gives the second; the third is sold out.
        #expect(waitUntil { app.cardShown?.deal != nil })
        for n in 1...2 {
            try server.drag(window: window, from: (10, 20), through: [(30, 30)])
            #expect(waitUntil { app.eventNames.filter { $0 == "new-card" }.count == n }, "\(app.eventNames)")
        }
        #expect(waitUntil { app.eventNames.contains("sold-out") }, "\(app.eventNames)")
        #expect(app.cardShown?.card == "sold-out" && app.cardShown?.deal == nil)
        #expect(app.standardError.contains("all prizes have been given away"))
        // The built-in card shows (its dark blue-grey), and scratching it does nothing.
        let soldOut = try server.waitForPixels(window: window) { $0[80, 5].b > $0[80, 5].r && $0[80, 5].r < 80 }
        #expect(soldOut[80, 5].r < 80, "\(soldOut[80, 5])")
        let before = app.eventNames.count
        try server.drag(window: window, from: (10, 20), through: [(150, 100)])
        usleep(700_000)
        #expect(app.eventNames.count == before, "the sold-out card takes no scratches and deals nothing: \(app.eventNames)")
        let counts = try KioskStore(path: deck.store, access: .read).dealtCounts()
        #expect(counts == ["bike": 2])

        try deck.writeDeck([StockedDeck.Entry(id: "bike", colour: Self.red, stock: 3)])
        kill(app.pid, SIGHUP)
        #expect(waitUntil { app.cardShown?.card == "bike" }, "\(app.eventNames) \(app.standardError)")
        #expect(app.process.isRunning, "SIGHUP reloads, it does not end the kiosk")
        #expect(app.standardError.contains("SIGHUP: reloaded the deck"))
        let fresh = try server.waitForPixels(window: window) { $0[80, 60] == StockedDeck.cover }
        #expect(fresh[80, 60] == StockedDeck.cover)
        #expect(try KioskStore(path: deck.store, access: .read).dealtCounts() == ["bike": 3])
    }

    @Test("--sold-out IMAGE: a deck with nothing left at start shows that image at once, says sold-out, and deals nothing on a touch")
    func ownSoldOutCard() throws {
        let deck = try Self.deck([0]); defer { deck.remove() }
        let purple = RGBA(r: 120, g: 20, b: 160)
        let image = try App.solidPNG(purple, size: Self.size, in: deck.folder, name: "gone.png")
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let app = try RunningApp(deck.kioskArguments(abandonReset: 0.3, extra: ["--sold-out", image]), environment: server.environment)
        defer { kill(app.pid, SIGKILL) }
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.eventNames.contains("sold-out") }, "\(app.eventNames) \(app.standardError)")
        #expect(app.cardShown?.card == "sold-out" && app.cardShown?.deal == nil)
        let shown = try server.waitForPixels(window: window) { $0[80, 60] == purple }
        #expect(shown[80, 60] == purple && shown[2, 2] == purple)
        try server.drag(window: window, from: (10, 20), through: [(150, 100)])
        usleep(800_000)
        #expect(app.eventNames == ["ready", "sold-out"], "\(app.eventNames)")
        #expect(try KioskStore(path: deck.store, access: .read).dealtCounts().isEmpty)
    }

    @Test("a store held by another running kiosk: exit 2 at once with a message naming the store and the pid")
    func secondKioskRefused() throws {
        let deck = try Self.deck(); defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let first = try RunningApp(deck.kioskArguments(), environment: server.environment)
        defer { kill(first.pid, SIGKILL) }
        #expect(waitUntil { first.cardShown != nil })
        let started = Date()
        let second = try RunningApp(deck.kioskArguments(), environment: server.environment)
        #expect(second.wait(timeout: 10) == 2)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(second.standardError.contains("\(deck.store): the store is in use by another running scratchcard (pid \(first.pid))"),
                "\(second.standardError)")
    }

    @Test("a corrupt or truncated store is moved aside (kiosk.db.corrupt-TIMESTAMP), said on stderr and in --log, and a new one started; the next start is clean",
          arguments: ["garbage", "truncated"])
    func corruptStoreMovedAside(damage: String) throws {
        let deck = try Self.deck(); defer { deck.remove() }
        try FileManager.default.createDirectory(atPath: (deck.store as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if damage == "garbage" {
            try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: deck.store))
        } else {
            // A store of some hundred deals, cut in the middle as a failing disk might.
            do {
                let store = try KioskStore(path: deck.store, access: .kiosk)
                var previous: DealID?
                for n in 0..<400 {
                    previous = try store.deal(DeckCard(id: "sorry", prize: "/p/sorry.png"), shownAt: Double(n),
                                              ending: previous.map { ($0, OutcomeRecord(shownAt: 0, cardID: "", prize: "", outcome: .revealed,
                                                                                        how: nil, fraction: 1, revealMilliseconds: nil, durationMilliseconds: 1)) })
                }
            }
            let url = URL(fileURLWithPath: deck.store)
            let bytes = try Data(contentsOf: url)
            try bytes.prefix(bytes.count / 2).write(to: url)
            try? FileManager.default.removeItem(atPath: deck.store + "-wal")
        }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        for run in 0..<2 {
            let app = try RunningApp(deck.kioskArguments(extra: ["--log", deck.log]), environment: server.environment)
            #expect(waitUntil { app.cardShown?.deal != nil }, "\(app.standardError)")
            kill(app.pid, SIGTERM)
            #expect(app.wait() == 0)
            let moved = app.standardError.contains("the store is damaged") && app.standardError.contains("moved aside as \(deck.store).corrupt-")
            #expect(moved == (run == 0), "\(app.standardError)")
        }
        let folder = (deck.store as NSString).deletingLastPathComponent
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("kiosk.db.corrupt-") && !$0.hasSuffix("-wal") }
        #expect(aside.count == 1, "\(aside)")
        let log = try String(contentsOfFile: deck.log, encoding: .utf8)
        #expect(log.contains("\"notice\":\"store-moved-aside\""))
        let (records, damaged) = try OutcomeLog.read(path: deck.log)
        #expect(damaged == 0 && records.map(\.outcome) == [.quit, .quit])
    }

    @Test("a store from a newer schema: exit 2 with a clear message, the file left alone")
    func newerSchemaRefused() throws {
        let deck = try Self.deck(); defer { deck.remove() }
        do { _ = try KioskStore(path: deck.store, access: .kiosk) }
        let result0 = try runCommand(["simulate", "--deck", deck.deck, "--count", "1", "--store", deck.store])
        #expect(result0.status == 0, "\(result0.err)")
        // Bump the version as a newer program would have.
        let bump = Process()
        bump.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        bump.arguments = [deck.store, "PRAGMA user_version = 9"]
        try bump.run(); bump.waitUntilExit()
        let result = try runCommand(deck.kioskArguments())
        #expect(result.status == 2)
        #expect(result.err.contains("\(deck.store): the store was written by a newer scratchcard (schema 9"), "\(result.err)")
        let stock = try runCommand(["stock", "--store", deck.store])
        #expect(stock.status == 2 && stock.err.contains("newer scratchcard"))
    }

    @Test("simulate --count 1000 with stock 3, 2 and unlimited never deals the first more than 3 times; the real store untouched")
    func simulateHonoursStock() throws {
        let deck = try Self.deck([3, 2, nil]); defer { deck.remove() }
        for seed in ["1", "2", "3"] {
            let result = try runCommand(["simulate", "--deck", deck.deck, "--count", "1000", "--seed", seed, "--json"])
            #expect(result.status == 0, "\(result.err)")
            let lines = result.out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let dealt = Dictionary(uniqueKeysWithValues: lines.map { ($0["card"] as! String, $0["dealt"] as! Int) })
            #expect(dealt["bike"]! <= 3 && dealt["cup"]! <= 2 && dealt.values.reduce(0, +) == 1000, "\(dealt)")
            #expect(dealt["bike"] == 3 && dealt["cup"] == 2, "1000 draws use up both stocks: \(dealt)")
        }
        // From a store that dealt 2 bikes already: at most 1 more; the store keeps its 2.
        do {
            let store = try KioskStore(path: deck.store, access: .kiosk)
            let bike = DeckCard(id: "bike", prize: "b", stock: 3)
            let a = try store.deal(bike, shownAt: 1, ending: nil)!
            _ = try store.deal(bike, shownAt: 2, ending: (a, OutcomeRecord(shownAt: 1, cardID: "bike", prize: "b", outcome: .revealed,
                                                                              how: .threshold, fraction: 1, revealMilliseconds: 1, durationMilliseconds: 2)))
        }
        let result = try runCommand(["simulate", "--deck", deck.deck, "--count", "1000", "--store", deck.store])
        #expect(result.out.contains("bike: dealt 1 (stock 3, left 0)"), "\(result.out)")
        #expect(try KioskStore(path: deck.store, access: .read).dealtCounts() == ["bike": 2])
        // A deck with only stocked cards: sold out after 5.
        let stocked = try Self.deck([3, 2]); defer { stocked.remove() }
        let out = try runCommand(["simulate", "--deck", stocked.deck, "--count", "1000"]).out
        #expect(out.contains("dealt=5 sold_out_after=5"), "\(out)")
    }

    @Test("stock: per card stock, dealt, left, revealed, abandoned (and --json); log-summary reads the store")
    func stockAndLogSummary() throws {
        let deck = try Self.deck([3, 2, nil]); defer { deck.remove() }
        do {
            let store = try KioskStore(path: deck.store, access: .kiosk)
            let bike = DeckCard(id: "bike", prize: "b", stock: 3), sorry = DeckCard(id: "sorry", prize: "s")
            func outcome(_ o: CardOutcome) -> OutcomeRecord {
                OutcomeRecord(shownAt: 1_800_000_000, cardID: "", prize: "", outcome: o, how: o == .revealed ? .threshold : nil,
                              fraction: 0.7, revealMilliseconds: nil, durationMilliseconds: 5)
            }
            let a = try store.deal(bike, shownAt: 1_800_000_000, ending: nil)!
            let b = try store.deal(sorry, shownAt: 1_800_000_001, ending: (a, outcome(.revealed)))!
            _ = try store.deal(bike, shownAt: 1_800_000_002, ending: (b, outcome(.abandoned)))!
        }
        let text = try runCommand(["stock", "--store", deck.store, "--deck", deck.deck])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out == """
            bike: stock 3 dealt 2 left 1 revealed 1 abandoned 0 quit 0
            cup: stock 2 dealt 0 left 2 revealed 0 abandoned 0 quit 0
            sorry: stock unlimited dealt 1 left unlimited revealed 0 abandoned 1 quit 0

            """, "\(text.out)")
        let json = try runCommand(["stock", "--store", deck.store, "--deck", deck.deck, "--json"]).out
        let first = try #require(json.split(separator: "\n").first)
        #expect(first == #"{"card":"bike","stock":3,"dealt":2,"left":1,"revealed":1,"abandoned":0,"quit":0}"#)
        let summary = try runCommand(["log-summary", deck.store])
        #expect(summary.status == 0)
        #expect(summary.out.hasPrefix("cards: 2\nby outcome: revealed 1 abandoned 1 quit 0\n"), "\(summary.out)")
        // No store there: a clear error, exit 2.
        let missing = try runCommand(["stock", "--store", deck.folder.appendingPathComponent("nope.db").path])
        #expect(missing.status == 2 && missing.err.contains("nope.db: no store there"), "\(missing.err)")
    }
}

// MARK: SIGHUP with a card file

/// A kiosk dealing from a card file (`--deck FILE.scratchcard`): SIGHUP reads the file
/// again whole, and the next cards are drawn from the new deck and read from the new
/// file; a replacement that does not load (or whose sound does not decode) leaves the
/// old deck dealing from the old file, which the kiosk holds in memory.
extension StoreAppTests {
    static let grey = RGBA(r: 150, g: 150, b: 160)

    /// `scratchcard make`: a card file at `out` with one card, a grey cover and a prize of
    /// `colour` (the screen's size, so no scaling) under the entry `prizeName`.
    static func makeCardFile(prize colour: RGBA, named prizeName: String, out: String, extra: [String] = []) throws {
        let images = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: images) }
        let cover = try App.solidPNG(grey, size: size, in: images, name: "cover.png")
        let prize = try App.solidPNG(colour, size: size, in: images, name: prizeName)
        try CardFileAppTests.make(["--cover", cover, "--prize", prize] + extra, out: out)
    }

    /// The kiosk on the card file, with the store beside it: reveal-resets after `idleReset`.
    static func cardFileKiosk(_ file: String, folder: URL, idleReset: Double) -> [String] {
        ["--kiosk", "--scale", "1", "--deck", file, "--store", folder.appendingPathComponent("kiosk.db").path, "--events",
         "--brush", "30", "--idle-reset", "\(idleReset)", "--abandon-reset", "60"]
    }

    /// `bytes` put in place of `file` as an operator should: written beside it, renamed over it.
    static func replaceAtomically(_ file: String, with bytes: Data) throws {
        let temporary = file + ".new"
        try bytes.write(to: URL(fileURLWithPath: temporary))
        #expect(rename(temporary, file) == 0)
    }

    /// Scratches a band across the middle (half the card, past a reveal-at of 30) and
    /// waits for the reveal; the whole prize then shows. Returns what the window shows.
    static func scratchUntilRevealed(_ app: RunningApp, server: Xvfb, window: UInt, revealsBefore: Int) throws -> RGBAImage {
        try server.drag(window: window, from: (0, 60), through: [(40, 60), (80, 60), (120, 60), (159, 60)])
        #expect(waitUntil { app.eventNames.filter { $0 == "revealed" }.count == revealsBefore + 1 }, "\(app.eventNames) \(app.standardError)")
        return try server.waitForPixels(window: window) { $0[80, 60] != grey && $0[80, 5] == $0[80, 60] && $0[5, 115] == $0[80, 60] }
    }

    @Test("SIGHUP after the card file is replaced: the next card is the new file's, its prize read from the new file (a new entry, or the same entry changed)",
          arguments: ["b.png", "a.png"])
    func cardFileReloaded(newPrizeEntry: String) throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cards.scratchcard").path
        try Self.makeCardFile(prize: Self.red, named: "a.png", out: file, extra: ["--reveal-at", "30"])
        let next = folder.appendingPathComponent("next.scratchcard").path
        // The new file's own reveal-at is not applied by a reload: its card reveals at 30 as well.
        try Self.makeCardFile(prize: Self.blue, named: newPrizeEntry, out: next, extra: ["--reveal-at", "100"])
        let newID = String(newPrizeEntry.dropLast(4))

        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let app = try RunningApp(Self.cardFileKiosk(file, folder: folder, idleReset: 5), environment: server.environment)
        defer { kill(app.pid, SIGKILL) }
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.cardShown?.card == "a" }, "\(app.eventNames) \(app.standardError)")
        #expect(try server.waitForPixels(window: window) { $0[80, 60] == Self.grey }[80, 60] == Self.grey, "A's cover")
        let first = try Self.scratchUntilRevealed(app, server: server, window: window, revealsBefore: 0)
        #expect(first[80, 60] == Self.red && first[80, 5] == Self.red, "A's prize: \(first[80, 60])")
        // Revealed: the kiosk makes its next card ahead from A's file meanwhile.
        usleep(1_000_000)

        try Self.replaceAtomically(file, with: try Data(contentsOf: URL(fileURLWithPath: next)))
        kill(app.pid, SIGHUP)
        #expect(waitUntil { app.standardError.contains("SIGHUP: reloaded the deck \(file) (1 cards)") }, "\(app.standardError)")
        #expect(app.standardError.contains("they take effect at the next start"), "\(app.standardError)")
        // The idle reset: the card made ahead from A's file is not shown; B's card is.
        #expect(waitUntil(timeout: 12) { app.eventNames.contains("new-card") }, "\(app.eventNames) \(app.standardError)")
        #expect(app.cardShown?.card == newID, "\(app.eventNames)")
        #expect(try server.waitForPixels(window: window) { $0[80, 60] == Self.grey }[80, 60] == Self.grey, "B's cover")
        let second = try Self.scratchUntilRevealed(app, server: server, window: window, revealsBefore: 1)
        #expect(second[80, 60] == Self.blue && second[80, 5] == Self.blue && second[5, 115] == Self.blue,
                "B's prize, read from the new file: \(second[80, 60])")
        #expect(!app.standardError.contains("cannot deal"), "\(app.standardError)")
        #expect(app.process.isRunning)
        // Two deals recorded: the card made ahead from A's file was never dealt.
        let counts = try KioskStore(path: folder.appendingPathComponent("kiosk.db").path, access: .read).dealtCounts()
        #expect(counts == (newID == "a" ? ["a": 2] : ["a": 1, "b": 1]), "\(counts)")
        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0, "\(app.standardError)")
    }

    /// Replacements a reload must refuse: a name, the file's bytes, what the message names.
    static func brokenReplacements(folder: URL) throws -> [(name: String, bytes: Data, mentions: String)] {
        let good = folder.appendingPathComponent("good.scratchcard").path
        try makeCardFile(prize: blue, named: "b.png", out: good)
        let whole = try Data(contentsOf: URL(fileURLWithPath: good))
        let png = try PNGFile.encode(RGBAImage(size: size, filledWith: blue))
        let cover = try PNGFile.encode(RGBAImage(size: size, filledWith: grey))
        let badSound = RawZip.card(json: #"{"cards": [{"id": "b", "prize": "b.png", "cover": "cover.png", "sound": "fanfare.wav"}]}"#,
                                   files: [RawZip.Entry("b.png", png), RawZip.Entry("cover.png", cover),
                                           RawZip.Entry("fanfare.wav", Array("RIFF\u{4}\0\0\0WAVEjunk".utf8))])
        let claim = RawZip.card(json: #"{"cards": [{"id": "b", "prize": "b.png", "cover": "cover.png", "claim": true}]}"#,
                                files: [RawZip.Entry("b.png", png), RawZip.Entry("cover.png", cover)])
        return [("not a card file", Data("just some text\n".utf8), "cards.scratchcard"),
                ("cut short", whole.prefix(whole.count / 2), "cards.scratchcard"),
                ("a sound that does not decode", Data(badSound.bytes), "fanfare.wav"),
                ("a claim card, and no --claim-key", Data(claim.bytes), "--claim-key")]
    }

    @Test("SIGHUP with a broken replacement (not a card file, cut short, a bad sound, a claim card without a key): the old deck goes on dealing from the old file",
          arguments: 0..<4)
    func cardFileReloadRefused(broken: Int) throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cards.scratchcard").path
        try Self.makeCardFile(prize: Self.red, named: "a.png", out: file, extra: ["--reveal-at", "30"])
        let replacement = try Self.brokenReplacements(folder: folder)[broken]

        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let app = try RunningApp(Self.cardFileKiosk(file, folder: folder, idleReset: 1.5), environment: server.environment)
        defer { kill(app.pid, SIGKILL) }
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.cardShown?.card == "a" }, "\(app.eventNames) \(app.standardError)")

        try Self.replaceAtomically(file, with: replacement.bytes)
        kill(app.pid, SIGHUP)
        #expect(waitUntil { app.standardError.contains("SIGHUP: the deck did not reload") }, "\(replacement.name): \(app.standardError)")
        let said = app.standardError.split(separator: "\n").first { $0.contains("did not reload") } ?? ""
        #expect(said.contains(replacement.mentions), "\(replacement.name): \(said)")
        #expect(app.process.isRunning, "a failed reload does not end the kiosk")

        // A's card, revealed; the reset deals again from A's deck, read from the old file
        // held in memory (the one on disk is broken).
        let first = try Self.scratchUntilRevealed(app, server: server, window: window, revealsBefore: 0)
        #expect(first[80, 60] == Self.red, "\(first[80, 60])")
        #expect(waitUntil { app.eventNames.contains("new-card") }, "\(app.eventNames) \(app.standardError)")
        #expect(app.cardShown?.card == "a", "\(app.eventNames)")
        #expect(try server.waitForPixels(window: window) { $0[80, 60] == Self.grey }[80, 60] == Self.grey, "A's cover again")
        let second = try Self.scratchUntilRevealed(app, server: server, window: window, revealsBefore: 1)
        #expect(second[80, 60] == Self.red && second[80, 5] == Self.red, "A's prize from the old file: \(second[80, 60])")
        #expect(!app.standardError.contains("cannot deal"), "\(app.standardError)")
        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0, "\(app.standardError)")
    }
}
