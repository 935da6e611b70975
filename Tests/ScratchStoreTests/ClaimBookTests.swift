import CardRules
import Foundation
@preconcurrency import Glibc
import PostgresSupport
import ScratchCore
import Testing
@testable import ScratchStore

/// One book of record for each claim: a pool kiosk's claims are the pool's (its store
/// keeps a copy it never redeems), a store's own claims the store's. Every way to redeem
/// ends in one conditional update in one book, whatever the order, the number of
/// counters, and the pool's outages.
@Suite(.serialized) struct ClaimBookTests {
    /// A stocked claim (dealt online only) and an unlimited one (dealt offline too).
    static let bike = DeckCard(id: "bike", prize: "/p/bike.png", stock: 20, claim: true)
    static let voucher = DeckCard(id: "voucher", prize: "/p/voucher.png", claim: true)
    static let issuer = ClaimIssuer(kiosk: "hall-1") { card, deal in card.claim ? "C" + deal.text.prefix(24).uppercased() : nil }

    static func code(_ deal: DealID) -> String { "C" + deal.text.prefix(24).uppercased() }

    /// The pool of the two claim cards.
    static func pool() throws -> TestPool { try TestPool(cards: [bike, voucher], issuer: issuer) }


    /// A counter at the store (a handle of its own, beside the kiosk's).
    static func redeemAtStore(_ path: String, _ code: String, _ counter: String) throws -> Redemption {
        try KioskStore(path: path, access: .counter).redeem(code: code, counter: counter, now: Date().timeIntervalSince1970)
    }

    static func deal(_ ledger: PoolLedger, _ card: DeckCard, offline: Bool) throws -> DealID {
        guard case let .dealt(id, _, wasOffline) = try ledger.dealNext(from: Deck(cards: [card])!, shownAt: 1_800_000_000, ending: nil) else {
            throw PostgresError("nothing dealt")
        }
        #expect(wasOffline == offline)
        return id
    }

    @Test("online: the store answers 'the pool's' before and after the pool pays; the pool pays once; in either order")
    func online() throws {
        let pool = try Self.pool()
        defer { pool.server.stop() }
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let ledger = pool.ledger(store)
        try ledger.start()
        let book = Redemption.belongsToPool(pool.address.description)
        #expect(!pool.address.description.contains("password"))

        // Store first, then the pool, then both again.
        let first = Self.code(try Self.deal(ledger, Self.bike, offline: false))
        #expect(try store.claims(code: first).first?.pool == pool.address.description)
        #expect(try Self.redeemAtStore(folder.store, first, "desk A") == book)
        guard case .redeemed(let paid) = try pool.redeem(first, "desk B") else { Issue.record("the pool did not pay"); return }
        #expect(paid.redeemedBy == "desk B")
        #expect(try Self.redeemAtStore(folder.store, first, "desk A") == book)
        #expect(try pool.redeem(first, "desk C") == .already(paid))
        #expect(try store.claims(code: first).first?.redeemedAt == nil, "the store's copy never changes")

        // The pool first, then the store.
        let second = Self.code(try Self.deal(ledger, Self.bike, offline: false))
        guard case .redeemed = try pool.redeem(second, "desk B") else { Issue.record("the pool did not pay"); return }
        #expect(try Self.redeemAtStore(folder.store, second, "desk A") == book)
        // The store's line says where it is redeemed.
        #expect(try store.claims(code: second).first?.text(grouped: "X").contains("redeemed at the pool only (\(pool.address.description))") == true)
    }

