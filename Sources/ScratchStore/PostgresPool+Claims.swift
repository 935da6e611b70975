import CardRules
import ScratchCore

/// The pool's claims. Schema 2 adds:
///
///     claims(code PRIMARY KEY, deal UNIQUE, redeemed_at, redeemed_by)
///     claim_key(fingerprint)          -- one row: the key every kiosk of the pool uses
///
/// A claim is inserted by the statement that deals its card (`dealStatement`), so a deal
/// the pool has always has its claim. **Redeemed exactly once**: one statement,
/// `UPDATE claims SET redeemed_at = now() ... WHERE code = $1 AND redeemed_at IS NULL`.
/// Counters racing on one code queue on the row lock; each waiting update re-checks the
/// WHERE clause on the row as the winner committed it (READ COMMITTED re-evaluation),
/// finds it redeemed and changes nothing. The loser then reads the row in a statement of
/// its own (a new snapshot, which sees the winner's commit) to say when and by whom.
extension PostgresPool {
    static let claimsMigration = """
        CREATE TABLE claims(
            code text PRIMARY KEY,
            deal text NOT NULL UNIQUE,
            redeemed_at timestamptz,
            redeemed_by text);
        CREATE TABLE claim_key(
            fingerprint text NOT NULL,
            one boolean PRIMARY KEY DEFAULT true CHECK (one));
        """

    /// `pool init --claim-key`: records the key's fingerprint; a pool that has another
    /// one already is refused (its codes would stop redeeming).
    public func recordClaimKey(fingerprint: String) throws(PoolError) {
        try connect(holdKioskID: false)
        let rows = try open().query("""
            WITH put AS (INSERT INTO claim_key(fingerprint) VALUES ($1) ON CONFLICT (one) DO NOTHING RETURNING fingerprint)
            SELECT fingerprint FROM put UNION ALL SELECT fingerprint FROM claim_key
            """, [fingerprint])
        if let recorded = rows.count > 0 ? rows[0, 0] : nil, recorded != fingerprint {
            throw PoolError(.schema, "the pool at \(address) makes its claims with another key (fingerprint \(recorded)); give that key, or a pool of its own")
        }
    }

    /// At connect: a kiosk with a claim key must use the pool's (recorded by `pool init
    /// --claim-key`); refused otherwise, before it deals anything.
    func checkClaimKey(_ connection: PostgresConnection) throws(PoolError) {
        guard let mine = claimKeyFingerprint else { return }
        let rows = try connection.query("SELECT fingerprint FROM claim_key")
        guard rows.count == 1, let recorded = rows[0, 0] else {
            throw PoolError(.schema, "the pool at \(address) has no claim key recorded: run 'scratchcard pool init --pool ... --claim-key FILE' once")
        }
        guard recorded == mine else {
            throw PoolError(.schema, "this kiosk's claim key (fingerprint \(mine)) is not the pool's (fingerprint \(recorded)): its codes would not redeem; give the pool's key")
        }
    }

    /// Marks the claim `code` redeemed by `counter`, once (see the extension's note).
    public func redeem(code: String, counter: String) throws(PoolError) -> Redemption {
        try connect(holdKioskID: false)
        let connection = try open()
        let done = try connection.query("""
            WITH done AS (
                UPDATE claims SET redeemed_at = now(), redeemed_by = $2 WHERE code = $1 AND redeemed_at IS NULL
                RETURNING code, deal, redeemed_at, redeemed_by)
            SELECT done.code, done.deal, d.card, d.kiosk, d.shown_at, extract(epoch FROM done.redeemed_at), done.redeemed_by, o.picks
            FROM done LEFT JOIN deals d ON d.deal = done.deal LEFT JOIN outcomes o ON o.deal = done.deal
            """, [code, counter])
        if done.count == 1 { return .redeemed(Self.claimRecord(done, 0)) }
        let found = try claims(code: code)
        return found.first.map(Redemption.already) ?? .unknown
    }

    /// Every claim in the pool (or the one with `code`), in the order dealt, a zone
    /// ticket's with its picks once its outcome has reached the pool.
    public func claims(code: String? = nil) throws(PoolError) -> [ClaimRecord] {
        try connect(holdKioskID: false)
        let rows = try open().query("""
            SELECT c.code, c.deal, d.card, d.kiosk, d.shown_at, extract(epoch FROM c.redeemed_at), c.redeemed_by, o.picks
            FROM claims c LEFT JOIN deals d ON d.deal = c.deal LEFT JOIN outcomes o ON o.deal = c.deal
            WHERE $1::text IS NULL OR c.code = $1 ORDER BY d.dealt_at, c.code
            """, [code])
        return (0..<rows.count).map { Self.claimRecord(rows, $0) }
    }

    /// A row of code, deal, card, kiosk, shown_at, redeemed_at (epoch), redeemed_by, picks.
    static func claimRecord(_ rows: PostgresRows, _ r: Int) -> ClaimRecord {
        var record = ClaimRecord(code: rows[r, 0] ?? "", deal: DealID(rows[r, 1] ?? ""), cardID: rows[r, 2] ?? "?", kiosk: rows[r, 3] ?? "?",
                                 dealtAt: rows[r, 4].flatMap(Double.init) ?? 0, redeemedAt: rows[r, 5].flatMap(Double.init),
                                 redeemedBy: rows[r, 6])
        (record.picks, record.picksUnreadable) = storedPicks(rows[r, 7])
        return record
    }
}
