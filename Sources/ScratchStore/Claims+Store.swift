@preconcurrency import Glibc
import CardRules
import ScratchCore

/// How a ledger makes a deal's claim code: the kiosk's name and, for a card someone
/// collects (`"claim": true`), the code (the promotion key's, ScratchCard's Claims room);
/// nil for any other card. The store keeps the code; it never sees the key.
public struct ClaimIssuer: Sendable {
    /// The kiosk the claims are recorded as dealt at.
    public let kiosk: String
    /// The code for a deal of this card, or nil when the card is not a claim.
    public let code: @Sendable (DeckCard, DealID) -> String?

    public init(kiosk: String, code: @escaping @Sendable (DeckCard, DealID) -> String?) {
        self.kiosk = kiosk
        self.code = code
    }
}

/// One claim as a store or the pool holds it.
public struct ClaimRecord: Equatable, Sendable {
    /// The code's 25 characters, no separators.
    public var code: String
    public var deal: DealID
    public var cardID: String
    public var kiosk: String
    /// When the card was dealt (seconds since 1970).
    public var dealtAt: Double
    /// When and by which counter it was redeemed; nil while open.
    public var redeemedAt: Double?
    public var redeemedBy: String?
    /// In a kiosk's store, a claim whose book is a pool: the pool, as it describes itself
    /// (`PoolAddress.description`, no password); "" for a claim from before schema 4 whose
    /// book the store has not settled yet (`settleClaims`). Nil: the store's own claim
    /// (and every claim the pool lists).
    public var pool: String?
    /// A zone ticket's picks, in order, with their symbols, once its outcome is recorded;
    /// nil for any other card, or before.
    public var picks: [ZonePick]?
    /// True when the book holds picks for the deal that cannot be read (a damaged value):
    /// `picks` is nil then, and the lines say so.
    public var picksUnreadable = false

    public init(code: String, deal: DealID, cardID: String, kiosk: String, dealtAt: Double,
                redeemedAt: Double? = nil, redeemedBy: String? = nil, pool: String? = nil) {
        self.code = code; self.deal = deal; self.cardID = cardID; self.kiosk = kiosk
        self.dealtAt = dealtAt; self.redeemedAt = redeemedAt; self.redeemedBy = redeemedBy; self.pool = pool
    }

    /// `claims`' line: code, card, kiosk, dealt, then redeemed (when, by whom), open, or
    /// (a store's copy of a pool's claim) where it is redeemed; then a zone ticket's picks.
    public func text(grouped: String) -> String {
        let state: String
        if let redeemedAt { state = "redeemed \(utcTime(redeemedAt)) by \(redeemedBy ?? "?")" }
        else if let pool { state = pool.isEmpty ? "book not settled (start the kiosk)" : "redeemed at the pool only (\(pool))" }
        else { state = "open" }
        var line = "\(grouped) \(cardID) at \(kiosk) dealt \(utcTime(dealtAt)) " + state
        if let picks { line += "; picks " + (picks.isEmpty ? "none" : ZonePick.text(picks)) }
        if picksUnreadable { line += "; picks unreadable (a damaged value)" }
        return line
    }

    /// `claims --json`' line: `picks` a zone ticket's (as the outcome log has them), else null.
    public func json(grouped: String) -> String {
        "{\"code\":\(quotedJSON(grouped)),\"card\":\(quotedJSON(cardID)),\"kiosk\":\(quotedJSON(kiosk)),"
            + "\"deal\":\(quotedJSON(deal.text)),\"dealt\":\(quotedJSON(utcTime(dealtAt))),"
            + "\"redeemed\":\(redeemedAt.map { quotedJSON(utcTime($0)) } ?? "null"),"
            + "\"redeemed_by\":\(redeemedBy.map(quotedJSON) ?? "null"),\"pool\":\(pool.map(quotedJSON) ?? "null"),"
            + "\"picks\":\(picks.map(ZonePick.json) ?? "null")}"
    }
}

/// What a redemption found.
public enum Redemption: Equatable, Sendable {
    /// Redeemed now, by this call: the claim as it is now.
    case redeemed(ClaimRecord)
    /// Redeemed before: when and by whom.
    case already(ClaimRecord)
    /// No such claim here (the deal has not reached this store or pool).
    case unknown
    /// A kiosk's store: the claim is the pool's to redeem (it was dealt through the pool,
    /// online or offline), here only as a copy; nothing changed. The pool as it describes
    /// itself (no password); "" when the claim is from before schema 4 and the kiosk has
    /// not started since to settle its book.
    case belongsToPool(String)
}

/// ISO 8601 in UTC to the second: 2026-12-02T16:20:05Z.
public func utcTime(_ seconds: Double) -> String {
    var whole = time_t(seconds.rounded(.down))
    var parts = tm()
    gmtime_r(&whole, &parts)
    func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
        + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
}

