@preconcurrency import Glibc
import CardRules
import Foundation
import ScratchCore

/// The kiosk's store: one SQLite file holding every deal, its outcome, and the card on
/// show with its strokes. Stock is not stored: what is left is the deck's `stock` minus
/// the deals counted here, so raising a number in the deck adds prizes.
///
/// WAL journal, `synchronous=FULL` for deals, outcomes and reveals (on the disk when
/// the commit returns); strokes are committed `NORMAL` (in the WAL file at once, which a
/// kill -9 keeps) and synced right after off the writer's thread (`JournalSync`), so
/// that a slow disk never holds them back. One writer: a kiosk holds `PATH.lock` (flock) while it runs, and a second one is refused
/// at once. Readers (`scratchcard stock`) need no lock. The schema's version is SQLite's
/// `user_version`; older stores are migrated forward on open, newer ones refused.
///
///     let store = try KioskStore(path: path, access: .kiosk)
///     if let deal = try store.deal(card, shownAt: now, ending: nil) { ... }
///
/// Schema 1:
///
///     deals(seq INTEGER PRIMARY KEY, deal TEXT UNIQUE, card, prize, cover, shown_at,
///           last_touch, revealed_how, reveal_ms, reveal_fraction)
///     outcomes(deal TEXT PRIMARY KEY, outcome, how, fraction, reveal_ms, duration_ms, ended_at)
///     strokes(batch INTEGER PRIMARY KEY, deal, lines)      -- the card on show's only
///
/// Later schemas: 2 the pool's outbox (KioskStore+Pool.swift), 3 and 4 the claims and
/// their book and the claim tickets (Claims+Store.swift, KioskStore+Tickets.swift), 5 a
/// zone ticket's picks with their outcome (KioskStore+Picks.swift).
public final class KioskStore: PrizeLedger, CardOnShowStore {
    /// How a store is opened.
    public enum Access: Sendable {
        /// The kiosk: created if missing, written, locked against a second kiosk.
        case kiosk
        /// Reading only (`stock`, `log-summary`): never created, never locked, never written.
        case read
        /// A counter redeeming claims (`redeem`): written beside a running kiosk (SQLite
        /// orders the writers), never created, never locked, never migrated.
        case counter
    }

    public let path: String
    let connection: SQLiteConnection
    /// The lock file's descriptor while this store holds it.
    private var lockDescriptor: Int32 = -1
    /// Syncs the WAL after stroke commits (the kiosk's store only).
    let journal: JournalSync?
    /// Makes the claim of each deal of a claim card, in the deal's transaction
    /// (Claims+Store.swift); nil: no claims.
    public var claimIssuer: ClaimIssuer?
    /// The latest time recorded: times are kept in order (KioskStore+Clock.swift).
    let recordedClock = RecordedClock()

    /// The schema this program writes.
    public static let schemaVersion = migrations.count
    /// SQLite's `application_id` for our stores: "SCRD".
    static let applicationID = 0x5343_5244

