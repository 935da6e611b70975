import CardRules
import Foundation
@preconcurrency import Glibc
import PostgresSupport
import ScratchCore
import Testing
import TestRequirementTrait
@testable import ScratchStore

/// A "pick 3 of 9" ticket of words and images, and its picks as the window records them.
enum Ticket {
    static let zoneCard = ZoneCard(zones: (0..<9).map { ZoneOutline(x: Double($0 % 3) * 200, y: Double($0 / 3) * 120, width: 180, height: 100) },
                                   pick: 3, symbols: [.text("☕", colour: nil), .image("/srv/promo/lemon.png"), .text("☕", colour: nil)],
                                   decoys: Array(repeating: .text("🍒", colour: nil), count: 6))
    static let card = DeckCard(id: "lucky", prize: nil, claim: true, zoneCard: zoneCard)
    static let plain = DeckCard(id: "thanks", prize: "/p/thanks.png")
    static let issuer = ClaimIssuer(kiosk: "hall-1") { card, deal in card.claim ? "C" + deal.text.prefix(24).uppercased() : nil }

    /// The zones touched, in order, as the ticket's rules record them.
    static func picks(_ zones: [Int]) -> [ZonePick] {
        var ticket = ZoneTicket(zoneCount: 9, pick: 3)
        for zone in zones { _ = ticket.start(zone) }
        return ticket.picks(symbols: zoneCard.symbols)
    }

    static let played = picks([4, 0, 8])
    static let playedJSON = #"[{"zone":4,"symbol":"☕"},{"zone":0,"symbol":"lemon.png"},{"zone":8,"symbol":"☕"}]"#

    /// The text of the first row's first column (NULL: nil).
    static func value(_ store: KioskStore, _ sql: String) throws -> String? {
        let query = try store.connection.prepare(sql)
        return try query.step() ? query.optionalText(0) : nil
    }

    /// An outcome as the outbox gives it back: only what the pool is sent.
    static func sent(_ record: OutcomeRecord) -> OutcomeRecord {
        var sent = record
        sent.shownAt = 0
        sent.cardID = ""
        sent.prize = ""
        return sent
    }

    static func outcome(_ picks: [ZonePick]?, _ outcome: CardOutcome = .revealed) -> OutcomeRecord {
        var record = OutcomeRecord(shownAt: 1_800_000_000, cardID: "lucky", prize: "lucky", outcome: outcome,
                                   how: outcome == .revealed ? .threshold : nil, fraction: 0.3,
                                   revealMilliseconds: outcome == .revealed ? 4000 : nil, durationMilliseconds: 9000)
        record.picks = picks
        return record
    }
}

