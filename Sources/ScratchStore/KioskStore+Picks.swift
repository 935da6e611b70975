import CardRules
import ScratchCore

/// A zone ticket's picks in the store: the zones the player started, in order, each with
/// the symbol it showed, as one JSON array (`ZonePick.json`, the outcome log's form):
///
///     [{"zone":4,"symbol":"☕"},{"zone":0,"symbol":"☕"},{"zone":8,"symbol":"lemon.png"}]
///
/// Schema 5 adds:
///
///     outcomes.picks TEXT        -- NULL: not a zone ticket (or ended before schema 5)
///     pool_outbox.picks TEXT     -- an outcome's picks, carried to the pool with it
///
/// The picks are written with their outcome, in its one transaction (`writeOutcome`, and
/// `queueOutcome` for a pool kiosk, whose outbox entry carries them too): a ticket's
/// outcome is never in the store without them. One TEXT column, not a table of its own:
/// the picks travel whole through the outbox and into the pool's `outcomes.picks`, and read
/// the same with `sqlite3` or `psql` as in the log. Rows from before schema 5 keep NULL
/// (their picks, if any, are in the outcome log only).
extension KioskStore {
    /// The schema that added the picks.
    static let picksSchema = 5

    /// The migration from schema 4 to 5 (`migrations[4]`).
    static let picksMigration = """
        ALTER TABLE outcomes ADD COLUMN picks TEXT;
        ALTER TABLE pool_outbox ADD COLUMN picks TEXT;
        """

    /// The schema that added `column`: its name in a query on a store of that schema or
    /// later, else NULL (a store read as it is, by `log-summary` or `claims` beside an
    /// older kiosk, has no such column yet).
    func column(_ column: String, since version: Int) throws(StoreError) -> String {
        try connection.integer("PRAGMA user_version") >= version ? column : "NULL"
    }
}

/// A picks column (the store's or the pool's) read back: nil for NULL; `damaged` when the
/// text is not a list of picks (a damaged page, a hand edit): the picks are left out then,
/// and the reader says so, never the whole record.
func storedPicks(_ text: String?) -> (picks: [ZonePick]?, damaged: Bool) {
    guard let text else { return (nil, false) }
    guard let picks = ZonePick.list(json: text) else { return (nil, true) }
    return (picks, false)
}
