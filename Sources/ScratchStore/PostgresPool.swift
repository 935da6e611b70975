import CardRules
import Foundation
import ScratchCore

/// The shared prize pool in PostgreSQL: the stock of every card and every deal and
/// outcome of every kiosk that names it. One `PostgresPool` is one kiosk's connection to
/// it; `PoolLedger` puts it together with the kiosk's local store and rides out the
/// times the server cannot be reached.
///
/// Schema 1 (the version in `scratchcard_schema`; `scratchcard pool init` creates and
/// migrates it, a kiosk only checks it):
///
///     stock(card PRIMARY KEY, stock, dealt)        -- stock NULL: unlimited; dealt counts
///                                                  -- the deals taken from a stocked card
///     deals(deal PRIMARY KEY, kiosk, card, prize, shown_at, dealt_at, from_stock, offline)
///     outcomes(deal PRIMARY KEY REFERENCES deals, outcome, how, fraction, reveal_ms,
///              duration_ms, ended_at)              -- outcome 'void': taken, never shown
///     kiosks(kiosk PRIMARY KEY, first_seen, last_seen)
///
/// Schema 2 adds the claims (PostgresPool+Claims.swift); schema 3 `outcomes.picks`, a zone
/// ticket's picks with their symbols, as the kiosk's store and outcome log keep them
/// (`ZonePick.json`, text: `[{"zone":4,"symbol":"☕"}, ...]`; NULL for any other card).
///
/// **How a prize is taken, and why this way.** One statement, run on its own (its own
/// transaction): a conditional update of the card's counter,
/// `UPDATE stock SET dealt = dealt + 1 WHERE card = $1 AND dealt < stock RETURNING card`,
/// with the deal inserted from its `RETURNING` in the same statement. Under READ
/// COMMITTED the row lock makes concurrent deals of one card queue up, and each waiting
/// update re-checks `dealt < stock` against the row as the previous deal committed it
/// (PostgreSQL re-evaluates the WHERE clause on the newest row version), so the count can
/// never pass the stock: no retry loop, no serialization failures, no window between a
/// read and a write. The lock is held for one statement and its commit.
/// `SELECT ... FOR UPDATE SKIP LOCKED` was the other way: it needs one row per physical
/// prize (100 bicycles, 100 rows; an unlimited card has no rows to lock at all), and
/// while a deal holding the last row is in flight, a second kiosk skips it and sees
/// "none left" even if that deal then rolls back: a false sold-out. Its one gain,
/// parallel commits of the same card, does not matter at a kiosk's pace (a deal per
/// visitor; see BENCHMARKS.md for what one counter row sustains). Unlimited cards take
/// no lock at all: their deals are counted from `deals`, not a hot counter row.
///
/// **Which stock counts.** The pool's `stock` table is the authority: `pool init --deck`
/// writes each card's `stock` there from the deck (keeping what was dealt, so raising a
/// number adds prizes and lowering it below what was dealt leaves none). A card the pool
/// lists is dealt as the pool says; a card it does not list is dealt only when the
/// kiosk's deck calls it unlimited. A stocked card the pool does not know is never dealt.
public final class PostgresPool {
    /// The schema this program writes and reads.
    public static let schemaVersion = migrations.count

    public let address: PoolAddress
    public let kioskID: String
    private var connection: PostgresConnection?
    private let connectTimeout: Int
    private let timeout: Double