/// The picks in the kiosk's store (SQLite): written with the outcome, read back by every
/// reader, carried by the outbox; schema 5 from schema 4 with rows in it; damaged values.
@Suite struct PicksStoreTests {
    @Test("a ticket's outcome holds its picks with their symbols, written with it (alone or in the next deal's transaction), read back by another handle; other cards' hold none")
    func roundTrip() throws {
        #expect(Ticket.played == [ZonePick(zone: 4, symbol: "☕"), ZonePick(zone: 0, symbol: "lemon.png"), ZonePick(zone: 8, symbol: "☕")])
        let folder = try StoreFolder()
        do {
            let store = try KioskStore(path: folder.store, access: .kiosk)
            store.claimIssuer = Ticket.issuer
            let first = try #require(try store.deal(Ticket.card, shownAt: 1_800_000_000, ending: nil))
            // Ended by the next deal: in that deal's transaction.
            let second = try #require(try store.deal(Ticket.card, shownAt: 1_800_000_010, ending: (first, Ticket.outcome(Ticket.played))))
            let third = try #require(try store.deal(Ticket.plain, shownAt: 1_800_000_020, ending: nil))
            #expect(try store.finish(second, outcome: Ticket.outcome(Ticket.picks([2]), .abandoned)))
            #expect(try !store.finish(second, outcome: Ticket.outcome(Ticket.picks([5, 6]))), "an outcome is written once, picks and all")
            #expect(try store.finish(third, outcome: Ticket.outcome(nil)))
            #expect(try Ticket.value(store, "SELECT picks FROM outcomes WHERE deal = '\(first.text)'") == Ticket.playedJSON)
            #expect(try store.connection.integer("SELECT count(*) FROM outcomes WHERE picks IS NULL") == 1)
        }
        let reader = try KioskStore(path: folder.store, access: .read)
        let (records, unreadable) = try reader.readOutcomes()
        #expect(unreadable == 0)
        #expect(records.map(\.picks) == [Ticket.played, [ZonePick(zone: 2, symbol: "☕")], nil])
        #expect(records.map(\.outcome) == [.revealed, .abandoned, .revealed])
        // The claims carry their ticket's picks; the plain card has no claim.
        let claims = try reader.claims()
        #expect(claims.map(\.picks) == [Ticket.played, [ZonePick(zone: 2, symbol: "☕")]])
        #expect(claims[0].text(grouped: "G").hasSuffix(" open; picks zone 4 ☕, zone 0 lemon.png, zone 8 ☕"), "\(claims[0].text(grouped: "G"))")
        #expect(claims[0].json(grouped: "G").hasSuffix(#","pool":null,"picks":\#(Ticket.playedJSON)}"#), "\(claims[0].json(grouped: "G"))")
        // A counter redeeming it sees the same record.
        guard case .redeemed(let paid) = try KioskStore(path: folder.store, access: .counter)
            .redeem(code: claims[0].code, counter: "desk", now: 1_800_000_100) else { Issue.record("not redeemed"); return }
        #expect(paid.picks == Ticket.played)
    }

    @Test("a ticket's claim before it ends has no picks; a ticket ended with none picked says none")
    func beforeAndNone() throws {
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        store.claimIssuer = Ticket.issuer
        let deal = try #require(try store.deal(Ticket.card, shownAt: 1_800_000_000, ending: nil))
        let open = try #require(try store.claims().first)
        #expect(open.picks == nil && !open.picksUnreadable && !open.text(grouped: "G").contains("picks"))
        #expect(open.json(grouped: "G").hasSuffix(#""picks":null}"#))
        try store.finish(deal, outcome: Ticket.outcome([], .quit))
        #expect(try store.claims().first?.text(grouped: "G").hasSuffix("; picks none") == true)
        #expect(try store.claims().first?.json(grouped: "G").hasSuffix(#""picks":[]}"#) == true)
    }

    /// A schema-4 store as scratchcard with claim books left it: a ticket's outcome (its
    /// picks then only in the log), an open deal, a claim, an outcome waiting in the outbox.
    static func schema4Store(_ path: String) throws -> (ended: DealID, open: DealID) {
        let connection = try SQLiteConnection(path: path)
        for step in KioskStore.migrations.prefix(4) { try connection.execute(step) }
        try connection.execute("PRAGMA user_version = 4; PRAGMA application_id = \(KioskStore.applicationID)")
        try connection.execute("""
            INSERT INTO deals(deal, card, prize, shown_at) VALUES ('d1', 'lucky', 'lucky', 1800000000), ('d2', 'lucky', 'lucky', 1800000050);
            INSERT INTO outcomes(deal, outcome, how, fraction, reveal_ms, duration_ms, ended_at)
                VALUES ('d1', 'revealed', 'threshold', 0.4, 3000, 8000, 1800000020);
            INSERT INTO claims(code, deal, kiosk) VALUES ('CD1', 'd1', 'hall-1');
            INSERT INTO pool_outbox(deal, kind, outcome, how, fraction, reveal_ms, duration_ms)
                VALUES ('d1', 'outcome', 'revealed', 'threshold', 0.4, 3000, 8000);
            """)
        return (DealID("d1"), DealID("d2"))
    }

