@preconcurrency import Glibc
import CLibPQ
import ScratchCore

/// Why the shared pool could not be used. `isUnreachable` errors (no connection, a lost
/// one, a reply that did not come in time) are the ones a kiosk rides out offline; the
/// others are mistakes to fix (a bad connection string, a missing schema).
public struct PoolError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// The connection string cannot be used (or carries a password).
        case badConnectionString
        /// The server cannot be reached, the connection was lost, or a reply timed out.
        case unreachable
        /// The pool's schema is missing (run `scratchcard pool init`) or newer than ours.
        case schema
        /// Another running kiosk uses the same kiosk id.
        case kioskIDInUse
        /// The server refused a statement.
        case statement
    }

    public let kind: Kind
    public let message: String
    /// A refused statement's SQLSTATE (23505: a unique key already there).
    public var sqlState: String?

    public init(_ kind: Kind, _ message: String, sqlState: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    public var isUnreachable: Bool { kind == .unreachable }
    public var description: String { message }
}

/// Where a pool is, as the user gave it (`--pool`): a libpq connection string
/// (`host=... dbname=...`) or URI (`postgresql://user@host/db`). It never holds a
/// password: libpq reads that from `PGPASSFILE` or `~/.pgpass`, so no password is ever
/// on a command line, in a config file or in a log. `description` shows only host, port,
/// database and user.
public struct PoolAddress: Sendable, Equatable, CustomStringConvertible {
    /// The text given, checked: parsed by libpq (`PQconninfoParse`), no password in it.
    public let conninfo: String
    /// host, port, dbname, user as libpq read them (absent ones left out).
    public let description: String

    public init(_ text: String, environment: [String: String]) throws(PoolError) {
        guard !text.isEmpty, text.utf8.count <= 4096, !text.utf8.contains(0) else {
            throw PoolError(.badConnectionString, "--pool: an empty or over-long connection string")
        }
        // Checked by hand first, so that a password never reaches an error message of
        // libpq's that would quote the text around it.
        if Self.looksLikeItHoldsAPassword(text) {
            throw PoolError(.badConnectionString,
                            "--pool: the connection string holds a password; put it in PGPASSFILE or ~/.pgpass (mode 0600) instead, never on a command line or in a config file")
        }
        if environment["PGPASSWORD"].map({ !$0.isEmpty }) == true {
            throw PoolError(.badConnectionString,
                            "PGPASSWORD is set: scratchcard takes the pool's password only from PGPASSFILE or ~/.pgpass (mode 0600); unset PGPASSWORD")
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &error) else {
            var reason = error.map { trimmedSpace(String(cString: $0)) } ?? "out of memory"
            if let error { PQfreemem(error) }
            // libpq's reason quotes the text around the fault: when the string mentions a
            // password or holds a URI's user part, that could be one. Say less then.
            // (firstRange(of:), the standard library's: Foundation's String.contains would
            // link all of swift-corelibs-foundation into the static binary.)
            if text.lowercased().firstRange(of: "password") != nil || text.contains(Character("@")) { reason = "check its syntax" }
            throw PoolError(.badConnectionString, "--pool: not a PostgreSQL connection string or URI (\(reason))")
        }
        defer { PQconninfoFree(options) }
        var shown: [String] = []
        var i = 0
        while let keyword = options[i].keyword {
            let name = String(cString: keyword)
            if let value = options[i].val {
                if name == "password" {
                    throw PoolError(.badConnectionString,
                                    "--pool: the connection string holds a password; put it in PGPASSFILE or ~/.pgpass (mode 0600) instead")
                }
                if ["host", "hostaddr", "port", "dbname", "user"].contains(name) { shown.append("\(name)=\(String(cString: value))") }
            }
            i += 1
        }
        conninfo = text
        description = shown.isEmpty ? "the default PostgreSQL server" : shown.joined(separator: " ")
    }