    /// The default kiosk store: `$XDG_STATE_HOME/scratchcard/kiosk.db`, else
    /// `~/.local/state/scratchcard/kiosk.db`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/scratchcard/kiosk.db" }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? homeFromPasswd()
        return home + "/.local/state/scratchcard/kiosk.db"
    }

    public init(path: String, access: Access) throws(StoreError) {
        self.path = path
        journal = access == .kiosk ? JournalSync(databasePath: path) : nil
        if access == .kiosk {
            let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
            if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
                try Self.makeFolders(folder, for: path)
            }
            lockDescriptor = try Self.lock(path)
        } else if !FileManager.default.fileExists(atPath: path) {
            throw StoreError(path: path, kind: .other, message: "no store there")
        }
        let held = lockDescriptor
        let isNew = access == .kiosk && !FileManager.default.fileExists(atPath: path)
        do {
            connection = try SQLiteConnection(path: path, readOnly: access == .read)
            // The deals are the operator's business: the file (and the WAL and shared-memory
            // files SQLite makes beside it, with the same mode) private to the user.
            if isNew { _ = chmod(path, 0o600) }
        } catch {
            if held >= 0 { close(held) }
            throw error
        }
        do throws(StoreError) {
            try connection.execute("PRAGMA busy_timeout = 2000")
            if access == .kiosk {
                // WAL: readers see the last commit while the kiosk writes; FULL: each
                // commit is synced before it returns (a power cut keeps it).
                try connection.execute("PRAGMA journal_mode = WAL")
                try connection.execute("PRAGMA synchronous = FULL")
            }
            try checkIntegrity(full: access == .kiosk)
            if access == .kiosk { try migrate() } else { try checkVersion(allowEmpty: false) }
            if access == .counter {
                // A counter needs the claims' book (schema 4); what later schemas add is
                // read where it is found (`column(_:since:)`).
                let version = try connection.integer("PRAGMA user_version")
                if version < Self.claimBookSchema {
                    throw StoreError(path: path, kind: .other,
                                     message: "the store is from an older scratchcard (schema \(version)) and holds no claims: start the kiosk once with this version")
                }
            }
            try checkSchema()
        } catch {
            unlock()
            throw error
        }
    }

    /// A store in memory holding a copy of the store at `path` (or nothing, when nil):
    /// `simulate` deals from it and leaves the real one untouched.
    public init(copyOf source: String?) throws(StoreError) {
        path = ":memory:"
        journal = nil
        connection = try SQLiteConnection(path: ":memory:")
        if let source {
            let original = try KioskStore(path: source, access: .read)
            try original.connection.copy(into: connection)
        }
        try migrate()
    }

    deinit { unlock() }

    private func unlock() {
        if lockDescriptor >= 0 { close(lockDescriptor); lockDescriptor = -1 }
    }

    /// Takes `PATH.lock` (flock, never waiting) and writes our pid into it; a store held
    /// by a running kiosk is `.locked`, naming its pid. The kernel drops the lock when the
    /// holder dies, kill -9 included.
    private static func lock(_ path: String) throws(StoreError) -> Int32 {
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            throw StoreError(path: path, kind: code == ENOSPC ? .full : .cannotWrite,
                             message: code == ENOSPC ? "the disk is full (cannot create the lock file \(lockPath))"
                                 : "cannot write in the store's folder (the lock file \(lockPath): \(String(cString: strerror(code))))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var bytes = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &bytes, 31, 0)
            close(fd)
            let digits = n > 0 ? bytes[..<n].prefix { $0 >= 48 && $0 <= 57 } : []
            let pid = digits.isEmpty ? "?" : String(decoding: digits, as: UTF8.self)
            throw StoreError(path: path, kind: .locked, message: "the store is in use by another running scratchcard (pid \(pid))")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    /// `mkdir -p`, mode 0700 for the folders it makes; errno's reason on failure.
    private static func makeFolders(_ folder: String, for path: String) throws(StoreError) {
        var partial = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            partial += "/" + part
            if mkdir(partial, 0o700) != 0 && errno != EEXIST {
                let code = errno
                throw StoreError(path: path, kind: code == ENOSPC ? .full : .cannotWrite,
                                 message: "cannot create the store's folder \(partial): \(String(cString: strerror(code)))")
            }
        }
    }

    /// The user's home folder from the password database, when HOME says nothing usable.
    private static func homeFromPasswd() -> String {
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return "/" }
        return String(cString: dir)
    }

    /// A damaged or truncated file is `.corrupt`. The kiosk runs `PRAGMA integrity_check`,
    /// readers the quicker `quick_check`. The difference matters to the stock: quick_check
    /// does not compare the indexes with their tables, and a damaged page that leaves a
    /// deal's card in the table unlike its entry in `deals_by_card` (the store fuzzer
    /// made one) counts that card's deals one way (`WHERE card = ?`, through the index)
    /// and lists them another. integrity_check took 0.86 s against quick_check's 0.23 s
    /// on a store of 200,000 deals, once at start.
    private func checkIntegrity(full: Bool) throws(StoreError) {
        let check = try connection.prepare(full ? "PRAGMA integrity_check" : "PRAGMA quick_check")
        var problems: [String] = []
        while try check.step() { problems.append(check.text(0)) }
        guard problems == ["ok"] else {
            throw StoreError(path: path, kind: .corrupt, message: "the store is damaged (\(problems.prefix(3).joined(separator: "; ")))")
        }
    }

    /// The version, checked: ours, older (to migrate), or empty; a newer one or another
    /// program's database is refused.
    @discardableResult
    private func checkVersion(allowEmpty: Bool) throws(StoreError) -> Int {
        let version = try connection.integer("PRAGMA user_version")
        let application = try connection.integer("PRAGMA application_id")
        let tables = try connection.integer("SELECT count(*) FROM sqlite_master")
        // SQLite's user_version is a signed 32-bit number: a damaged header can make it
        // negative, which no scratchcard writes (and no migration starts from). Found by
        // the store fuzzer: the kiosk's migration trapped on migrations[-2147483643].
        if version < 0 {
            throw StoreError(path: path, kind: .corrupt, message: "the store is damaged (its schema version is \(version))")
        }
        if version > Self.schemaVersion {
            throw StoreError(path: path, kind: .newerSchema,
                             message: "the store was written by a newer scratchcard (schema \(version); this one knows up to \(Self.schemaVersion)); upgrade scratchcard or give another --store")
        }
        if tables > 0 && application != Self.applicationID {
            throw StoreError(path: path, kind: .other, message: "not a scratchcard store (another program's SQLite database)")
        }
        if version == 0 && !allowEmpty {
            throw StoreError(path: path, kind: .other, message: "an empty store (no kiosk has used it yet)")
        }
        return version
    }

    /// The tables and indexes as our migrations made them: a store whose schema says
    /// otherwise (a damaged page in `sqlite_master`, a hand edit) is `.corrupt`. Found by
    /// the store fuzzer: a CHECK whose list of outcomes had changed passed SQLite's own
    /// checks, and every outcome the kiosk wrote was silently ignored (INSERT OR IGNORE).
    private func checkSchema() throws(StoreError) {
        let version = try connection.integer("PRAGMA user_version")
        let found = try Self.schema(of: connection)
        guard found == (try Self.expectedSchema(version: version)) else {
            throw StoreError(path: path, kind: .corrupt,
                             message: "the store is damaged (its tables are not those of a scratchcard store, schema \(version))")
        }
    }

    /// Each table and index: type, name and its SQL with the white space taken out.
    private static func schema(of connection: SQLiteConnection) throws(StoreError) -> [String] {
        let query = try connection.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
        var entries: [String] = []
        while try query.step() {
            let sql = query.optionalText(2).map { String($0.unicodeScalars.filter { !$0.properties.isWhitespace }) }
            entries.append("\(query.text(0)) \(query.text(1)) \(sql ?? "-")")
        }
        return entries
    }

    /// The schema that `migrations` up to `version` make, in a database in memory.
    private static func expectedSchema(version: Int) throws(StoreError) -> [String] {
        let fresh = try SQLiteConnection(path: ":memory:")
        for step in migrations.prefix(max(0, version)) { try fresh.execute(step) }
        return try schema(of: fresh)
    }

    /// Brings the schema up to `schemaVersion`, one step per version, each in a
    /// transaction of its own.
    private func migrate() throws(StoreError) {
        var version = try checkVersion(allowEmpty: true)
        while version < Self.schemaVersion {
            let step = Self.migrations[version]
            try connection.transaction { () throws(StoreError) in
                try connection.execute(step)
                try connection.execute("PRAGMA user_version = \(version + 1)")
                try connection.execute("PRAGMA application_id = \(Self.applicationID)")
            }
            version += 1
        }
    }

    /// `migrations[n]` takes a store from version n to n + 1.
    static let migrations = [
        """
        CREATE TABLE deals(
            seq INTEGER PRIMARY KEY,
            deal TEXT NOT NULL UNIQUE,
            card TEXT NOT NULL,
            prize TEXT NOT NULL,
            cover TEXT,
            shown_at REAL NOT NULL,
            last_touch REAL,
            revealed_how TEXT,
            reveal_ms INTEGER,
            reveal_fraction REAL);
        CREATE INDEX deals_by_card ON deals(card);
        CREATE TABLE outcomes(
            deal TEXT PRIMARY KEY REFERENCES deals(deal),
            outcome TEXT NOT NULL CHECK (outcome IN ('revealed', 'abandoned', 'quit')),
            how TEXT,
            fraction REAL NOT NULL,
            reveal_ms INTEGER,
            duration_ms INTEGER NOT NULL,
            ended_at REAL NOT NULL) WITHOUT ROWID;
        CREATE TABLE strokes(
            batch INTEGER PRIMARY KEY,
            deal TEXT NOT NULL REFERENCES deals(deal),
            lines TEXT NOT NULL);
        CREATE INDEX strokes_by_deal ON strokes(deal);
        """,
        poolOutboxMigration,     // 2: KioskStore+Pool.swift
        claimsMigration,         // 3: Claims+Store.swift
        claimBookMigration + ticketsMigration,   // 4: Claims+Store.swift, KioskStore+Tickets.swift
        picksMigration,          // 5: KioskStore+Picks.swift
    ]

    // MARK: PrizeLedger

    public func dealtCounts() throws(StoreError) -> [String: Int] {
        let query = try connection.prepare("SELECT card, count(*) FROM deals GROUP BY card")
        var counts: [String: Int] = [:]
        while try query.step() { counts[query.text(0)] = query.integer(1) }
        return counts
    }

    public func deal(_ card: DeckCard, shownAt: Double,
                     ending: (deal: DealID, outcome: OutcomeRecord)?) throws(StoreError) -> DealID? {
        try deal(card, shownAt: shownAt, ending: ending, id: nil)
    }

    /// `deal`, with the deal's id chosen before (a claim card's code is drawn on its
    /// prize before the deal is committed; nil: a new random one).
    public func deal(_ card: DeckCard, shownAt: Double,
                     ending: (deal: DealID, outcome: OutcomeRecord)?, id chosen: DealID?) throws(StoreError) -> DealID? {
        try connection.transaction { () throws(StoreError) -> DealID? in
            if let stock = card.stock {
                let dealt = try connection.prepare("SELECT count(*) FROM deals WHERE card = ?")
                try dealt.bind(.text(card.id))
                // Checked before anything is written: a refusal commits nothing.
                guard try dealt.step(), dealt.integer(0) < stock else { return nil }
            }
            if let ending { try writeOutcome(ending.deal, ending.outcome) }
            let id = chosen ?? DealID.random()
            try connection.prepare("INSERT INTO deals(deal, card, prize, cover, shown_at) VALUES (?, ?, ?, ?, ?)")
                .bind(.text(id.text), .text(card.id), .text(card.prize ?? ""), .optional(card.cover), .real(try orderedTime(shownAt))).run()
            try recordClaim(id, card: card)
            return id
        }
    }

    @discardableResult
    public func finish(_ deal: DealID, outcome: OutcomeRecord) throws(StoreError) -> Bool {
        try connection.transaction { () throws(StoreError) -> Bool in try writeOutcome(deal, outcome) }
    }

    /// Inside a transaction: the outcome (once; false if it had one) with a zone ticket's
    /// picks, and the end of the deal's strokes, which only the card on show needs.
    @discardableResult
    func writeOutcome(_ deal: DealID, _ outcome: OutcomeRecord) throws(StoreError) -> Bool {
        try connection.prepare("""
            INSERT OR IGNORE INTO outcomes(deal, outcome, how, fraction, reveal_ms, duration_ms, ended_at, picks)
            SELECT deal, ?, ?, ?, ?, ?, ?, ? FROM deals WHERE deal = ?
            """).bind(.text(outcome.outcome.rawValue), .optional(outcome.how?.rawValue), .real(outcome.fraction),
                      .optional(outcome.revealMilliseconds), .integer(outcome.durationMilliseconds),
                      .real(try orderedTime(Date().timeIntervalSince1970)), .optional(outcome.picks.map(ZonePick.json)),
                      .text(deal.text)).run()
        let written = connection.changes > 0
        try connection.prepare("DELETE FROM strokes WHERE deal = ?").bind(.text(deal.text)).run()
        return written
    }

    public func stockReport(deck: Deck?) throws(StoreError) -> [StockLine] {
        let query = try connection.prepare("""
            SELECT d.card, count(*), count(o.outcome = 'revealed' OR NULL), count(o.outcome = 'abandoned' OR NULL),
                   count(o.outcome = 'quit' OR NULL)
            FROM deals d LEFT JOIN outcomes o ON o.deal = d.deal GROUP BY d.card
            """)
        var counted: [String: StockLine] = [:]
        while try query.step() {
            let id = query.text(0)
            counted[id] = StockLine(cardID: id, stock: nil, dealt: query.integer(1), revealed: query.integer(2),
                                    abandoned: query.integer(3), quit: query.integer(4))
        }
        var lines: [StockLine] = []
        for card in deck?.cards ?? [] {
            var line = counted.removeValue(forKey: card.id)
                ?? StockLine(cardID: card.id, stock: nil, dealt: 0, revealed: 0, abandoned: 0, quit: 0)
            line.stock = card.stock
            lines.append(line)
        }
        return lines + counted.keys.sorted().map { counted[$0]! }
    }

    // MARK: CardOnShowStore

    public func pendingDeal() throws(StoreError) -> PendingDeal? {
        let query = try connection.prepare("""
            SELECT deal, card, prize, cover, shown_at, last_touch, revealed_how, reveal_ms, reveal_fraction FROM deals
            WHERE NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.deal = deals.deal) ORDER BY seq DESC LIMIT 1
            """)
        guard try query.step() else { return nil }
        let deal = DealID(query.text(0))
        var reveal: (how: RevealCause, afterMilliseconds: Int, fraction: Double)?
        if let how = query.optionalText(6).flatMap(RevealCause.init(rawValue:)) {
            reveal = (how, query.optionalInteger(7) ?? 0, query.optionalReal(8) ?? 0)
        }
        var pending = PendingDeal(deal: deal, cardID: query.text(1), prize: query.text(2), cover: query.optionalText(3),
                                  shownAt: query.real(4), lastTouch: query.optionalReal(5), reveal: reveal, strokes: "")
        let strokes = try connection.prepare("SELECT lines FROM strokes WHERE deal = ? ORDER BY batch")
        try strokes.bind(.text(deal.text))
        while try strokes.step() { pending.strokes += strokes.text(0) }
        return pending
    }

    /// Every deal without an outcome, oldest first (there is at most one unless
    /// something went wrong; the kiosk ends the others).
    public func pendingDeals() throws(StoreError) -> [DealID] {
        let query = try connection.prepare("""
            SELECT deal FROM deals WHERE NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.deal = deals.deal) ORDER BY seq
            """)
        var deals: [DealID] = []
        while try query.step() { deals.append(DealID(query.text(0))) }
        return deals
    }

    /// Saves a batch of the card on show's strokes. Committed without waiting for the
    /// disk (see the type's note): in the WAL when this returns, synced just after.
    public func saveStrokes(_ deal: DealID, lines: String, lastTouch: Double) throws(StoreError) {
        let unsynced = journal != nil
        if unsynced { try connection.execute("PRAGMA synchronous = NORMAL") }
        let saved = Result { () throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                try connection.prepare("INSERT INTO strokes(deal, lines) VALUES (?, ?)").bind(.text(deal.text), .text(lines)).run()
                try connection.prepare("UPDATE deals SET last_touch = ? WHERE deal = ?").bind(.real(lastTouch), .text(deal.text)).run()
            }
        }
        // Back to FULL before anything else is committed, whatever became of the batch.
        if unsynced { try connection.execute("PRAGMA synchronous = FULL") }
        try saved.get()
        journal?.request()
    }

    public func saveReveal(_ deal: DealID, how: RevealCause, afterMilliseconds: Int, fraction: Double) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            try connection.prepare("UPDATE deals SET revealed_how = ?, reveal_ms = ?, reveal_fraction = ? WHERE deal = ?")
                .bind(.text(how.rawValue), .integer(afterMilliseconds), .real(fraction), .text(deal.text)).run()
        }
    }

    // MARK: Reading

    /// Every ended deal as an outcome-log record, in the order dealt.
    public func outcomeRecords() throws(StoreError) -> [OutcomeRecord] {
        try readOutcomes().records
    }

    /// Every ended deal as an outcome-log record (a zone ticket's with its picks), in the
    /// order dealt, and how many records' picks could not be read (a damaged value): those
    /// records are kept, their picks left out.
    public func readOutcomes() throws(StoreError) -> (records: [OutcomeRecord], unreadablePicks: Int) {
        let query = try connection.prepare("""
            SELECT d.shown_at, d.card, d.prize, o.outcome, o.how, o.fraction, o.reveal_ms, o.duration_ms, \(try column("o.picks", since: Self.picksSchema))
            FROM deals d JOIN outcomes o ON o.deal = d.deal ORDER BY d.seq
            """)
        var records: [OutcomeRecord] = [], unreadable = 0
        while try query.step() {
            guard let outcome = CardOutcome(rawValue: query.text(3)) else { continue }
            var record = OutcomeRecord(shownAt: query.real(0), cardID: query.text(1), prize: query.text(2), outcome: outcome,
                                       how: query.optionalText(4).flatMap(RevealCause.init(rawValue:)),
                                       fraction: query.real(5), revealMilliseconds: query.optionalInteger(6),
                                       durationMilliseconds: query.integer(7))
            let (picks, damaged) = storedPicks(query.optionalText(8))
            record.picks = picks
            if damaged { unreadable += 1 }
            records.append(record)
        }
        return (records, unreadable)
    }

    /// Every deal id with its card and how many outcomes it has (0 or 1), in order: for
    /// tests and checks.
    public func dealsWithOutcomeCounts() throws(StoreError) -> [(deal: DealID, card: String, outcomes: Int)] {
        let query = try connection.prepare("""
            SELECT d.deal, d.card, (SELECT count(*) FROM outcomes o WHERE o.deal = d.deal) FROM deals d ORDER BY d.seq
            """)
        var rows: [(deal: DealID, card: String, outcomes: Int)] = []
        while try query.step() { rows.append((DealID(query.text(0)), query.text(1), query.integer(2))) }
        return rows
    }

    /// Writes the whole store into a new file at `path` (`VACUUM INTO`).
    public func write(to path: String) throws(StoreError) {
        try connection.prepare("VACUUM INTO ?").bind(.text(path)).run()
    }

    /// True when the file at `path` starts as an SQLite database does.
    public static func isStoreFile(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 16)
        guard read(fd, &header, 16) == 16 else { return false }
        return header == Array("SQLite format 3\0".utf8)
    }

    /// A damaged store moved aside as `PATH.corrupt-YYYYMMDD-HHMMSS` (its WAL beside it),
    /// so that a new one can start; returns the new name.
    public static func moveAside(_ path: String) throws(StoreError) -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y%m%d-%H%M%S", &parts)
        let stamp = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var aside = "\(path).corrupt-\(stamp)", n = 2
        while access(aside, F_OK) == 0 { aside = "\(path).corrupt-\(stamp)-\(n)"; n += 1 }
        guard rename(path, aside) == 0 else {
            throw StoreError(path: path, kind: .cannotWrite, message: "cannot move the damaged store aside: \(String(cString: strerror(errno)))")
        }
        _ = rename(path + "-wal", aside + "-wal")
        _ = unlink(path + "-shm")
        return aside
    }
}
