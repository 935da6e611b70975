@preconcurrency import Glibc
import CardRules
import CSQLite
import ScratchCore

/// One SQLite connection (`sqlite3_open_v2`), used from one thread. Every C call goes
/// through here: result codes become `StoreError`s naming the file, and no sqlite3
/// pointer leaves this file.
final class SQLiteConnection {
    let path: String
    private let handle: OpaquePointer

    /// Opens (`create`: and creates) the database at `path`; `:memory:` for one in memory.
    init(path: String, readOnly: Bool = false, create: Bool = true) throws(StoreError) {
        self.path = path
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
            | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let db { sqlite3_close_v2(db) }
            throw Self.error(path: path, code: code, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// The error for a result code: corrupt, full, locked, read-only are told apart.
    static func error(path: String, code: Int32, message: String) -> StoreError {
        let kind: StoreError.Kind
        switch code & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .corrupt
        case SQLITE_FULL: kind = .full
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .locked
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH: kind = .cannotWrite
        case SQLITE_IOERR:
            // A write the disk refused: ENOSPC shows up as an I/O error from some calls.
            kind = errno == ENOSPC ? .full : .other
        default: kind = .other
        }
        let what: String
        switch kind {
        case .corrupt: what = "the store is damaged (\(message))"
        case .full: what = "the disk is full (\(message))"
        case .locked: what = "the store is locked by another program (\(message))"
        case .cannotWrite: what = "cannot write the store (\(message))"
        default: what = message
        }
        return StoreError(path: path, kind: kind, message: what)
    }

    func fail(_ code: Int32) -> StoreError {
        Self.error(path: path, code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(StoreError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw fail(code) }
    }

    func prepare(_ sql: String) throws(StoreError) -> Statement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw fail(code) }
        return Statement(connection: self, handle: statement)
    }

    /// The first column of the first row of a query, as an integer (0 when no row).
    func integer(_ sql: String) throws(StoreError) -> Int {
        let statement = try prepare(sql)
        return try statement.step() ? statement.integer(0) : 0
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: committed when it returns, rolled
    /// back when it throws.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Copies the whole database into `target` (`sqlite3_backup`).
    func copy(into target: SQLiteConnection) throws(StoreError) {
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw target.fail(sqlite3_errcode(target.handle))
        }
        let code = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else { throw fail(code) }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }
}

/// A prepared statement; values bound by position from 1, columns read from 0.
final class Statement {
    private let connection: SQLiteConnection
    private let handle: OpaquePointer

    fileprivate init(connection: SQLiteConnection, handle: OpaquePointer) {
        self.connection = connection
        self.handle = handle
    }

    deinit { sqlite3_finalize(handle) }

    @discardableResult
    func bind(_ values: StoreValue?...) throws(StoreError) -> Statement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let code: Int32
            switch value {
            case nil: code = sqlite3_bind_null(handle, index)
            case .integer(let v)?: code = sqlite3_bind_int64(handle, index, Int64(v))
            case .real(let v)?: code = sqlite3_bind_double(handle, index, v)
            case .text(let v)?: code = sqlite3_bind_text(handle, index, v, -1, csqlite_transient())
            case .blob(let v)?:
                code = v.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64($0.count), csqlite_transient()) }
            }
            guard code == SQLITE_OK else { throw connection.fail(code) }
        }
        return self
    }

    /// The next row: true when there is one, false when done.
    func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.fail(code)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws(StoreError) {
        while try step() {}
        sqlite3_reset(handle)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func integer(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func real(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: bytes)
    }
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
    func blob(_ column: Int32) -> [UInt8] {
        // The pointer first, then its size (SQLite's documented order).
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
    func optionalInteger(_ column: Int32) -> Int? { isNull(column) ? nil : integer(column) }
    func optionalReal(_ column: Int32) -> Double? { isNull(column) ? nil : real(column) }
}

/// A value bound into a statement.
enum StoreValue {
    case integer(Int)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension StoreValue {
    static func optional(_ text: String?) -> StoreValue? { text.map(StoreValue.text) }
    static func optional(_ value: Int?) -> StoreValue? { value.map(StoreValue.integer) }
    static func optional(_ value: Double?) -> StoreValue? { value.map(StoreValue.real) }
}