    @Test("offline then online: the store refuses (the pool's), the pool does not know it (unknown) until the outbox is sent; then exactly one success in any number of tries")
    func offlineThenOnline() throws {
        let pool = try Self.pool()
        defer { pool.server.stop() }
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let book = Redemption.belongsToPool(pool.address.description)
        let code: String
        do {
            let ledger = pool.ledger(store)
            try ledger.start()
            pool.server.kill9()
            let deal = try Self.deal(ledger, Self.voucher, offline: true)
            code = Self.code(deal)
            #expect(try store.outbox().contains { entry in
                if case .deal = entry.kind { return entry.deal == deal } else { return false }
            })
            #expect(try Self.redeemAtStore(folder.store, code, "desk A") == book)
            // The pool is down: a counter there cannot be answered at all.
            #expect(throws: PoolError.self) { try pool.redeem(code, "desk B") }
        }
        // The kiosk is off (its ledger gone, nothing sent); the pool is back.
        try pool.server.start()
        #expect(try pool.redeem(code, "desk B") == .unknown)
        #expect(try Self.redeemAtStore(folder.store, code, "desk A") == book)
        // The kiosk again: its outbox goes, the claim with it.
        let ledger = pool.ledger(store)
        try ledger.start()
        #expect(try store.outboxCount() == 0)
        var paid = 0, already = 0
        for k in 0..<12 {
            switch k % 3 == 0 ? try Self.redeemAtStore(folder.store, code, "desk \(k)") : try pool.redeem(code, "desk \(k)") {
            case .redeemed: paid += 1
            case .already: already += 1
            case .belongsToPool(let name): #expect(k % 3 == 0 && name == pool.address.description)
            case .unknown: Issue.record("unknown after the outbox was sent")
            }
        }
        #expect(paid == 1 && already == 7)
    }

    @Test("8 counters at once on one code, 4 at the store and 4 at the pool, each its own handle: exactly one redeems, for a claim dealt online, one dealt offline and sent, and a store's own claim")
    func eightCountersBothBooks() throws {
        let pool = try Self.pool()
        defer { pool.server.stop() }
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        store.claimIssuer = Self.issuer
        // Before the pool: a deal of the store's own (its book is the store).
        let own = Self.code(try #require(try store.deal(Self.voucher, shownAt: 1_800_000_000, ending: nil)))
        let ledger = pool.ledger(store)
        try ledger.start()
        let online = Self.code(try Self.deal(ledger, Self.bike, offline: false))
        pool.server.kill9()
        let offline = Self.code(try Self.deal(ledger, Self.voucher, offline: true))
        try pool.server.start()
        #expect(ledger.drain(timeout: 60).waiting == 0)

        let path = folder.store
        for (code, bookIsPool) in [(online, true), (offline, true), (own, false)] {
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 8) { k in
                do {
                    results.add(k % 2 == 0 ? try Self.redeemAtStore(path, code, "store-\(k)") : try pool.redeem(code, "pool-\(k)"))
                } catch { Issue.record("counter \(k): \(error)") }
            }
            #expect(results.redeemed == 1 && results.already == 3, "\(code): \(results.redeemed) redeemed, \(results.already) already")
            if bookIsPool {
                #expect(results.winner?.hasPrefix("pool-") == true && results.elsewhere == 4)
            } else {
                #expect(results.winner?.hasPrefix("store-") == true && results.unknown == 4)
            }
        }
    }

    /// A schema-3 store as scratchcard 3 left it: deals and claims, one redeemed.
    static func schema3Store(_ path: String) throws -> (open: String, redeemed: String) {
        let connection = try SQLiteConnection(path: path)
        for step in KioskStore.migrations.prefix(3) { try connection.execute(step) }
        try connection.execute("PRAGMA user_version = 3; PRAGMA application_id = \(KioskStore.applicationID)")
        for (deal, code, redeemed) in [("d1", "COPEN", "NULL"), ("d2", "CPAID", "1800000100")] {
            try connection.execute("INSERT INTO deals(deal, card, prize, shown_at) VALUES ('\(deal)', 'voucher', '/p/voucher.png', 1800000000)")
            try connection.execute("INSERT INTO claims(code, deal, kiosk, redeemed_at, redeemed_by) VALUES ('\(code)', '\(deal)', 'hall-1', \(redeemed), \(redeemed == "NULL" ? "NULL" : "'desk A'"))")
        }
        return ("COPEN", "CPAID")
    }

    @Test("schema 3 to 4: open claims wait for their book (refused, 'not settled'), a redeemed one stays the store's; a pool kiosk's start gives them to its pool, a kiosk without a pool keeps them")
    func migration() throws {
        let poolKiosk = try StoreFolder(), plainKiosk = try StoreFolder()
        let (open, paid) = try Self.schema3Store(poolKiosk.store)
        _ = try Self.schema3Store(plainKiosk.store)
        #expect { try KioskStore(path: poolKiosk.store, access: .counter) } throws: { ($0 as? StoreError)?.message.contains("older scratchcard") == true }
        // A reader sees the old store as it is.
        #expect(try KioskStore(path: poolKiosk.store, access: .read).claims().map(\.pool) == [nil, nil])

        let store = try KioskStore(path: poolKiosk.store, access: .kiosk)
        #expect(try store.connection.integer("PRAGMA user_version") == KioskStore.schemaVersion)
        #expect(try store.claims().map(\.pool) == ["", nil])
        #expect(try Self.redeemAtStore(poolKiosk.store, open, "desk B") == .belongsToPool(""))
        guard case .already(let before) = try Self.redeemAtStore(poolKiosk.store, paid, "desk B") else { Issue.record("not already"); return }
        #expect(before.redeemedBy == "desk A")
        // The kiosk starts with its pool (out of reach: settled all the same, before connecting).
        let address = try PoolAddress("host=\(poolKiosk.path)/nowhere dbname=promo user=kiosk", environment: [:])
        let ledger = PoolLedger(store: store, pool: PostgresPool(address: address, kioskID: "hall-1", connectTimeout: 1, timeout: 1), log: { _ in })
        try ledger.start()
        #expect(try Self.redeemAtStore(poolKiosk.store, open, "desk B") == .belongsToPool(address.description))
        #expect(try store.settleClaims(pool: nil) == 0, "settled once")
        #expect(try Self.redeemAtStore(poolKiosk.store, open, "desk B") == .belongsToPool(address.description))

        // Without a pool: the store's own, redeemed here once.
        let plain = try KioskStore(path: plainKiosk.store, access: .kiosk)
        #expect(try plain.settleClaims(pool: nil) == 1)
        guard case .redeemed = try Self.redeemAtStore(plainKiosk.store, open, "desk C") else { Issue.record("not redeemed"); return }
        guard case .already = try Self.redeemAtStore(plainKiosk.store, open, "desk D") else { Issue.record("redeemed twice"); return }
        // Both migrated stores pass the schema check as any reader opens them.
        _ = try KioskStore(path: poolKiosk.store, access: .read)
        _ = try KioskStore(path: plainKiosk.store, access: .counter)
    }

    @Test("tickets: queued twice for one deal is one row; the untaken ones listed with their bytes; taken once, with its job")
    func tickets() throws {
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let a = try #require(try store.deal(Self.voucher, shownAt: 1_800_000_000, ending: nil))
        let b = try #require(try store.deal(Self.voucher, shownAt: 1_800_000_010, ending: nil))
        var rng = SystemRandomNumberGenerator()
        let pdf = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(try store.queueTicket(deal: a, title: "claim ticket: voucher", pdf: pdf, now: 1_800_000_001))
        #expect(try !store.queueTicket(deal: a, title: "another", pdf: [1, 2, 3], now: 1_800_000_002))
        #expect(try store.queueTicket(deal: b, title: "claim ticket: voucher", pdf: [0x25, 0x50], now: 1_800_000_011))
        #expect(try store.connection.integer("SELECT count(*) FROM tickets") == 2)
        let untaken = try store.untakenTickets()
        #expect(untaken.map(\.deal) == [a, b])
        #expect(untaken.first == StoredTicket(deal: a, title: "claim ticket: voucher", pdf: pdf, queuedAt: 1_800_000_001))
        try store.ticketTaken(deal: a, job: 17, now: 1_800_000_003)
        try store.ticketTaken(deal: a, job: 99, now: 1_800_000_004)
        #expect(try store.untakenTickets().map(\.deal) == [b])
        #expect(try store.connection.integer("SELECT cups_job FROM tickets WHERE deal = '\(a.text)'") == 17)
        #expect(try store.connection.integer("SELECT length(pdf) FROM tickets WHERE deal = '\(a.text)'") == 0, "the taken PDF dropped")
        // Kept across a restart (another handle).
        #expect(try KioskStore(path: folder.store, access: .read).untakenTickets().map(\.pdf) == [[0x25, 0x50]])
    }
}

extension TestPool {
    /// A counter at the pool (a connection of its own).
    func redeem(_ code: String, _ counter: String) throws -> Redemption {
        try PostgresPool(address: address, kioskID: counter).redeem(code: code, counter: counter)
    }
}
