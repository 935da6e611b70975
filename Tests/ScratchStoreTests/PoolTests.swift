import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import ScratchCore
import PostgresSupport
@testable import ScratchStore

/// The connection string's checks: no server needed.
@Suite struct PoolAddressTests {
    @Test("a connection string or URI holding a password is refused, and the message never quotes it",
          arguments: ["postgresql://kiosk:hunter2@db.example/promo", "postgres://kiosk:hunter2@db/promo?sslmode=require",
                      "postgresql://db/promo?password=hunter2", "host=db password=hunter2", "host=db password = hunter2",
                      "host=db PASSWORD=hunter2"])
    func refusesPasswords(_ text: String) {
        do {
            _ = try PoolAddress(text, environment: [:])
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.kind == .badConnectionString)
            #expect(error.message.contains("PGPASSFILE"))
            #expect(!error.message.contains("hunter2"))
        }
    }

    @Test("PGPASSWORD in the environment is refused: the password comes from PGPASSFILE or ~/.pgpass only")
    func refusesPGPASSWORD() {
        #expect(throws: PoolError.self) { try PoolAddress("host=db", environment: ["PGPASSWORD": "hunter2"]) }
    }

    @Test("good strings are taken and described by host, port, database and user only")
    func describes() throws {
        let uri = try PoolAddress("postgresql://kiosk@db.example:5433/promo?sslmode=require&connect_timeout=2", environment: [:])
        #expect(uri.description.contains("host=db.example"))
        #expect(uri.description.contains("port=5433"))
        #expect(!uri.description.contains("sslmode"))
        let keywords = try PoolAddress("host=/run/postgresql dbname=promo user=kiosk", environment: [:])
        #expect(keywords.description.contains("dbname=promo"))
        #expect(throws: PoolError.self) { try PoolAddress("host=db =x", environment: [:]) }
        #expect(throws: PoolError.self) { try PoolAddress("", environment: [:]) }
        #expect(throws: PoolError.self) { try PoolAddress("postgresql://db/x?nosuch=1", environment: [:]) }
    }
}

/// The conninfo fuzz target's seeds and kept findings (Fuzz/conninfo), with its checks.
@Suite struct ConninfoFuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/conninfo")

    @Test("every seed and kept finding is accepted without a password or refused with a message that does not quote it")
    func replay() throws {
        var files: [URL] = []
        for kind in ["corpus", "regressions"] {
            files += (try? FileManager.default.contentsOfDirectory(at: Self.folder.appendingPathComponent(kind), includingPropertiesForKeys: nil)) ?? []
        }
        #expect(files.count >= 6)
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            do {
                let address = try PoolAddress(text, environment: [:])
                #expect(!PoolAddress.looksLikeItHoldsAPassword(address.conninfo), "\(file.lastPathComponent)")
            } catch {
                #expect(!error.message.isEmpty)
                #expect(!error.message.contains("secret"), "\(file.lastPathComponent): \(error.message)")
                if let range = text.range(of: "password=") {
                    let value = text[range.upperBound...].prefix { $0 != " " && $0 != "&" }
                    let fixed = error.message.hasPrefix("--pool: the connection string holds a password")
                        || error.message.hasSuffix("(check its syntax)")
                    #expect(value.count < 6 || fixed || !error.message.contains(value), "\(file.lastPathComponent): \(error.message)")
                }
            }
        }
    }
}

/// The pool against a real PostgreSQL server of the test's own.
@Suite(.serialized, .requires(PostgresServer.unavailable))
struct PoolTests {
    let bike = DeckCard(id: "bike", prize: "/p/bike.png", weight: 1, stock: 20)
    let thanks = DeckCard(id: "thanks", prize: "/p/thanks.png", weight: 3)

    func address(_ server: PostgresServer) throws -> PoolAddress {
        setenv("PGPASSFILE", server.passFile, 1)
        return try PoolAddress(server.conninfo, environment: [:])
    }

    func revealed() -> OutcomeRecord {
        OutcomeRecord(shownAt: 0, cardID: "", prize: "", outcome: .revealed, how: .threshold, fraction: 1,
                      revealMilliseconds: 10, durationMilliseconds: 20)
    }

    @Test("the server is our own: a unix socket in its folder, no TCP port, not running as root")
    func privateServer() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        #expect(try server.sql("SHOW listen_addresses") == "")
        #expect(try server.sql("SHOW unix_socket_directories") == server.folder)
        let uid = try String(contentsOfFile: "/proc/\(server.pid!)/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("Uid:") } ?? ""
        #expect(!uid.split(separator: "\t").dropFirst().contains("0"))
    }