    /// `password=` in a keyword string, `user:secret@` in a URI, `password=` in a URI's query.
    static func looksLikeItHoldsAPassword(_ text: String) -> Bool {
        let lower = text.lowercased()
        if lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://") {
            let rest = lower.drop(while: { $0 != "/" }).dropFirst(2)
            let authority = rest.prefix(while: { $0 != "/" && $0 != "?" })
            if let at = authority.lastIndex(of: "@"), authority[..<at].contains(Character(":")) { return true }
            if let query = rest.firstIndex(of: "?") {
                return rest[query...].dropFirst().split(separator: "&").contains { $0.hasPrefix("password=") }
            }
            return false
        }
        // Keyword form: `password` as a keyword (spaces allowed around the `=`).
        var words = lower.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })[...]
        while let word = words.popFirst() {
            if word == "password" || word.hasPrefix("password=") { return true }
        }
        return false
    }
}

/// One libpq connection (`PGconn`), used from one thread at a time. Every libpq call
/// goes through here: no PGconn or PGresult pointer leaves this file. Statements are sent
/// without blocking (`PQsendQueryParams`) and their replies awaited with `poll()` up to
/// a deadline, so a server that stops answering costs at most `timeout` seconds, never
/// a hang; the connection is then dropped and the error is `.unreachable`.
final class PostgresConnection {
    private var handle: OpaquePointer?
    let address: PoolAddress
    /// Seconds a reply may take before the connection is given up.
    let timeout: Double

    /// Connects (`PQconnectdbParams`, `connect_timeout` bounding each attempt).
    init(_ address: PoolAddress, connectTimeout: Int = 3, timeout: Double = 5) throws(PoolError) {
        self.address = address
        self.timeout = timeout
        // `dbname` expands the user's string (URI or keywords); the keywords after it are
        // defaults only where the user's string says nothing (libpq: later keywords
        // override, so they are added only when absent).
        var keywords = ["dbname"], values = [address.conninfo]
        let given = Self.keywordsGiven(address.conninfo)
        if !given.contains("connect_timeout") { keywords.append("connect_timeout"); values.append(String(connectTimeout)) }
        if !given.contains("application_name") { keywords.append("application_name"); values.append("scratchcard") }
        // A TCP peer that vanishes: unacknowledged data gives up after this many ms.
        if !given.contains("tcp_user_timeout") { keywords.append("tcp_user_timeout"); values.append(String(Int(timeout * 1000))) }
        let connection = Self.withCStrings(keywords) { k in
            Self.withCStrings(values) { v in PQconnectdbParams(k, v, 1) }
        }
        guard let connection else { throw PoolError(.unreachable, "\(address): out of memory connecting") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(connection)
            PQfinish(connection)
            throw PoolError(.unreachable, "cannot reach the pool at \(address): \(message)")
        }
        // The server's notices ("relation already exists, skipping") are not the user's
        // business: libpq would print them on stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        // Replies are awaited with poll(); sends must not block either.
        _ = PQsetnonblocking(connection, 1)
        handle = connection
    }

    deinit { close() }

