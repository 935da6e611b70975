import Foundation
@preconcurrency import Glibc
import TestRequirements

/// A private PostgreSQL server for one test: Debian's postgresql 15 binaries, `initdb`
/// into a fresh temporary folder, listening on a unix socket in that folder only
/// (`listen_addresses=''`: no TCP port). The server refuses to run as root, so it runs as
/// an unprivileged user (`postgres`, which the package creates, else `scratchtest`, which
/// scripts/install-deps.sh creates) through `setpriv`, the folder chowned to it. The
/// password (random) reaches the clients through a PGPASSFILE, never a command line.
/// `stop()` (or releasing it) ends the server and removes the folder.
///
///     let server = try PostgresServer()
///     defer { server.stop() }
///     run(["pool", "init", "--pool", server.conninfo], environment: server.environment)
public final class PostgresServer: @unchecked Sendable {
    public static let binaries = "/usr/lib/postgresql/15/bin"
    public let folder: String
    public let user = "scratch"
    public let passFile: String
    private let owner: (uid: uid_t, gid: gid_t)
    private var server: Process?
    private let lock = NSLock()

    /// Why a server cannot be had here (not root, no postgres binaries, no user), or nil.
    public static var unavailable: String? {
        Requirement.first(Requirement.root(to: "run PostgreSQL as another user"),
                          Requirement.executable(binaries + "/postgres", from: "postgresql-15"),
                          serverUser() == nil ? "needs the user postgres (Debian's postgresql) or scratchtest (make deps makes it)" : nil)
    }

    static func serverUser() -> (uid: uid_t, gid: gid_t)? {
        for name in ["postgres", "scratchtest"] {
            if let entry = getpwnam(name) { return (entry.pointee.pw_uid, entry.pointee.pw_gid) }
        }
        return nil
    }

    /// The connection string for clients (the password comes from `environment`).
    public var conninfo: String { "host=\(folder) dbname=postgres user=\(user)" }

    /// What a client process needs: PGPASSFILE pointing at the password.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSFILE"] = passFile
        environment.removeValue(forKey: "PGPASSWORD")
        return environment
    }

    public init() throws {
        if let why = Self.unavailable { throw PostgresError(why) }
        owner = Self.serverUser()!
        var template = Array("/tmp/scratchpg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresError("mkdtemp failed") }
        folder = String(cString: made)
        passFile = folder + "/pgpass"
        let password = UUID().uuidString
        // The password file for initdb (the server user reads it) and the client's.
        let pwfile = folder + "/pwfile"
        try password.write(toFile: pwfile, atomically: false, encoding: .utf8)
        try "*:*:*:\(user):\(password)\n".write(toFile: passFile, atomically: false, encoding: .utf8)
        chmod(passFile, 0o600)
        chown(folder, owner.uid, owner.gid)
        chmod(folder, 0o700)
        chown(pwfile, owner.uid, owner.gid)
        let initdb = try Self.runAsServer(owner, Self.binaries + "/initdb",
                                          ["-D", folder + "/data", "-U", user, "--auth=scram-sha-256", "--pwfile=" + pwfile,
                                           "-E", "UTF8", "--no-locale", "--no-instructions"])
        unlink(pwfile)
        guard initdb.status == 0 else {
            remove()
            throw PostgresError("initdb failed: \(initdb.output.suffix(600))")
        }
        try start()
    }

    deinit { stop() }

    /// Starts the server (again) and waits until it accepts connections.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--clear-groups", "--",
                             Self.binaries + "/postgres", "-D", folder + "/data", "-k", folder, "-c", "listen_addresses=",
                             "-c", "max_connections=60", "-c", "shared_buffers=32MB"]
        process.standardInput = FileHandle.nullDevice
        let logFile = folder + "/server.log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        chown(logFile, owner.uid, owner.gid)
        process.standardOutput = FileHandle(forWritingAtPath: logFile)
        process.standardError = FileHandle(forWritingAtPath: logFile)
        try process.run()
        lock.withLock { server = process }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if !process.isRunning { throw PostgresError("postgres ended at start: \(log.suffix(800))") }
            let ready = try Self.run(Self.binaries + "/pg_isready", ["-q", "-h", folder, "-U", user, "-d", "postgres"])
            if ready.status == 0 { return }
            usleep(50_000)
        }
        throw PostgresError("postgres did not accept connections within 30 s: \(log.suffix(800))")
    }

    /// The server's own log.
    public var log: String { (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? "" }

    /// The postmaster's pid while it runs.
    public var pid: Int32? { lock.withLock { server?.isRunning == true ? server?.processIdentifier : nil } }

    /// kill -9 of the server: the postmaster and every backend at once (a power cut on
    /// the database's machine); returns when all are gone.
    public func kill9() {
        guard let process = lock.withLock({ server }) else { return }
        let postmaster = process.processIdentifier
        let all = [postmaster] + Self.children(of: postmaster)
        for pid in all { kill(pid, SIGKILL) }
        process.waitUntilExit()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && all.contains(where: { kill($0, 0) == 0 && !Self.isZombie($0) }) { usleep(20_000) }
        lock.withLock { server = nil }
    }

    /// Stops the server (fast shutdown, then SIGKILL if it lingers) and removes the folder.
    public func stop() {
        if let process = lock.withLock({ server }) {
            if process.isRunning {
                kill(process.processIdentifier, SIGINT)
                let deadline = Date().addingTimeInterval(10)
                while process.isRunning && Date() < deadline { usleep(20_000) }
                if process.isRunning { kill9() }
            }
            process.waitUntilExit()
            lock.withLock { server = nil }
        }
        remove()
    }

    private func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs SQL through psql (as a client, with the password file): the tests' window
    /// into the pool. Throws with psql's output when it fails.
    @discardableResult
    public func sql(_ statement: String) throws -> String {
        var environment = self.environment
        environment["PGOPTIONS"] = "-c client_min_messages=warning"
        let result = try Self.run("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", folder, "-U", user,
                                                    "-d", "postgres", "-c", statement], environment: environment)
        guard result.status == 0 else { throw PostgresError("psql failed: \(result.output)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func children(of parent: Int32) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == parent
        }
    }

    static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    static func runAsServer(_ owner: (uid: uid_t, gid: gid_t), _ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try run("/usr/bin/setpriv", ["--reuid=\(owner.uid)", "--regid=\(owner.gid)", "--clear-groups", "--", program] + arguments)
    }

    static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

public struct PostgresError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
