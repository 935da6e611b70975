import CardRules
import Claims
import Foundation
@preconcurrency import Glibc
import PostgresSupport
import ScratchCore
import ScratchStore
import Testing
import XvfbSupport

/// One book of record, as counters meet it: a pool kiosk under Xvfb reveals claims (its
/// card scratched through XTest), and each is redeemed once through `--store` and once
/// through `--pool`, in both orders: the pool pays once, the store never (exit 7, naming
/// the pool and saying to redeem with --pool). Then the same with the pool down while
/// the claims are dealt (offline, from the outbox once it is back).
@Suite(.serialized)
struct ClaimBookAppTests {
    static let size = PixelSize(width: 320, height: 200)
    static let bike = RGBA(r: 200, g: 40, b: 40), thanks = RGBA(r: 40, g: 160, b: 60)

    /// A deck whose drawn card is a claim (`stock` nil: unlimited, dealt offline too), a
    /// consolation card never drawn, the key, and the pool initialised with both.
    struct PoolPromotion {
        let deck: StockedDeck
        let key: String
        let server: PostgresServer
        let pool: String
        init(stock: Int?) throws {
            deck = try StockedDeck([StockedDeck.Entry(id: "bike", colour: ClaimBookAppTests.bike, stock: stock),
                                    StockedDeck.Entry(id: "thanks", colour: ClaimBookAppTests.thanks, stock: nil, weight: 0)],
                                   size: ClaimBookAppTests.size)
            try (#"{"cards": [{"id": "bike", "prize": "bike.png", "claim": true"# + (stock.map { ", \"stock\": \($0)" } ?? "")
                + #"}, {"id": "thanks", "prize": "thanks.png", "weight": 0}]}"#).write(toFile: deck.deck, atomically: false, encoding: .utf8)
            key = deck.folder.appendingPathComponent("promo.key").path
            _ = try ClaimKey.createFile(at: key)
            server = try PostgresServer()
            pool = server.conninfo
            let initialized = try RedeemAppTests.run(["pool", "init", "--pool", pool, "--deck", deck.deck, "--claim-key", key],
                                                     environment: server.environment)
            #expect(initialized.status == 0, "\(initialized)")
        }

        /// How the pool names itself in messages (no password).
        var described: String { (try? PoolAddress(pool, environment: [:]).description) ?? "?" }

        func kiosk(on xvfb: Xvfb) throws -> RunningApp {
            var environment = xvfb.environment
            environment["PGPASSFILE"] = server.passFile
            return try RunningApp(deck.kioskArguments(brush: 40, idleReset: 1,
                                                      extra: ["--pool", pool, "--kiosk-id", "hall-1", "--claim-key", key]),
                                  environment: environment)
        }

        func redeem(_ code: String, store: Bool, counter: String) throws -> (status: Int32, out: String, err: String) {
            try RedeemAppTests.run(["redeem", code, "--claim-key", key, "--counter", counter] + (store ? ["--store", deck.store] : ["--pool", pool]),
                                   environment: server.environment)
        }

        func remove() {
            server.stop()
            deck.remove()
        }
    }

    /// Scratches the card on show row by row until it is revealed; its claim's code.
    static func reveal(_ app: RunningApp, _ xvfb: Xvfb, _ window: UInt) throws -> String? {
        let before = app.eventNames.filter { $0 == "revealed" }.count
        #expect(waitUntil(timeout: 20) { app.cardShown?.card == "bike" && app.cardShown?.deal != nil }, "\(app.standardError)")
        for y in stride(from: 20, to: size.height, by: 40) {
            try xvfb.drag(window: window, from: (0, y), through: [(size.width / 2, y), (size.width - 1, y)])
        }
        guard waitUntil(timeout: 15, { app.eventNames.filter { $0 == "revealed" }.count > before }) else {
            Issue.record("not revealed: \(app.eventNames) \(app.standardError)")
            return nil
        }
        let revealed = app.events.filter { $0["event"] as? String == "revealed" }[before]
        // The next card (after the idle reset), or the sold-out card, before the next scratch.
        _ = waitUntil(timeout: 15) { app.eventNames.filter { $0 == "new-card" }.count > before || app.eventNames.contains("sold-out") }
        return revealed["claim"] as? String
    }