    /// Drops the connection (the server sees the session end at once).
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    var isOpen: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    private static func keywordsGiven(_ conninfo: String) -> Set<String> {
        guard let options = PQconninfoParse(conninfo, nil) else { return [] }
        defer { PQconninfoFree(options) }
        var given: Set<String> = []
        var i = 0
        while let keyword = options[i].keyword {
            if options[i].val != nil { given.insert(String(cString: keyword)) }
            i += 1
        }
        return given
    }

    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        pointers.append(nil)
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static func message(_ connection: OpaquePointer) -> String {
        guard let text = PQerrorMessage(connection) else { return "unknown error" }
        let lines = String(cString: text).split(separator: "\n").map { trimmedSpace($0) }
        return lines.filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// Runs one statement with text parameters ($1, $2, ...; nil is NULL) and returns its
    /// rows as text (nil for NULL). A lost connection or a reply later than `timeout` is
    /// `.unreachable` and closes the connection; a statement the server refused is
    /// `.statement` with its SQLSTATE in `sqlState`.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws(PoolError) -> PostgresRows {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { throw PoolError(.unreachable, "the pool connection is closed") }
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        // Without parameters, the simple protocol: a script of several statements (a
        // migration) is allowed there.
        let sent = parameters.isEmpty ? PQsendQuery(handle, sql) : pointers.withUnsafeBufferPointer { values in
            PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 0)
        }
        guard sent == 1 else { throw lost("cannot send to the pool") }
        let deadline = monotonicNow() + timeout
        // Flush what libpq could not write at once, then read until the reply is whole.
        while true {
            let flushed = PQflush(handle)
            if flushed < 0 { throw lost("cannot send to the pool") }
            if flushed == 0 { break }
            try wait(for: Int16(POLLIN | POLLOUT), until: deadline)
            if PQconsumeInput(handle) == 0 { throw lost("the pool connection was lost") }
        }
        while PQisBusy(handle) == 1 {
            try wait(for: Int16(POLLIN), until: deadline)
            if PQconsumeInput(handle) == 0 { throw lost("the pool connection was lost") }
        }
        var rows = PostgresRows()
        var failure: PoolError?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            if status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK {
                rows = PostgresRows(result)
            } else if failure == nil {
                let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
                let text = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? Self.message(handle)
                failure = PoolError(.statement, "the pool refused a statement: \(text) (SQLSTATE \(state))", sqlState: state)
            }
            if PQisBusy(handle) == 1 {
                try wait(for: Int16(POLLIN), until: deadline)
                if PQconsumeInput(handle) == 0 { throw lost("the pool connection was lost") }
            }
        }
        if PQstatus(handle) != CONNECTION_OK { throw lost("the pool connection was lost") }
        if let failure {
            if let state = failure.sqlState, Self.connectionClasses.contains(where: { state.hasPrefix($0) }) {
                throw lost(failure.message)
            }
            throw failure
        }
        return rows
    }

    /// SQLSTATE classes meaning the server is going away or unusable for now: a restart
    /// (57P01 admin shutdown, 57P03 cannot connect now), connection exceptions (08).
    private static let connectionClasses = ["08", "57P"]

    private func wait(for events: Int16, until deadline: Double) throws(PoolError) {
        guard let handle else { throw PoolError(.unreachable, "the pool connection is closed") }
        let left = deadline - monotonicNow()
        guard left > 0 else { throw lost("the pool did not answer within \(Int(timeout.rounded())) s") }
        var descriptor = pollfd(fd: PQsocket(handle), events: events, revents: 0)
        let ready = poll(&descriptor, 1, Int32(min(left * 1000 + 1, 60_000)))
        if ready < 0 && errno != EINTR { throw lost("cannot wait for the pool: \(String(cString: strerror(errno)))") }
    }

    private func lost(_ what: String) -> PoolError {
        let detail = handle.map { Self.message($0) } ?? ""
        close()
        return PoolError(.unreachable, detail.isEmpty ? what : "\(what): \(detail)")
    }
}

/// The rows of one reply, copied out of the `PGresult` as text (nil for NULL).
struct PostgresRows {
    var rows: [[String?]] = []

    init() {}

    fileprivate init(_ result: OpaquePointer) {
        let count = PQntuples(result), columns = PQnfields(result)
        rows.reserveCapacity(Int(count))
        for r in 0..<count {
            var row: [String?] = []
            for c in 0..<columns {
                row.append(PQgetisnull(result, r, c) == 1 ? nil : String(cString: PQgetvalue(result, r, c)))
            }
            rows.append(row)
        }
    }

    var count: Int { rows.count }
    subscript(row: Int, column: Int) -> String? { rows[row][column] }
    func integer(_ row: Int, _ column: Int) -> Int? { rows[row][column].flatMap { Int($0) } }
}

/// Seconds on the monotonic clock.
func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// `text` without spaces, tabs and line ends at either end (Foundation's
/// `trimmingCharacters(in:)` would link swift-corelibs-foundation into the static binary).
func trimmedSpace<S: StringProtocol>(_ text: S) -> String {
    let space: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let first = text.firstIndex(where: { !space($0) }), let last = text.lastIndex(where: { !space($0) }) else { return "" }
    return String(text[first...last])
}