    @Test("schema 4 to 5 with rows in it: read as it is before (no picks), migrated by the kiosk's open keeping every row (their picks NULL), then the open deal's outcome holds its picks; a counter is not turned away meanwhile")
    func migration() throws {
        let folder = try StoreFolder()
        let (ended, open) = try Self.schema4Store(folder.store)
        // Readers beside an older kiosk: the old store read as it is.
        let old = try KioskStore(path: folder.store, access: .read)
        #expect(try old.readOutcomes().records.map(\.picks) == [nil])
        #expect(try old.claims().map(\.code) == ["CD1"])
        _ = try KioskStore(path: folder.store, access: .counter)

        let store = try KioskStore(path: folder.store, access: .kiosk)
        #expect(try store.connection.integer("PRAGMA user_version") == 5)
        #expect(KioskStore.schemaVersion == 5)
        #expect(try store.pendingDeals() == [open])
        #expect(try store.dealsWithOutcomeCounts().map(\.outcomes) == [1, 0])
        let waiting = OutcomeRecord(shownAt: 0, cardID: "", prize: "", outcome: .revealed, how: .threshold, fraction: 0.4,
                                    revealMilliseconds: 3000, durationMilliseconds: 8000)
        #expect(try store.outbox().map(\.kind) == [.outcome(waiting)])
        #expect(try store.outbox().map(\.deal) == [ended])
        #expect(try store.claims().map(\.picks) == [nil])
        // The open deal ends now, picks and all, through the outbox too.
        #expect(try store.finishQueued(open, outcome: Ticket.outcome(Ticket.played)))
        #expect(try store.readOutcomes().records.map(\.picks) == [nil, Ticket.played])
        #expect(try store.outbox().map(\.kind) == [.outcome(waiting), .outcome(Ticket.sent(Ticket.outcome(Ticket.played)))])
        // The migrated store passes the schema check as each reader opens it.
        _ = try KioskStore(path: folder.store, access: .read)
        _ = try KioskStore(path: folder.store, access: .counter)
    }

    @Test("a damaged picks value (a hand edit, a bad page): the record is kept and counted, its picks left out and said so; the claim still redeems; the outbox sends the outcome without them", arguments: [
        "not json", #"[{"zone":4,"symbol":"☕"},{"zone":4,"symbol":"☕"}]"#, #"[{"zone":-3}]"#, "x'00ff'",
    ])
    func damaged(value: String) throws {
        let folder = try StoreFolder()
        do {
            let store = try KioskStore(path: folder.store, access: .kiosk)
            store.claimIssuer = Ticket.issuer
            let deal = try #require(try store.deal(Ticket.card, shownAt: 1_800_000_000, ending: nil))
            #expect(try store.finishQueued(deal, outcome: Ticket.outcome(Ticket.played)))
            let literal = value.hasPrefix("x'") ? value : "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
            try store.connection.execute("UPDATE outcomes SET picks = \(literal); UPDATE pool_outbox SET picks = \(literal)")
        }

        let reader = try KioskStore(path: folder.store, access: .read)
        let (records, unreadable) = try reader.readOutcomes()
        #expect(records.count == 1 && records[0].picks == nil && unreadable == 1)
        let claim = try #require(try reader.claims().first)
        #expect(claim.picks == nil && claim.picksUnreadable)
        #expect(claim.text(grouped: "G").hasSuffix("; picks unreadable (a damaged value)"))
        #expect(claim.json(grouped: "G").hasSuffix(#""picks":null}"#))
        guard case .redeemed = try KioskStore(path: folder.store, access: .counter).redeem(code: claim.code, counter: "desk", now: 1_800_000_100) else {
            Issue.record("a claim whose picks are damaged did not redeem"); return
        }
        // Still a sound store for the kiosk (integrity and schema checked, nothing to move
        // aside); its outbox sends the outcome without the picks.
        let kiosk = try KioskStore(path: folder.store, access: .kiosk)
        #expect(try kiosk.outbox().map(\.kind) == [.outcome(Ticket.sent(Ticket.outcome(nil)))])
    }
}