    @Test("pool init creates and migrates the schema; a kiosk only checks it: missing and newer refused")
    func schema() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let pool = PostgresPool(address: try address(server), kioskID: "k")
        #expect(throws: PoolError.self) { try pool.connect(holdKioskID: true) }
        do { try pool.connect(holdKioskID: true) } catch { #expect(error.kind == .schema && error.message.contains("pool init")) }
        #expect(try pool.initialize(deck: Deck(cards: [bike, thanks])) == (0, PostgresPool.schemaVersion))
        #expect(try pool.initialize(deck: nil) == (PostgresPool.schemaVersion, PostgresPool.schemaVersion))
        try pool.connect(holdKioskID: true)
        #expect(try pool.stockTable()["bike"]?.stock == 20)
        pool.disconnect()
        try server.sql("UPDATE scratchcard_schema SET version = 99")
        do { try pool.connect(holdKioskID: true); Issue.record("a newer schema was accepted") } catch {
            #expect(error.kind == .schema && error.message.contains("newer"))
        }
        #expect(try server.sql("SELECT version FROM scratchcard_schema") == "99")     // checked, not changed
    }

    @Test("raising a card's stock in the deck and running pool init again adds prizes; what was dealt is kept")
    func restock() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let pool = PostgresPool(address: try address(server), kioskID: "k")
        let one = DeckCard(id: "bike", prize: "/p/bike.png", stock: 1)
        try pool.initialize(deck: Deck(cards: [one]))
        #expect(try pool.deal(DealID.random(), card: one, shownAt: 1))
        #expect(try !pool.deal(DealID.random(), card: one, shownAt: 1))
        try pool.initialize(deck: Deck(cards: [DeckCard(id: "bike", prize: "/p/bike.png", stock: 3)]))
        #expect(try pool.stockTable()["bike"]! == (3, 1))
        #expect(try pool.deal(DealID.random(), card: one, shownAt: 1))
    }

    @Test("a stocked card the pool does not list is never dealt; an unlimited one is")
    func unknownCards() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let pool = PostgresPool(address: try address(server), kioskID: "k")
        try pool.initialize(deck: nil)
        #expect(try !pool.deal(DealID.random(), card: bike, shownAt: 1))
        #expect(try pool.deal(DealID.random(), card: thanks, shownAt: 1))
    }

    @Test("8 ledgers dealing at once from 20 stocked prizes take exactly 20, each deal id once, each with one outcome")
    func neverOversold() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let address = try address(server)
        let deck = Deck(cards: [bike, thanks])!
        try PostgresPool(address: address, kioskID: "init").initialize(deck: deck)
        let counts = Counts()
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            do {
                let ledger = PoolLedger(store: try KioskStore(copyOf: nil), pool: PostgresPool(address: address, kioskID: "k\(k)"),
                                        log: { print($0) })
                try ledger.start()
                var previous: (deal: DealID, outcome: OutcomeRecord)?
                for _ in 0..<60 {
                    guard case let .dealt(id, card, offline) = try ledger.dealNext(from: deck, shownAt: 1, ending: previous) else { continue }
                    counts.add(card.stock != nil, offline)
                    previous = (id, revealed())
                }
                if let previous { try ledger.finish(previous.deal, outcome: previous.outcome) }
                #expect(ledger.drain(timeout: 30).waiting == 0)
            } catch {
                Issue.record("dealer \(k): \(error)")
            }
        }
        let deals = try PostgresPool(address: address, kioskID: "check").allDeals()
        #expect(deals.count == 480)
        #expect(Set(deals.map(\.deal)).count == 480)
        #expect(deals.filter { $0.cardID == "bike" }.count == 20)
        #expect(deals.allSatisfy { $0.outcomes == 1 && $0.outcome == "revealed" })
        #expect(try server.sql("SELECT dealt FROM stock WHERE card = 'bike'") == "20")
        #expect(counts.stocked == 20 && counts.offline == 0)
    }

    @Test("an outcome sent twice (a retry after a lost reply) is written once; a void gives the prize back, once")
    func exactlyOnce() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let pool = PostgresPool(address: try address(server), kioskID: "k")
        try pool.initialize(deck: Deck(cards: [bike, thanks]))
        let id = DealID.random()
        #expect(try pool.deal(id, card: bike, shownAt: 1))
        #expect(try pool.sendOutcome(id, revealed()))
        #expect(try !pool.sendOutcome(id, revealed()))
        #expect(try server.sql("SELECT count(*) FROM outcomes") == "1")
        let lost = DealID.random()
        #expect(try pool.deal(lost, card: bike, shownAt: 1))
        #expect(try pool.stockTable()["bike"]?.dealt == 2)
        #expect(try pool.voidDeal(lost))
        #expect(try !pool.voidDeal(lost))
        #expect(try !pool.voidDeal(DealID.random()))      // never dealt: nothing to void
        #expect(try pool.stockTable()["bike"]?.dealt == 1)
        // An offline deal sent twice is one deal.
        let offline = DealID.random()
        try pool.sendOfflineDeal(offline, cardID: "thanks", prize: "/p/thanks.png", shownAt: 2)
        try pool.sendOfflineDeal(offline, cardID: "thanks", prize: "/p/thanks.png", shownAt: 2)
        #expect(try server.sql("SELECT count(*) FROM deals WHERE offline") == "1")
    }

    @Test("a second running kiosk with the same kiosk id is refused")
    func kioskIDHeld() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let address = try address(server)
        try PostgresPool(address: address, kioskID: "x").initialize(deck: nil)
        let first = PostgresPool(address: address, kioskID: "shop-1")
        try first.connect(holdKioskID: true)
        let second = PostgresPool(address: address, kioskID: "shop-1")
        do { try second.connect(holdKioskID: true); Issue.record("a second kiosk took the same id") } catch {
            #expect(error.kind == .kioskIDInUse)
        }
        first.disconnect()
        #expect(waitFor { (try? second.connect(holdKioskID: true)) != nil })
    }

    @Test("server down: unlimited cards only, outcomes queued; back: sent in order, nothing lost or doubled")
    func offline() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let address = try address(server)
        let deck = Deck(cards: [bike, thanks])!
        try PostgresPool(address: address, kioskID: "init").initialize(deck: deck)
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let ledger = PoolLedger(store: store, pool: PostgresPool(address: address, kioskID: "k", connectTimeout: 2, timeout: 2),
                                log: { _ in })
        try ledger.start()
        var previous: (deal: DealID, outcome: OutcomeRecord)?
        for _ in 0..<10 {
            guard case let .dealt(id, _, offline) = try ledger.dealNext(from: deck, shownAt: 1, ending: previous) else {
                Issue.record("no deal online"); return
            }
            #expect(!offline)
            previous = (id, revealed())
        }
        server.kill9()
        var offlineDeals = 0
        for _ in 0..<30 {
            guard case let .dealt(id, card, offline) = try ledger.dealNext(from: deck, shownAt: 1, ending: previous) else {
                Issue.record("no consolation deal offline"); return
            }
            #expect(offline && card.id == "thanks")
            offlineDeals += 1
            previous = (id, revealed())
        }
        #expect(!ledger.isOnline)
        // With no consolation card in the deck: nothing is dealt, try again later.
        let onlyBikes = Deck(cards: [bike])!
        if case .offline(let retryIn) = try ledger.dealNext(from: onlyBikes, shownAt: 1, ending: nil) {
            #expect(retryIn > 0 && retryIn <= 40)
        } else {
            Issue.record("a stocked prize dealt offline")
        }
        try ledger.finish(previous!.deal, outcome: previous!.outcome)
        #expect(try store.outboxCount() > 30)
        try server.start()
        #expect(ledger.drain(timeout: 60).waiting == 0)
        let deals = try PostgresPool(address: address, kioskID: "check").allDeals()
        #expect(deals.count == 40)
        #expect(deals.filter(\.offline).count == offlineDeals)
        #expect(deals.allSatisfy { $0.outcomes == 1 })
        #expect(Set(deals.map(\.deal)) == Set(try store.dealsWithOutcomeCounts().map(\.deal)))
        #expect(try store.outboxCount() == 0)
    }

    @Test("a deal the pool gave that the kiosk never recorded (killed in between) is voided when it connects again")
    func voidsUnrecorded() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let address = try address(server)
        try PostgresPool(address: address, kioskID: "init").initialize(deck: Deck(cards: [bike, thanks]))
        do {
            let crashed = PostgresPool(address: address, kioskID: "k")
            #expect(try crashed.deal(DealID.random(), card: bike, shownAt: 1))
            crashed.disconnect()
        }
        let ledger = PoolLedger(store: try KioskStore(copyOf: nil), pool: PostgresPool(address: address, kioskID: "k"), log: { _ in })
        try ledger.start()
        #expect(try server.sql("SELECT outcome FROM outcomes") == "void")
        #expect(try server.sql("SELECT dealt FROM stock WHERE card = 'bike'") == "0")
    }
}

final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var stocked = 0, consolation = 0, offline = 0
    func add(_ isStocked: Bool, _ isOffline: Bool) {
        lock.lock(); defer { lock.unlock() }
        if isStocked { stocked += 1 } else { consolation += 1 }
        if isOffline { offline += 1 }
    }
}

func waitFor(timeout: Double = 10, _ done: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !done() && Date() < deadline { usleep(20_000) }
    return done()
}