    /// No connection is made until one is needed (`connect()`).
    public init(address: PoolAddress, kioskID: String, connectTimeout: Int = 3, timeout: Double = 5) {
        self.address = address
        self.kioskID = kioskID
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    public var isConnected: Bool { connection?.isOpen ?? false }

    /// Drops the connection.
    public func disconnect() {
        connection?.close()
        connection = nil
    }

    /// True while this session holds the kiosk id (the advisory lock).
    private var kioskIDHeld = false
    /// True once the schema was checked on the connection open now.
    private var schemaChecked = false
    /// The fingerprint of the kiosk's claim key: checked against the pool's at connect
    /// (PostgresPool+Claims.swift); nil: the kiosk makes no claims.
    public var claimKeyFingerprint: String?
    /// Makes the claim of each deal of a claim card, recorded with the deal.
    public var claimIssuer: ClaimIssuer?

    /// The connection as it is, made if there is none (nothing checked: `pool init`).
    func open() throws(PoolError) -> PostgresConnection {
        if let connection, connection.isOpen { return connection }
        connection = nil
        kioskIDHeld = false
        schemaChecked = false
        let made = try PostgresConnection(address, connectTimeout: connectTimeout, timeout: timeout)
        connection = made
        return made
    }

    /// Connects if needed and checks that the schema is ours (a kiosk never changes it);
    /// with `holdKioskID`, also takes the kiosk id for this session (an advisory lock the
    /// server drops when the connection ends), refusing an id another running kiosk uses.
    public func connect(holdKioskID: Bool) throws(PoolError) {
        let connection = try open()
        do throws(PoolError) {
            if !schemaChecked {
                try checkSchema(connection)
                try checkClaimKey(connection)
                schemaChecked = true
            }
            if holdKioskID && !kioskIDHeld {
                let held = try connection.query("SELECT pg_try_advisory_lock(hashtextextended('scratchcard kiosk ' || $1, 0))", [kioskID])
                guard held.count == 1, held[0, 0] == "t" else {
                    throw PoolError(.kioskIDInUse, "the kiosk id '\(kioskID)' is in use by another running kiosk on the pool at \(address); give each kiosk its own --kiosk-id")
                }
                kioskIDHeld = true
            }
        } catch {
            disconnect()
            throw error
        }
    }

    private func checkSchema(_ connection: PostgresConnection) throws(PoolError) {
        let version: Int
        do {
            let rows = try connection.query("SELECT version FROM scratchcard_schema")
            version = rows.count == 1 ? rows.integer(0, 0) ?? 0 : 0
        } catch where error.sqlState == "42P01" {
            throw PoolError(.schema, "the pool at \(address) has no scratchcard schema: run 'scratchcard pool init --pool ...' once")
        }
        if version > Self.schemaVersion {
            throw PoolError(.schema, "the pool at \(address) has schema \(version), newer than this scratchcard knows (\(Self.schemaVersion)): upgrade scratchcard")
        }
        if version < Self.schemaVersion {
            throw PoolError(.schema, "the pool at \(address) has schema \(version), older than this scratchcard's (\(Self.schemaVersion)): run 'scratchcard pool init --pool ...' to migrate it")
        }
    }

    // MARK: pool init

    /// `migrations[n]` takes the pool from version n to n + 1.
    static let migrations = [
        """
        CREATE TABLE stock(
            card text PRIMARY KEY,
            stock integer CHECK (stock >= 0),
            dealt integer NOT NULL DEFAULT 0 CHECK (dealt >= 0));
        CREATE TABLE kiosks(
            kiosk text PRIMARY KEY,
            first_seen timestamptz NOT NULL DEFAULT now(),
            last_seen timestamptz NOT NULL DEFAULT now());
        CREATE TABLE deals(
            deal text PRIMARY KEY,
            kiosk text NOT NULL,
            card text NOT NULL,
            prize text NOT NULL,
            shown_at double precision NOT NULL,
            dealt_at timestamptz NOT NULL DEFAULT now(),
            from_stock boolean NOT NULL,
            offline boolean NOT NULL DEFAULT false);
        CREATE INDEX deals_by_kiosk ON deals(kiosk);
        CREATE INDEX deals_by_card ON deals(card);
        CREATE TABLE outcomes(
            deal text PRIMARY KEY REFERENCES deals(deal),
            outcome text NOT NULL CHECK (outcome IN ('revealed', 'abandoned', 'quit', 'void')),
            how text,
            fraction double precision NOT NULL,
            reveal_ms integer,
            duration_ms integer NOT NULL,
            ended_at timestamptz NOT NULL DEFAULT now());
        """,
        claimsMigration,      // 2: PostgresPool+Claims.swift
        // 3: a zone ticket's picks with their outcome. Text, not jsonb: kept exactly as the
        // kiosk wrote it (jsonb would reorder and respace it), `picks::jsonb` to query it.
        "ALTER TABLE outcomes ADD COLUMN picks text;",
    ]

    /// `scratchcard pool init`: creates the schema or migrates it to ours, each step in
    /// one transaction (concurrent inits wait for each other), then, with a deck, writes
    /// its cards' stock into the pool (`dealt` kept). Returns the versions before and after.
    @discardableResult
    public func initialize(deck: Deck?) throws(PoolError) -> (from: Int, to: Int) {
        let connection = try open()
        try connection.query("BEGIN")
        do throws(PoolError) {
            // One init at a time, whoever else runs one.
            try connection.query("SELECT pg_advisory_xact_lock(hashtextextended('scratchcard pool init', 0))")
            try connection.query("""
                CREATE TABLE IF NOT EXISTS scratchcard_schema(
                    version integer NOT NULL,
                    one boolean PRIMARY KEY DEFAULT true CHECK (one))
                """)
            try connection.query("INSERT INTO scratchcard_schema(version) VALUES (0) ON CONFLICT DO NOTHING")
            let from = try connection.query("SELECT version FROM scratchcard_schema").integer(0, 0) ?? 0
            if from > Self.schemaVersion {
                throw PoolError(.schema, "the pool at \(address) has schema \(from), newer than this scratchcard knows (\(Self.schemaVersion)): upgrade scratchcard")
            }
            for version in from..<Self.schemaVersion {
                try connection.query(Self.migrations[version])
                try connection.query("UPDATE scratchcard_schema SET version = $1", [String(version + 1)])
            }
            for card in deck?.cards ?? [] {
                try connection.query("""
                    INSERT INTO stock(card, stock) VALUES ($1, $2)
                    ON CONFLICT (card) DO UPDATE SET stock = excluded.stock
                    """, [card.id, card.stock.map(String.init)])
            }
            try connection.query("COMMIT")
            return (from, Self.schemaVersion)
        } catch {
            if connection.isOpen { _ = try? connection.query("ROLLBACK") }
            throw error
        }
    }

    // MARK: dealing

    /// Each card the pool lists: its stock (nil: unlimited) and how many were taken.
    public func stockTable() throws(PoolError) -> [String: (stock: Int?, dealt: Int)] {
        try connect(holdKioskID: false)
        let rows = try open().query("SELECT card, stock, dealt FROM stock")
        var table: [String: (stock: Int?, dealt: Int)] = [:]
        for r in 0..<rows.count {
            guard let card = rows[r, 0] else { continue }
            table[card] = (rows.integer(r, 1), rows.integer(r, 2) ?? 0)
        }
        return table
    }

    /// The statement that deals: takes one of a stocked card (a conditional update, see
    /// the type's comment) or, for a card that is unlimited, takes nothing; records the
    /// deal with the kiosk id; notes the kiosk as seen. Answers how many deals it
    /// recorded: 1, or 0 when none is left (or the card is stocked in the deck and the
    /// pool does not know it).
    static let dealStatement = """
        WITH taken AS (
            UPDATE stock SET dealt = dealt + 1
            WHERE card = $3 AND stock IS NOT NULL AND dealt < stock
            RETURNING card),
        free AS (
            SELECT $3::text AS card
            WHERE NOT EXISTS (SELECT 1 FROM stock WHERE card = $3 AND stock IS NOT NULL)
              AND ($6::boolean IS FALSE OR EXISTS (SELECT 1 FROM stock WHERE card = $3))),
        recorded AS (
            INSERT INTO deals(deal, kiosk, card, prize, shown_at, from_stock)
            SELECT $1::text, $2::text, card, $4::text, $5::double precision, true FROM taken
            UNION ALL
            SELECT $1::text, $2::text, card, $4::text, $5::double precision, false FROM free
            RETURNING deal),
        seen AS (
            INSERT INTO kiosks(kiosk) VALUES ($2)
            ON CONFLICT (kiosk) DO UPDATE SET last_seen = now()),
        claimed AS (
            INSERT INTO claims(code, deal) SELECT $7::text, deal FROM recorded WHERE $7::text IS NOT NULL)
        SELECT count(*) FROM recorded
        """

    /// Takes `card` from the pool for the deal `id`: true when taken and recorded, false
    /// when none is left. Throws `.unreachable` when the server could not be asked or did
    /// not answer (the deal may then have been recorded: the caller voids it later).
    public func deal(_ id: DealID, card: DeckCard, shownAt: Double) throws(PoolError) -> Bool {
        try connect(holdKioskID: true)
        let rows = try open().query(Self.dealStatement, [id.text, kioskID, card.id, card.recordedPrize, String(shownAt),
                                                         card.stock == nil ? "false" : "true", claimIssuer?.code(card, id)])
        return rows.integer(0, 0) == 1
    }

    /// Records a deal made while the pool could not be reached (an unlimited card only),
    /// once: a second send of the same id changes nothing.
    public func sendOfflineDeal(_ id: DealID, cardID: String, prize: String, shownAt: Double, claim: String? = nil) throws(PoolError) {
        try connect(holdKioskID: true)
        try open().query("""
            WITH recorded AS (
                INSERT INTO deals(deal, kiosk, card, prize, shown_at, from_stock, offline)
                VALUES ($1, $2, $3, $4, $5, false, true)
                ON CONFLICT (deal) DO NOTHING RETURNING deal),
            seen AS (
                INSERT INTO kiosks(kiosk) VALUES ($2)
                ON CONFLICT (kiosk) DO UPDATE SET last_seen = now()),
            claimed AS (
                INSERT INTO claims(code, deal) SELECT $6::text, deal FROM recorded WHERE $6::text IS NOT NULL)
            SELECT count(*) FROM recorded
            """, [id.text, kioskID, cardID, prize, String(shownAt), claim])
    }

    /// Writes a deal's outcome, a zone ticket's picks with it, once (`ON CONFLICT DO
    /// NOTHING`, keyed by the deal id): a retry after a lost reply changes nothing. True
    /// when this call wrote it.
    @discardableResult
    public func sendOutcome(_ id: DealID, _ outcome: OutcomeRecord) throws(PoolError) -> Bool {
        try connect(holdKioskID: true)
        let rows = try open().query("""
            WITH ended AS (
                INSERT INTO outcomes(deal, outcome, how, fraction, reveal_ms, duration_ms, picks)
                SELECT deal, $2::text, $3::text, $4::double precision, $5::integer, $6::integer, $8::text FROM deals WHERE deal = $1
                ON CONFLICT (deal) DO NOTHING RETURNING deal),
            seen AS (
                INSERT INTO kiosks(kiosk) VALUES ($7)
                ON CONFLICT (kiosk) DO UPDATE SET last_seen = now())
            SELECT count(*) FROM ended
            """, [id.text, outcome.outcome.rawValue, outcome.how?.rawValue, String(outcome.fraction),
                  outcome.revealMilliseconds.map(String.init), String(outcome.durationMilliseconds), kioskID,
                  outcome.picks.map(ZonePick.json)])
        return rows.integer(0, 0) == 1
    }

    /// A deal that may have been recorded but was never shown (its reply was lost, or
    /// the kiosk died between the pool and its own store): if the pool has it without an
    /// outcome, it ends as `void` and a prize it took goes back into the stock, in one
    /// statement. Once only, like every outcome.
    @discardableResult
    public func voidDeal(_ id: DealID) throws(PoolError) -> Bool {
        try connect(holdKioskID: true)
        let rows = try open().query("""
            WITH ended AS (
                INSERT INTO outcomes(deal, outcome, fraction, duration_ms)
                SELECT deal, 'void', 0, 0 FROM deals WHERE deal = $1
                ON CONFLICT (deal) DO NOTHING RETURNING deal),
            back AS (
                UPDATE stock SET dealt = stock.dealt - 1 FROM deals d, ended
                WHERE d.deal = ended.deal AND d.from_stock AND stock.card = d.card
                RETURNING 1)
            SELECT count(*) FROM ended
            """, [id.text])
        return rows.integer(0, 0) == 1
    }

    /// This kiosk's deals that have no outcome in the pool.
    public func openDeals() throws(PoolError) -> [DealID] {
        try connect(holdKioskID: true)
        let rows = try open().query("""
            SELECT d.deal FROM deals d WHERE d.kiosk = $1
            AND NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.deal = d.deal) ORDER BY d.dealt_at
            """, [kioskID])
        return (0..<rows.count).compactMap { rows[$0, 0].map(DealID.init) }
    }

    // MARK: reports

    /// Per card: the pool's stock (the deck's for a card the pool does not list), deals
    /// (void ones left out) and outcomes. Deck cards first, in its order, then the rest.
    public func stockReport(deck: Deck?) throws(PoolError) -> [StockLine] {
        let table = try stockTable()
        let rows = try open().query("""
            SELECT d.card, count(*) FILTER (WHERE o.outcome IS DISTINCT FROM 'void'),
                   count(*) FILTER (WHERE o.outcome = 'revealed'), count(*) FILTER (WHERE o.outcome = 'abandoned'),
                   count(*) FILTER (WHERE o.outcome = 'quit')
            FROM deals d LEFT JOIN outcomes o ON o.deal = d.deal GROUP BY d.card
            """)
        var counted: [String: StockLine] = [:]
        for r in 0..<rows.count {
            guard let card = rows[r, 0] else { continue }
            counted[card] = StockLine(cardID: card, stock: table[card]?.stock, dealt: rows.integer(r, 1) ?? 0,
                                      revealed: rows.integer(r, 2) ?? 0, abandoned: rows.integer(r, 3) ?? 0,
                                      quit: rows.integer(r, 4) ?? 0)
        }
        for (card, entry) in table where counted[card] == nil {
            counted[card] = StockLine(cardID: card, stock: entry.stock, dealt: 0, revealed: 0, abandoned: 0, quit: 0)
        }
        var lines: [StockLine] = []
        for card in deck?.cards ?? [] {
            var line = counted.removeValue(forKey: card.id)
                ?? StockLine(cardID: card.id, stock: nil, dealt: 0, revealed: 0, abandoned: 0, quit: 0)
            if table[card.id] == nil { line.stock = card.stock }
            lines.append(line)
        }
        return lines + counted.keys.sorted().map { counted[$0]! }
    }

    /// Per kiosk: deals (void ones left out), revealed, abandoned, quit, void, last seen.
    public func kioskReport() throws(PoolError) -> [KioskLine] {
        try connect(holdKioskID: false)
        let rows = try open().query("""
            SELECT k.kiosk, count(d.deal) FILTER (WHERE o.outcome IS DISTINCT FROM 'void'),
                   count(*) FILTER (WHERE o.outcome = 'revealed'), count(*) FILTER (WHERE o.outcome = 'abandoned'),
                   count(*) FILTER (WHERE o.outcome = 'quit'), count(*) FILTER (WHERE o.outcome = 'void'),
                   to_char(k.last_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
            FROM kiosks k LEFT JOIN deals d ON d.kiosk = k.kiosk LEFT JOIN outcomes o ON o.deal = d.deal
            GROUP BY k.kiosk, k.last_seen ORDER BY k.kiosk
            """)
        return (0..<rows.count).map { r in
            KioskLine(kioskID: rows[r, 0] ?? "", dealt: rows.integer(r, 1) ?? 0, revealed: rows.integer(r, 2) ?? 0,
                      abandoned: rows.integer(r, 3) ?? 0, quit: rows.integer(r, 4) ?? 0, void: rows.integer(r, 5) ?? 0,
                      lastSeen: rows[r, 6] ?? "")
        }
    }

    /// Every deal in the pool: id, kiosk, card, whether it took stock, and its outcome
    /// count (0 or 1), kind and picks: for checks and tests.
    public func allDeals() throws(PoolError) -> [PoolDealRow] {
        try connect(holdKioskID: false)
        let rows = try open().query("""
            SELECT d.deal, d.kiosk, d.card, d.from_stock, d.offline, o.outcome,
                   (SELECT count(*) FROM outcomes x WHERE x.deal = d.deal), o.picks
            FROM deals d LEFT JOIN outcomes o ON o.deal = d.deal ORDER BY d.dealt_at
            """)
        return (0..<rows.count).map { r in
            PoolDealRow(deal: DealID(rows[r, 0] ?? ""), kioskID: rows[r, 1] ?? "", cardID: rows[r, 2] ?? "",
                        fromStock: rows[r, 3] == "t", offline: rows[r, 4] == "t", outcome: rows[r, 5],
                        outcomes: rows.integer(r, 6) ?? 0, picks: rows[r, 7])
        }
    }
}

/// One kiosk's line of `scratchcard stock --pool`.
public struct KioskLine: Equatable, Sendable {
    public var kioskID: String
    public var dealt: Int
    public var revealed: Int
    public var abandoned: Int
    public var quit: Int
    /// Deals taken and never shown (a lost reply, a crash between pool and store).
    public var void: Int
    /// UTC, ISO 8601.
    public var lastSeen: String

    public var text: String {
        "kiosk \(kioskID): dealt \(dealt) revealed \(revealed) abandoned \(abandoned) quit \(quit) void \(void) last seen \(lastSeen)"
    }

    public var json: String {
        "{\"kiosk\":\(quotedJSON(kioskID)),\"dealt\":\(dealt),\"revealed\":\(revealed),\"abandoned\":\(abandoned),"
            + "\"quit\":\(quit),\"void\":\(void),\"last_seen\":\(quotedJSON(lastSeen))}"
    }
}

/// One deal as the pool holds it.
public struct PoolDealRow: Equatable, Sendable {
    public var deal: DealID
    public var kioskID: String
    public var cardID: String
    public var fromStock: Bool
    public var offline: Bool
    public var outcome: String?
    public var outcomes: Int
    /// The outcome's picks as the pool holds them (`ZonePick.json`'s text), or nil.
    public var picks: String? = nil
}

/// A JSON string literal (quotes, backslashes and control characters escaped).
func quotedJSON(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
