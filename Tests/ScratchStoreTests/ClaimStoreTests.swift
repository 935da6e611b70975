import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import CardRules
import ScratchCore
import PostgresSupport
@testable import ScratchStore

/// Claims in the kiosk's store and in the pool: written with the deal, redeemed once.
/// (The codes here are stand-ins: the store keeps what the issuer gives; the Claims
/// room's tests check real codes, the app's tests the two together.)
@Suite(.serialized) struct ClaimStoreTests {
    let bike = DeckCard(id: "bike", prize: "/p/bike.png", stock: 600)
    let thanks = DeckCard(id: "thanks", prize: "/p/thanks.png")
    /// Bikes are claims; their code is made from the deal, as the real issuer does.
    let issuer = ClaimIssuer(kiosk: "hall-1") { card, deal in card.id == "bike" ? "C" + deal.text.prefix(24).uppercased() : nil }

    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "claimstore-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test("a claim card's deal writes its claim in the same transaction; a counter redeems it once, beside the running kiosk")
    func storeRedeemsOnce() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try KioskStore(path: dir + "/kiosk.db", access: .kiosk)
        store.claimIssuer = issuer
        let won = try #require(try store.deal(bike, shownAt: 1_700_000_000, ending: nil))
        let lost = try #require(try store.deal(thanks, shownAt: 1_700_000_100, ending: nil))
        let code = "C" + won.text.prefix(24).uppercased()
        #expect(try store.claimCode(forDeal: won) == code)
        #expect(try store.claimCode(forDeal: lost) == nil)
        #expect(try store.claims().map(\.code) == [code])