/// The picks in the shared pool (PostgreSQL): sent with the outcome, online and from the
/// outbox after an outage, listed with the claims; the pool's schema 3 from schema 2.
@Suite(.serialized, .requires(PostgresServer.unavailable))
struct PicksPoolTests {
    /// The pool of the ticket and a plain card (`initialized` false: left empty).
    static func pool(initialized: Bool = true) throws -> TestPool {
        try TestPool(cards: initialized ? [Ticket.card, Ticket.plain] : nil, issuer: Ticket.issuer)
    }

    static func deal(_ ledger: PoolLedger, offline: Bool, ending: (deal: DealID, outcome: OutcomeRecord)? = nil) throws -> DealID {
        guard case let .dealt(id, card, wasOffline) = try ledger.dealNext(from: Deck(cards: [Ticket.card])!, shownAt: 1_800_000_000, ending: ending) else {
            throw PostgresError("nothing dealt")
        }
        #expect(wasOffline == offline)
        // The pool's card is the deck's ticket, zones and all (its stock the pool's).
        #expect(card.zoneCard == Ticket.zoneCard)
        return id
    }

    @Test("online: the pool's outcome holds the ticket's picks as the store's does, and the pool's claims list them")
    func online() throws {
        let pool = try Self.pool()
        defer { pool.server.stop() }
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let ledger = pool.ledger(store)
        try ledger.start()
        let first = try Self.deal(ledger, offline: false)
        let second = try Self.deal(ledger, offline: false, ending: (first, Ticket.outcome(Ticket.played)))
        #expect(try ledger.finish(second, outcome: Ticket.outcome(Ticket.picks([7]), .abandoned)))
        #expect(ledger.drain(timeout: 30).waiting == 0)
        let picks = try pool.picks()
        #expect(picks[first] == Ticket.playedJSON)
        #expect(picks[second] == #"[{"zone":7,"symbol":"☕"}]"#)
        #expect(try Ticket.value(store, "SELECT picks FROM outcomes WHERE deal = '\(first.text)'") == Ticket.playedJSON)
        let claims = try PostgresPool(address: pool.address, kioskID: "claims").claims()
        #expect(claims.map(\.picks) == [Ticket.played, [ZonePick(zone: 7, symbol: "☕")]])
        #expect(claims[0].text(grouped: "G").contains(" open; picks zone 4 ☕, zone 0 lemon.png, zone 8 ☕"))
        guard case .redeemed(let paid) = try PostgresPool(address: pool.address, kioskID: "desk").redeem(code: claims[0].code, counter: "desk") else {
            Issue.record("not redeemed"); return
        }
        #expect(paid.picks == Ticket.played)
        // Readable in the pool as JSON too.
        #expect(try pool.server.sql("SELECT string_agg(p->>'symbol', ' ' ORDER BY n) FROM outcomes, jsonb_array_elements(picks::jsonb) WITH ORDINALITY AS e(p, n) WHERE deal = '\(first.text)'") == "☕ lemon.png ☕")
    }

