import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import ScratchCore
import ScratchStore
import PostgresSupport
import XvfbSupport

/// Many kiosks, one prize pool, against a real PostgreSQL server of the test's own: 8
/// `pool deal` processes and a real kiosk under Xvfb scratched through XTest, all at once.
@Suite(.serialized, .requires(PostgresServer.unavailable))
struct PoolAppTests {
    static let size = PixelSize(width: 160, height: 120)
    static let bikeColour = RGBA(r: 220, g: 30, b: 40), thanksColour = RGBA(r: 20, g: 40, b: 230)
    static let dealers = 8, cardsEach = 300, bikes = 100

    /// What a run leaves: the pool and every local store, checked.
    struct Run {
        let server: PostgresServer
        let deck: StockedDeck
        let dealerStores: [String]
        var kioskStrokesWhileDown = 0
    }

    @Test("8 pool deal processes and a kiosk under Xvfb deal 300 each from 100 stocked prizes: exactly 100 awarded, no deal id twice, every deal one outcome")
    func eightDealersAndAKiosk() throws {
        try run(killing: false)
    }

    @Test("the same with the PostgreSQL server killed -9 and restarted twice mid-run and the kiosk killed -9 and restarted: still exactly 100, nothing lost or doubled, and the kiosk takes strokes while the server is down")
    func serverAndKioskKilled() throws {
        try run(killing: true)
    }