        // The counter opens the store while the kiosk holds it.
        let counter = try KioskStore(path: dir + "/kiosk.db", access: .counter)
        guard case .redeemed(let first) = try counter.redeem(code: code, counter: "desk A", now: 1_700_000_500) else {
            Issue.record("not redeemed"); return
        }
        #expect(first.cardID == "bike" && first.kiosk == "hall-1" && first.deal == won && first.dealtAt == 1_700_000_000)
        #expect(first.redeemedBy == "desk A" && first.redeemedAt == 1_700_000_500)
        let second = try KioskStore(path: dir + "/kiosk.db", access: .counter)
        #expect(try second.redeem(code: code, counter: "desk B", now: 1_700_000_900) == .already(first))
        #expect(try second.redeem(code: "CNOSUCHCLAIM", counter: "desk B", now: 1) == .unknown)
        #expect(try store.claims().first?.redeemedBy == "desk A")
        #expect(first.text(grouped: "X").contains("redeemed 2023-11-14T22:21:40Z by desk A"))
    }

    @Test("a store of schema 2 gets its claims table when the kiosk opens it; a counter refuses one not migrated")
    func migration() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/kiosk.db"
        // Made by the migrations up to 2 (later ones change tables schema 2 had too).
        let connection = try SQLiteConnection(path: path)
        for step in KioskStore.migrations.prefix(2) { try connection.execute(step) }
        try connection.execute("PRAGMA user_version = 2; PRAGMA application_id = \(KioskStore.applicationID)")
        #expect { try KioskStore(path: path, access: .counter) } throws: { ($0 as? StoreError)?.message.contains("older scratchcard") == true }
        let store = try KioskStore(path: path, access: .kiosk)
        #expect(try store.claims().isEmpty)
        #expect(try connection.integer("PRAGMA user_version") == KioskStore.schemaVersion)
    }

    @Test("8 counters on one code in one store at once: exactly one redeems it")
    func storeRace() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try KioskStore(path: dir + "/kiosk.db", access: .kiosk)
        store.claimIssuer = issuer
        let won = try #require(try store.deal(bike, shownAt: 1, ending: nil))
        let code = "C" + won.text.prefix(24).uppercased()
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            do { results.add(try KioskStore(path: dir + "/kiosk.db", access: .counter).redeem(code: code, counter: "c\(k)", now: Double(k))) } catch {
                Issue.record("counter \(k): \(error)")
            }
        }
        #expect(results.redeemed == 1 && results.already == 7)
    }

    func address(_ server: PostgresServer) throws -> PoolAddress {
        setenv("PGPASSFILE", server.passFile, 1)
        return try PoolAddress(server.conninfo, environment: [:])
    }

    @Test("the pool: the deal statement writes the claim; redeemed once; the key's fingerprint is recorded and another refused",
          .requires(PostgresServer.unavailable))
    func poolClaims() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let address = try address(server)
        let admin = PostgresPool(address: address, kioskID: "init")
        try admin.initialize(deck: Deck(cards: [bike, thanks]))
        try admin.recordClaimKey(fingerprint: "aaaa")
        try admin.recordClaimKey(fingerprint: "aaaa")     // the same again: fine
        #expect { try admin.recordClaimKey(fingerprint: "bbbb") } throws: { ($0 as? PoolError)?.message.contains("another key") == true }

        let wrong = PostgresPool(address: address, kioskID: "k2")
        wrong.claimKeyFingerprint = "bbbb"
        #expect { try wrong.connect(holdKioskID: true) } throws: { ($0 as? PoolError)?.message.contains("not the pool's") == true }

        let pool = PostgresPool(address: address, kioskID: "hall-1")
        pool.claimKeyFingerprint = "aaaa"
        pool.claimIssuer = issuer
        let won = DealID.random()
        #expect(try pool.deal(won, card: bike, shownAt: 1_700_000_000))
        #expect(try pool.deal(DealID.random(), card: thanks, shownAt: 1))
        let code = "C" + won.text.prefix(24).uppercased()
        #expect(try pool.claims().map(\.code) == [code])
        // An offline deal's claim reaches the pool with the deal.
        let offline = DealID.random()
        try pool.sendOfflineDeal(offline, cardID: "thanks", prize: "/p/thanks.png", shownAt: 2, claim: "COFFLINE")
        #expect(try pool.claims(code: "COFFLINE").first?.deal == offline)

        let counter = PostgresPool(address: address, kioskID: "desk A")
        guard case .redeemed(let first) = try counter.redeem(code: code, counter: "desk A") else { Issue.record("not redeemed"); return }
        #expect(first.cardID == "bike" && first.kiosk == "hall-1" && first.dealtAt == 1_700_000_000 && first.redeemedBy == "desk A")
        #expect(first.redeemedAt.map { abs($0 - Date().timeIntervalSince1970) < 60 } == true)
        #expect(try counter.redeem(code: code, counter: "desk B") == .already(first))
        #expect(try counter.redeem(code: "CNOSUCH", counter: "desk B") == .unknown)
    }

    @Test("8 counters on one pool code at once: exactly one redeems it, seven are told who did",
          .requires(PostgresServer.unavailable))
    func poolRace() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let address = try address(server)
        let pool = PostgresPool(address: address, kioskID: "hall-1")
        try pool.initialize(deck: Deck(cards: [bike]))
        pool.claimIssuer = issuer
        let won = DealID.random()
        #expect(try pool.deal(won, card: bike, shownAt: 1))
        let code = "C" + won.text.prefix(24).uppercased()
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            do { results.add(try PostgresPool(address: address, kioskID: "c\(k)").redeem(code: code, counter: "c\(k)")) } catch {
                Issue.record("counter \(k): \(error)")
            }
        }
        #expect(results.redeemed == 1 && results.already == 7)
        #expect(results.alreadyBy.count == 7 && Set(results.alreadyBy).count == 1 && results.alreadyBy.first == results.winner)
    }
}

final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var redeemed = 0, already = 0, unknown = 0, elsewhere = 0
    private(set) var winner: String?
    private(set) var alreadyBy: [String] = []
    func add(_ r: Redemption) {
        lock.lock(); defer { lock.unlock() }
        switch r {
        case .redeemed(let c): redeemed += 1; winner = c.redeemedBy
        case .already(let c): already += 1; alreadyBy.append(c.redeemedBy ?? "")
        case .unknown: unknown += 1
        case .belongsToPool: elsewhere += 1
        }
    }
}