/// The kiosk's store's claims. Schema 3 adds:
///
///     claims(code PRIMARY KEY, deal UNIQUE REFERENCES deals, kiosk, redeemed_at, redeemed_by)
///
/// and schema 4 its book, `pool`: NULL for a claim of the store's own deals, else the pool
/// that holds it (its password-free description).
///
/// A claim is written in the deal's own transaction, before the card is shown: whatever
/// becomes of the reveal (a power cut, a kill), the claim a card carries is in the store.
/// It is redeemed once: `UPDATE ... WHERE redeemed_at IS NULL AND pool IS NULL` in a
/// `BEGIN IMMEDIATE` transaction (SQLite's one writer at a time), so of any number of
/// counters only the first changes the row.
///
/// **One book of record.** A claim dealt through a pool (`recordPoolDeal`: online, or
/// offline and waiting in the outbox) belongs to the pool: the store keeps a copy, marked
/// with the pool, that it never redeems (`Redemption.belongsToPool`), before and after the
/// pool has it. So every way to redeem a claim ends in one conditional update in one book.
///
/// **Stores from before schema 4.** A schema-3 store cannot tell a pool's deal from its
/// own once the outbox is sent (both wrote the same rows), so the migration marks each open
/// claim "not settled" (`pool = ''`), refused by a counter like a pool's; the kiosk settles
/// them when it starts (`settleClaims`: a kiosk with `--pool` gives them to its pool, one
/// without keeps them). A counter cannot open a store before a kiosk has migrated it. A
/// claim already redeemed here stays the store's (its answer is "already redeemed").
extension KioskStore {
    /// The migration from schema 2 to 3 (`migrations[2]`).
    static let claimsMigration = """
        CREATE TABLE claims(
            code TEXT PRIMARY KEY,
            deal TEXT NOT NULL UNIQUE REFERENCES deals(deal),
            kiosk TEXT NOT NULL,
            redeemed_at REAL,
            redeemed_by TEXT) WITHOUT ROWID;
        """

    /// The schema that gave each claim its book: a counter redeems in a store of this
    /// schema or later only.
    static let claimBookSchema = 4

    /// The migration from schema 3 to 4 (`migrations[3]`, with the tickets' table):
    /// each claim's book, those already open settled later.
    static let claimBookMigration = """
        ALTER TABLE claims ADD COLUMN pool TEXT;
        UPDATE claims SET pool = '' WHERE redeemed_at IS NULL;
        """

    /// Inside the deal's transaction: its claim, when the issuer makes one for this card;
    /// `pool`: the pool whose claim it is (a deal dealt through it), nil for the store's own.
    func recordClaim(_ deal: DealID, card: DeckCard, pool: String? = nil) throws(StoreError) {
        guard let issuer = claimIssuer, let code = issuer.code(card, deal) else { return }
        try connection.prepare("INSERT INTO claims(code, deal, kiosk, pool) VALUES (?, ?, ?, ?)")
            .bind(.text(code), .text(deal.text), .text(issuer.kiosk), .optional(pool)).run()
    }

    /// The claim code recorded for a deal, if it has one.
    public func claimCode(forDeal deal: DealID) throws(StoreError) -> String? {
        let query = try connection.prepare("SELECT code FROM claims WHERE deal = ?")
        try query.bind(.text(deal.text))
        return try query.step() ? query.text(0) : nil
    }

    /// Marks the claim with `code` redeemed by `counter` at `now`, once, when it is the
    /// store's own; a pool's claim is left as it is (`.belongsToPool`).
    public func redeem(code: String, counter: String, now: Double) throws(StoreError) -> Redemption {
        try connection.transaction { () throws(StoreError) -> Redemption in
            try connection.prepare("""
                UPDATE claims SET redeemed_at = ?, redeemed_by = ? WHERE code = ? AND redeemed_at IS NULL AND pool IS NULL
                """).bind(.real(now), .text(counter), .text(code)).run()
            let changed = connection.changes > 0
            guard let record = try claims(code: code).first else { return .unknown }
            if changed { return .redeemed(record) }
            if record.redeemedAt == nil, let pool = record.pool { return .belongsToPool(pool) }
            return .already(record)
        }
    }

    /// At the kiosk's start: the claims from before schema 4 not settled yet are given
    /// their book, `pool` (a kiosk dealing through that pool) or the store's own (nil).
    /// Returns how many. (`PoolLedger.start` settles them for its pool.)
    @discardableResult
    public func settleClaims(pool: String?) throws(StoreError) -> Int {
        try connection.transaction { () throws(StoreError) -> Int in
            try connection.prepare("UPDATE claims SET pool = ? WHERE pool = ''").bind(.optional(pool)).run()
            return connection.changes
        }
    }

    /// Every claim (or the one with `code`), in the order dealt, a zone ticket's with its
    /// picks once it has ended.
    public func claims(code: String? = nil) throws(StoreError) -> [ClaimRecord] {
        // A store read as it is (`claims --store` on a schema-3 store) has no books yet,
        // one from before schema 5 no picks.
        let book = try column("c.pool", since: Self.claimBookSchema), picks = try column("o.picks", since: Self.picksSchema)
        let query = try connection.prepare("""
            SELECT c.code, c.deal, d.card, c.kiosk, d.shown_at, c.redeemed_at, c.redeemed_by, \(book), \(picks)
            FROM claims c JOIN deals d ON d.deal = c.deal LEFT JOIN outcomes o ON o.deal = c.deal
            WHERE ?1 IS NULL OR c.code = ?1 ORDER BY d.seq
            """)
        try query.bind(.optional(code))
        var records: [ClaimRecord] = []
        while try query.step() {
            var record = ClaimRecord(code: query.text(0), deal: DealID(query.text(1)), cardID: query.text(2),
                                     kiosk: query.text(3), dealtAt: query.real(4), redeemedAt: query.optionalReal(5),
                                     redeemedBy: query.optionalText(6), pool: query.optionalText(7))
            (record.picks, record.picksUnreadable) = storedPicks(query.optionalText(8))
            records.append(record)
        }
        return records
    }
}