    @Test("a deck with no unlimited card and the pool out of reach: 'back in a moment' on show, nothing stocked dealt; the pool back: a prize taken from it")
    func backInAMoment() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let deck = try StockedDeck([StockedDeck.Entry(id: "bike", colour: Self.bikeColour, stock: 5, weight: 1)], size: Self.size)
        defer { deck.remove() }
        #expect(try runCommand(["pool", "init", "--pool", server.conninfo, "--deck", deck.deck], environment: server.environment).status == 0)
        server.kill9()
        let xvfb = try Xvfb(width: Self.size.width, height: Self.size.height)
        defer { xvfb.stop() }
        var environment = xvfb.environment
        environment["PGPASSFILE"] = server.passFile
        let kiosk = try RunningApp(deck.kioskArguments(brush: 40, idleReset: 0.5, extra: ["--pool", server.conninfo, "--kiosk-id", "k"]),
                                   environment: environment)
        defer { kill(kiosk.pid, SIGKILL) }
        let window = try xvfb.scratchcardWindow()
        #expect(waitUntil(timeout: 20) { kiosk.cardShown != nil })
        #expect(kiosk.cardShown?.card == "back-soon" && kiosk.cardShown?.deal == nil, "\(kiosk.standardOutput)")
        #expect(kiosk.standardError.contains("back in a moment"))
        // Neither the cover nor the prize: the built-in card, and scratching changes nothing.
        try xvfb.drag(window: window, from: (0, 60), through: [(80, 60), (159, 60)])
        usleep(300_000)
        let image = try xvfb.capture(window: window)
        #expect(image[80, 60] != Self.bikeColour && image[80, 60] != StockedDeck.cover)
        usleep(1_500_000)
        #expect(kiosk.eventNames.filter { $0 == "new-card" }.isEmpty, "nothing dealt while the pool is down")
        try server.start()
        #expect(waitUntil(timeout: 60) { kiosk.cardShown?.card == "bike" }, "\(kiosk.standardError)")
        let shown = try xvfb.waitForPixels(window: window) { $0[80, 60] == StockedDeck.cover }
        #expect(shown[80, 60] == StockedDeck.cover)
        #expect(try server.sql("SELECT count(*) FROM deals WHERE kiosk = 'k' AND from_stock") == "1")
    }

    @Test("a text card taken from the pool is drawn from the deck's words (OCR), and the pool records its title as the prize and its outcome")
    func textCardThroughThePool() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let deck = folder.appendingPathComponent("deck.json").path
        try Data(#"{"cards": [{"id": "bike", "text": "BICYCLE", "subtitle": "Ask at the counter", "stock": 3}]}"#.utf8)
            .write(to: URL(fileURLWithPath: deck))
        let initialized = try runCommand(["pool", "init", "--pool", server.conninfo, "--deck", deck], environment: server.environment)
        #expect(initialized.status == 0, "\(initialized.err)")
        let size = PixelSize(width: 640, height: 400)
        let xvfb = try Xvfb(width: 700, height: 460)
        defer { xvfb.stop() }
        var environment = xvfb.environment
        environment["PGPASSFILE"] = server.passFile
        let app = try RunningApp(["--deck", deck, "--size", "640x400", "--scale", "1", "--events",
                                  "--store", folder.appendingPathComponent("kiosk.db").path,
                                  "--pool", server.conninfo, "--kiosk-id", "k"], environment: environment)
        defer { kill(app.pid, SIGKILL) }
        let window = try xvfb.scratchcardWindow()
        #expect(waitUntil(timeout: 20) { app.cardShown?.deal != nil }, "\(app.standardError)")
        #expect(app.cardShown?.card == "bike")
        let cover = try xvfb.waitForPixels(window: window, until: TextCardTests.isDrawn(size))
        try xvfb.press("space", in: window)
        #expect(waitUntil { app.eventNames.contains("revealed") }, "Space reveals: \(app.eventNames)")
        // The fade and the sparks are over when two looks 1.2 s apart agree (TextCardTests).
        var last = cover, lastAt = Date.distantPast
        let shown = try xvfb.waitForPixels(window: window, timeout: 15) { image in
            guard Date().timeIntervalSince(lastAt) >= 1.2 else { return false }
            defer { last = image; lastAt = Date() }
            return image != cover && image == last
        }
        let text = try TextCardTests.ocr(TextCardTests.lettersOnly(shown), on: xvfb).lowercased()
        #expect(text.contains("bicycle") && text.contains("counter"), "OCR read: \(text)")
        try xvfb.press("q", in: window)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
        #expect(try server.sql("SELECT prize FROM deals WHERE kiosk = 'k'") == "BICYCLE")
        #expect(try server.sql("SELECT o.outcome FROM outcomes o JOIN deals d ON d.deal = o.deal WHERE d.kiosk = 'k'") == "revealed")
        #expect(try server.sql("SELECT dealt FROM stock WHERE card = 'bike'") == "1")
    }

    @Test("SIGHUP with a pool after the card file is replaced: the card taken ahead from the old file is given back (void in the pool), the new file's card is shown")
    func cardFileReloadedWithAPool() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cards.scratchcard").path
        try StoreAppTests.makeCardFile(prize: Self.bikeColour, named: "a.png", out: file, extra: ["--reveal-at", "30"])
        let next = folder.appendingPathComponent("next.scratchcard").path
        try StoreAppTests.makeCardFile(prize: Self.thanksColour, named: "b.png", out: next)
        let initialized = try runCommand(["pool", "init", "--pool", server.conninfo, "--deck", file], environment: server.environment)
        #expect(initialized.status == 0, "\(initialized.err)")
        let xvfb = try Xvfb(width: Self.size.width, height: Self.size.height)
        defer { xvfb.stop() }
        var environment = xvfb.environment
        environment["PGPASSFILE"] = server.passFile
        let app = try RunningApp(StoreAppTests.cardFileKiosk(file, folder: folder, idleReset: 5) + ["--pool", server.conninfo, "--kiosk-id", "k"],
                                 environment: environment)
        defer { kill(app.pid, SIGKILL) }
        let window = try xvfb.scratchcardWindow()
        #expect(waitUntil(timeout: 20) { app.cardShown?.card == "a" && app.cardShown?.deal != nil }, "\(app.standardError)")
        let first = try StoreAppTests.scratchUntilRevealed(app, server: xvfb, window: window, revealsBefore: 0)
        #expect(first[80, 60] == Self.bikeColour, "\(first[80, 60])")
        // Revealed: the next card is taken from the pool and made ahead, from A's file.
        #expect(waitUntil { (try? server.sql("SELECT count(*) FROM deals WHERE kiosk = 'k'")) == "2" }, "the card taken ahead")

        try StoreAppTests.replaceAtomically(file, with: try Data(contentsOf: URL(fileURLWithPath: next)))
        kill(app.pid, SIGHUP)
        #expect(waitUntil { app.standardError.contains("SIGHUP: reloaded the deck") }, "\(app.standardError)")
        #expect(waitUntil(timeout: 12) { app.eventNames.contains("new-card") }, "\(app.eventNames) \(app.standardError)")
        #expect(app.cardShown?.card == "b", "\(app.eventNames)")
        let second = try StoreAppTests.scratchUntilRevealed(app, server: xvfb, window: window, revealsBefore: 1)
        #expect(second[80, 60] == Self.thanksColour, "B's prize, read from the new file: \(second[80, 60])")
        #expect(waitUntil { (try? server.sql("SELECT count(*) FROM deals WHERE kiosk = 'k'")) == "4" }, "B's next card taken ahead")
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
        let deals = try server.sql("""
            SELECT d.card || ':' || coalesce(o.outcome, '-') FROM deals d LEFT JOIN outcomes o ON o.deal = d.deal
            WHERE d.kiosk = 'k' ORDER BY d.card, o.outcome
            """)
        // A's shown and revealed, A's taken ahead and given back, B's revealed, and the
        // card taken ahead from B's file when the kiosk ended (open; the next start voids it).
        #expect(deals.split(separator: "\n") == ["a:revealed", "a:void", "b:revealed", "b:-"], "\(deals)")
    }

    func run(killing: Bool) throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let deck = try StockedDeck([StockedDeck.Entry(id: "bike", colour: Self.bikeColour, stock: Self.bikes, weight: 1),
                                    StockedDeck.Entry(id: "thanks", colour: Self.thanksColour, stock: nil, weight: 3)], size: Self.size)
        defer { deck.remove() }
        let initialized = try runCommand(["pool", "init", "--pool", server.conninfo, "--deck", deck.deck], environment: server.environment)
        #expect(initialized.status == 0, "\(initialized.err)")

        let xvfb = try Xvfb(width: Self.size.width, height: Self.size.height)
        defer { xvfb.stop() }
        var kioskEnvironment = xvfb.environment
        kioskEnvironment["PGPASSFILE"] = server.passFile
        let kioskArguments = deck.kioskArguments(brush: 40, idleReset: 0.3, extra: ["--pool", server.conninfo, "--kiosk-id", "shop-kiosk"])
        var kiosk = try RunningApp(kioskArguments, environment: kioskEnvironment)
        var window = try xvfb.scratchcardWindow()
        #expect(waitUntil(timeout: 20) { kiosk.cardShown?.deal != nil }, "\(kiosk.standardError)")

        let dealerStores = (0..<Self.dealers).map { deck.folder.appendingPathComponent("dealer-\($0).db").path }
        let dealers = try (0..<Self.dealers).map { k in
            try RunningApp(["pool", "deal", "--pool", server.conninfo, "--deck", deck.deck, "--count", "\(Self.cardsEach)",
                            "--kiosk-id", "dealer-\(k)", "--store", dealerStores[k], "--pace", killing ? "15" : "2"],
                           environment: server.environment)
        }
        var kioskCards = 0
        /// One visitor: the card on show scratched row by row until revealed, then the
        /// next card awaited. Returns true when the first row's pixels showed the prize.
        func visit() throws -> Bool {
            guard let shown = kiosk.cardShown, let colour = deck.colour(of: shown.card) else { return false }
            let before = kiosk.eventNames.filter { $0 == "new-card" }.count
            try xvfb.drag(window: window, from: (0, 20), through: [(80, 20), (159, 20)])
            let image = try xvfb.waitForPixels(window: window) { $0[80, 20] == colour }
            let scratched = image[80, 20] == colour
            for y in [60, 100] { try xvfb.drag(window: window, from: (0, y), through: [(80, y), (159, y)]) }
            _ = waitUntil(timeout: 10) { kiosk.eventNames.filter { $0 == "new-card" }.count > before }
            kioskCards += 1
            return scratched
        }
        func totalDeals() -> Int { Int((try? server.sql("SELECT count(*) FROM deals")) ?? "") ?? 0 }

        var strokesWhileDown = 0
        if killing {
            for round in 0..<2 {
                // Let the dealers get going, then pull the plug on the database.
                #expect(waitUntil(timeout: 120) { totalDeals() > 300 + round * 600 })
                _ = try visit()
                server.kill9()
                // The kiosk carries on: a card scratched (its pixels read back) and the next dealt offline.
                for _ in 0..<2 where try visit() { strokesWhileDown += 1 }
                usleep(500_000)
                try server.start()
                if round == 0 {
                    // The kiosk killed -9 mid-card and started again.
                    let onShow = kiosk.cardShown?.deal
                    try xvfb.drag(window: window, from: (10, 10), through: [(30, 20)])
                    usleep(100_000)
                    kill(kiosk.pid, SIGKILL)
                    kiosk.wait()
                    kiosk = try RunningApp(kioskArguments, environment: kioskEnvironment)
                    window = try xvfb.scratchcardWindow()
                    #expect(waitUntil(timeout: 20) { kiosk.cardShown != nil }, "\(kiosk.standardError)")
                    let ready = kiosk.events.first { $0["event"] as? String == "ready" }
                    #expect(ready?["resumed"] as? Bool == true && ready?["deal"] as? String == onShow, "\(kiosk.standardOutput)")
                }
            }
            #expect(strokesWhileDown == 4, "the kiosk's strokes showed while the server was down")
        }
        // The kiosk goes on dealing beside them until they are done.
        while dealers.contains(where: { $0.process.isRunning }) { _ = try visit() }
        for dealer in dealers { #expect(dealer.wait(timeout: 600) == 0, "\(dealer.standardError.suffix(2000))") }
        kill(kiosk.pid, SIGTERM)
        #expect(kiosk.wait(timeout: 20) == 0, "\(kiosk.standardError)")
        #expect(kioskCards >= 3)

        // Each dealer's last line.
        var dealtByDealers = 0, stockedByDealers = 0
        for dealer in dealers {
            let last = dealer.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
            let fields = Dictionary(uniqueKeysWithValues: last.split(separator: " ").compactMap { pair -> (String, Int)? in
                let kv = pair.split(separator: "=")
                return kv.count == 2 ? (String(kv[0]), Int(kv[1]) ?? -1) : nil
            })
            #expect(Set(fields.keys) == ["dealt", "stocked", "consolation", "offline_waits"], "\(last)")
            #expect(fields["dealt"] == Self.cardsEach && fields["stocked"]! + fields["consolation"]! == Self.cardsEach)
            dealtByDealers += fields["dealt"] ?? 0
            stockedByDealers += fields["stocked"] ?? 0
        }

        // The pool: exactly 100 stocked prizes awarded (void deals gave theirs back).
        #expect(try server.sql("SELECT dealt FROM stock WHERE card = 'bike'") == "\(Self.bikes)")
        #expect(try server.sql("""
            SELECT count(*) FROM deals d JOIN outcomes o ON o.deal = d.deal WHERE d.from_stock AND o.outcome <> 'void'
            """) == "\(Self.bikes)")
        #expect(try server.sql("SELECT count(*) FROM deals WHERE card = 'bike' AND NOT from_stock") == "0")
        // Every deal with one outcome (the key makes two impossible; none missing).
        #expect(try server.sql("SELECT count(*) FROM deals d WHERE NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.deal = d.deal)") == "0")

        // No deal id twice, nothing lost: every local store's deals are in the pool, once,
        // with the same outcome; the pool has nothing else but voids.
        var local: [String: String] = [:]
        var duplicates = 0
        for (path, kioskID) in zip(dealerStores + [deck.store], (0..<Self.dealers).map { "dealer-\($0)" } + ["shop-kiosk"]) {
            let store = try KioskStore(path: path, access: .read)
            #expect(try store.outboxCount() == 0, "\(kioskID) still has records for the pool")
            for row in try store.dealsWithOutcomeCounts() {
                #expect(row.outcomes == 1, "\(kioskID): deal \(row.deal) has \(row.outcomes) outcomes locally")
                if local.updateValue(kioskID, forKey: row.deal.text) != nil { duplicates += 1 }
            }
        }
        #expect(duplicates == 0)
        let pool = try server.sql("SELECT d.deal, d.kiosk, o.outcome FROM deals d JOIN outcomes o ON o.deal = d.deal")
            .split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        let shown = pool.filter { $0[2] != "void" }
        #expect(shown.count == local.count, "pool \(shown.count) shown deals, local stores \(local.count)")
        #expect(shown.allSatisfy { local[$0[0]] == $0[1] })
        #expect(Set(shown.map { $0[0] }).count == shown.count)
        let kioskDeals = local.values.filter { $0 == "shop-kiosk" }.count
        #expect(dealtByDealers == Self.dealers * Self.cardsEach && local.count == dealtByDealers + kioskDeals)
        let kioskStocked = Int(try server.sql("""
            SELECT count(*) FROM deals d JOIN outcomes o ON o.deal = d.deal WHERE d.kiosk = 'shop-kiosk' AND d.from_stock AND o.outcome <> 'void'
            """)) ?? -1
        #expect(stockedByDealers + kioskStocked == Self.bikes)

        // The operator's view agrees.
        let stock = try runCommand(["stock", "--pool", server.conninfo, "--deck", deck.deck], environment: server.environment)
        #expect(stock.status == 0, "\(stock.err)")
        #expect(stock.out.contains("bike: stock \(Self.bikes) dealt \(Self.bikes) left 0"), "\(stock.out)")
        #expect(stock.out.contains("kiosk shop-kiosk: dealt \(kioskDeals)"), "\(stock.out)")
    }
}

/// The pool's options as a user meets them, no server needed: bad input is exit 2 with a
/// clear message, and a password is never echoed.
@Suite struct PoolOptionTests {
    @Test("a --pool holding a password is refused at once (kiosk, pool init, stock), without echoing it",
          arguments: [["--kiosk"], ["pool", "init"], ["stock"], ["pool", "deal", "--count", "1"]])
    func passwordRefused(_ command: [String]) throws {
        let deck = try StockedDeck([StockedDeck.Entry(id: "bike", colour: RGBA(r: 200, g: 0, b: 0), stock: 1)],
                                   size: PixelSize(width: 8, height: 8))
        defer { deck.remove() }
        for pool in ["postgresql://kiosk:hunter2secret@db.example/promo", "host=db.example password=hunter2secret"] {
            let result = try runToExit(command + ["--pool", pool, "--deck", deck.deck])
            #expect(result.status == 2, "\(command) \(result.err)")
            #expect(result.err.contains("PGPASSFILE"), "\(result.err)")
            #expect(!result.err.contains("hunter2secret") && !result.out.contains("hunter2secret"))
        }
    }

    @Test("'back in a moment' is a text card drawn at the window's size (CardArt, no image file): OCR reads its words")
    func backInAMomentIsATextCard() throws {
        let size = PixelSize(width: 640, height: 400)
        let deck = try StockedDeck([StockedDeck.Entry(id: "bike", colour: RGBA(r: 220, g: 30, b: 40), stock: 5)], size: size)
        defer { deck.remove() }
        let xvfb = try Xvfb(width: size.width, height: size.height)
        defer { xvfb.stop() }
        // A pool no server listens for: the kiosk starts offline, and the deck has no unlimited card.
        let pool = "host=\(deck.folder.path) dbname=pool"
        let kiosk = try RunningApp(deck.kioskArguments(extra: ["--pool", pool, "--kiosk-id", "k"]), environment: xvfb.environment)
        defer { kill(kiosk.pid, SIGKILL) }
        let window = try xvfb.scratchcardWindow()
        #expect(waitUntil(timeout: 20) { kiosk.cardShown != nil })
        #expect(kiosk.cardShown?.card == "back-soon", "\(kiosk.standardOutput)")
        let shown = try xvfb.waitForPixels(window: window, until: TextCardTests.isDrawn(size))
        #expect(shown[320, 5] != StockedDeck.cover && shown[320, 5] != RGBA(r: 220, g: 30, b: 40))
        let text = try TextCardTests.ocr(TextCardTests.lettersOnly(shown), on: xvfb).lowercased()
        #expect(text.contains("back") && text.contains("moment"), "OCR read: \(text)")
        #expect(text.contains("soon"), "the subtitle too; OCR read: \(text)")
    }

    @Test("--pool without --deck, a bad connection string, a bad --kiosk-id, pool without a verb: exit 2 naming the problem")
    func badInput() throws {
        let noDeck = try runToExit(["--kiosk", "--pool", "host=/nonexistent dbname=x", "--store", "/tmp/scratchcard-pool-\(getpid()).db"])
        #expect(noDeck.status == 2 && noDeck.err.contains("--pool: needs --deck"), "\(noDeck.err)")
        unlink("/tmp/scratchcard-pool-\(getpid()).db"); unlink("/tmp/scratchcard-pool-\(getpid()).db.lock")
        let bad = try runToExit(["pool", "init", "--pool", "host=x =y"])
        #expect(bad.status == 2 && bad.err.contains("not a PostgreSQL connection string"), "\(bad.err)")
        let id = try runToExit(["--kiosk-id", "", "--kiosk"])
        #expect(id.status == 2 && id.err.contains("--kiosk-id"), "\(id.err)")
        let verb = try runToExit(["pool"])
        #expect(verb.status == 2 && verb.err.contains("init, deal or stock"), "\(verb.err)")
        let unreachable = try runToExit(["stock", "--pool", "host=/nonexistent-socket-folder dbname=x"])
        #expect(unreachable.status == 2 && unreachable.err.contains("cannot reach the pool"), "\(unreachable.err)")
    }
}