    /// Both books, the store first or the pool first: the pool pays once, the store
    /// never; then both again: already redeemed at the pool, the pool's at the store.
    static func redeemBothWays(_ promo: PoolPromotion, _ code: String, storeFirst: Bool) throws {
        func atStore() throws {
            let answer = try promo.redeem(code, store: true, counter: "desk-a")
            #expect(answer.status == 7, "\(answer)")
            #expect(answer.out.contains("belongs to the pool at \(promo.described)") && answer.out.contains("redeem it with --pool"), "\(answer)")
            #expect(!answer.out.contains(code) && !answer.err.contains(code))
        }
        if storeFirst { try atStore() }
        let paid = try promo.redeem(code, store: false, counter: "desk-b")
        #expect(paid.status == 0 && paid.out.hasPrefix("valid: bike dealt ") && paid.out.contains("redeemed now by desk-b"), "\(paid)")
        if !storeFirst { try atStore() }
        let again = try promo.redeem(code, store: false, counter: "desk-c")
        #expect(again.status == 3 && again.out.hasPrefix("already redeemed ") && again.out.hasSuffix("by desk-b\n"), "\(again)")
        try atStore()
        // The store's copy was never paid; its listing says where it is.
        let plain = try ClaimCode(parsing: code).text
        let copy = try KioskStore(path: promo.deck.store, access: .read).claims(code: plain).first
        #expect(copy?.redeemedAt == nil && copy?.pool == promo.described, "\(String(describing: copy))")
    }

    @Test("a pool kiosk reveals two claims; each redeemed through --store and through --pool, in both orders: exactly one exit 0, the store's answer exit 7 naming the pool and --pool")
    func poolKioskClaims() throws {
        let promo = try PoolPromotion(stock: 2)
        defer { promo.remove() }
        let xvfb = try Xvfb(width: Self.size.width, height: Self.size.height)
        defer { xvfb.stop() }
        let kiosk = try promo.kiosk(on: xvfb)
        defer { if kiosk.process.isRunning { kill(kiosk.pid, SIGKILL) } }
        let window = try xvfb.scratchcardWindow()
        let first = try #require(try Self.reveal(kiosk, xvfb, window))
        let second = try #require(try Self.reveal(kiosk, xvfb, window))
        #expect(first != second)
        // Beside the running kiosk.
        try Self.redeemBothWays(promo, first, storeFirst: true)
        try Self.redeemBothWays(promo, second, storeFirst: false)
        kill(kiosk.pid, SIGTERM)
        #expect(kiosk.wait(timeout: 20) == 0, "\(kiosk.standardError)")
        // And after it ended: still the pool's.
        let after = try promo.redeem(first, store: true, counter: "desk-d")
        #expect(after.status == 7, "\(after)")
        #expect(try promo.server.sql("SELECT count(*) FROM claims WHERE redeemed_at IS NOT NULL") == "2")
    }

    @Test("the pool down while claims are dealt (offline, the claim card unlimited) and back before they are redeemed: the store refuses them all along (7), the pool pays each once")
    func offlineClaims() throws {
        let promo = try PoolPromotion(stock: nil)
        defer { promo.remove() }
        let xvfb = try Xvfb(width: Self.size.width, height: Self.size.height)
        defer { xvfb.stop() }
        let kiosk = try promo.kiosk(on: xvfb)
        defer { if kiosk.process.isRunning { kill(kiosk.pid, SIGKILL) } }
        let window = try xvfb.scratchcardWindow()
        #expect(waitUntil(timeout: 20) { kiosk.cardShown?.deal != nil }, "\(kiosk.standardError)")
        promo.server.kill9()
        var codes: [String] = []
        // The first card (and one made ahead) came from the pool; those after it are dealt offline.
        for _ in 0..<3 { if let code = try Self.reveal(kiosk, xvfb, window) { codes.append(code) } }
        #expect(codes.count == 3)
        // While the pool is down: the store refuses (the pool's), the pool cannot be asked.
        for code in codes {
            let store = try promo.redeem(code, store: true, counter: "desk-a")
            #expect(store.status == 7 && store.out.contains("belongs to the pool at \(promo.described)"), "\(store)")
            #expect(try promo.redeem(code, store: false, counter: "desk-b").status == 6)
        }
        try promo.server.start()
        let plain = try codes.map { "'" + (try ClaimCode(parsing: $0).text) + "'" }.joined(separator: ",")
        #expect(waitUntil(timeout: 90) { (try? promo.server.sql("SELECT count(*) FROM claims WHERE code IN (\(plain))")) == "3" },
                "the outbox sent: \(kiosk.standardError)")
        let offline = Int(try promo.server.sql("SELECT count(*) FROM claims c JOIN deals d ON d.deal = c.deal WHERE d.offline AND c.code IN (\(plain))")) ?? 0
        #expect(offline >= 2, "claims dealt offline: \(offline)")
        for (i, code) in codes.enumerated() { try Self.redeemBothWays(promo, code, storeFirst: i % 2 == 0) }
        #expect(try promo.server.sql("SELECT count(*) FROM claims WHERE code IN (\(plain)) AND redeemed_at IS NOT NULL") == "3")
    }
}