    @Test("the pool down: tickets dealt offline and one dealt before, ended while it is down: their picks wait in the store's outbox (on the disk, read by another handle) and reach the pool when the kiosk starts again with it back")
    func outboxCarriesPicks() throws {
        let pool = try Self.pool()
        defer { pool.server.stop() }
        let folder = try StoreFolder()
        var dealt: [(DealID, [ZonePick])] = []
        // One handle for both runs of the kiosk: a handle of its own would need the first
        // one's lock let go, which its ledger's sender may hold a moment longer.
        let store = try KioskStore(path: folder.store, access: .kiosk)
        do {
            let ledger = pool.ledger(store)
            try ledger.start()
            let before = try Self.deal(ledger, offline: false)
            pool.server.kill9()
            var previous = (deal: before, outcome: Ticket.outcome(Ticket.picks([1, 2, 3])))
            dealt.append((before, Ticket.picks([1, 2, 3])))
            for zones in [[4, 0, 8], [6]] {
                let id = try Self.deal(ledger, offline: true, ending: previous)
                previous = (id, Ticket.outcome(Ticket.picks(zones), zones.count == 3 ? .revealed : .quit))
                dealt.append((id, Ticket.picks(zones)))
            }
            #expect(try ledger.finish(previous.deal, outcome: previous.outcome))
            #expect(!ledger.isOnline)
            let waiting = try store.outbox().compactMap { entry -> [ZonePick]? in
                if case .outcome(let record) = entry.kind { return record.picks } else { return nil }
            }
            #expect(waiting == dealt.map(\.1))
        }
        // Committed: another handle reads them waiting.
        let onDisk = try KioskStore(path: folder.store, access: .read).outbox().compactMap { entry -> [ZonePick]? in
            if case .outcome(let record) = entry.kind { return record.picks } else { return nil }
        }
        #expect(onDisk == dealt.map(\.1))
        // The kiosk stopped (its ledger gone), the pool back: the next start sends them.
        try pool.server.start()
        #expect(try pool.picks().values.allSatisfy { $0 == nil })
        let ledger = pool.ledger(store)
        try ledger.start()
        #expect(try store.outboxCount() == 0)
        let picks = try pool.picks()
        #expect(picks.count == 3)
        for (deal, expected) in dealt { #expect(picks[deal] == .some(ZonePick.json(expected)), "\(deal)") }
        #expect(try PostgresPool(address: pool.address, kioskID: "claims").claims().map(\.picks) == dealt.map(\.1))
    }

    @Test("the pool's schema 2 to 3 by pool init, with a deal and its outcome in it: kept, their picks NULL; a kiosk refuses the old schema until then")
    func migration() throws {
        let pool = try Self.pool(initialized: false)
        defer { pool.server.stop() }
        let migrations = PostgresPool.migrations.prefix(2).joined(separator: "\n")
        try pool.server.sql("""
            CREATE TABLE scratchcard_schema(version integer NOT NULL, one boolean PRIMARY KEY DEFAULT true CHECK (one));
            INSERT INTO scratchcard_schema(version) VALUES (2);
            \(migrations)
            INSERT INTO stock(card, stock) VALUES ('lucky', NULL);
            INSERT INTO deals(deal, kiosk, card, prize, shown_at, from_stock) VALUES ('d1', 'hall-1', 'lucky', 'lucky', 1800000000, false);
            INSERT INTO outcomes(deal, outcome, fraction, duration_ms) VALUES ('d1', 'revealed', 0.5, 9000);
            INSERT INTO claims(code, deal) VALUES ('CD1', 'd1');
            """)
        let kiosk = PostgresPool(address: pool.address, kioskID: "hall-1")
        do { try kiosk.connect(holdKioskID: true); Issue.record("a schema-2 pool was accepted") } catch {
            #expect(error.kind == .schema && error.message.contains("schema 2, older") && error.message.contains("pool init"), "\(error.message)")
        }
        #expect(try PostgresPool(address: pool.address, kioskID: "init").initialize(deck: nil) == (2, 3))
        try kiosk.connect(holdKioskID: true)
        #expect(try pool.picks() == [DealID("d1"): nil])
        #expect(try PostgresPool(address: pool.address, kioskID: "claims").claims().map(\.picks) == [nil])
        // A second outcome for the old deal changes nothing; a new one carries its picks.
        #expect(try !kiosk.sendOutcome(DealID("d1"), Ticket.outcome(Ticket.played)))
        let id = DealID.random()
        #expect(try kiosk.deal(id, card: Ticket.plain, shownAt: 1_800_000_100))
        #expect(try kiosk.sendOutcome(id, Ticket.outcome(Ticket.played)))
        #expect(try pool.picks()[id] == .some(Ticket.playedJSON))
    }
}

extension TestPool {
    /// The pool's picks per deal, as another connection reads them.
    func picks() throws -> [DealID: String?] {
        Dictionary(uniqueKeysWithValues: try PostgresPool(address: address, kioskID: "check").allDeals().map { ($0.deal, $0.picks) })
    }
}
