// A private X server for tests: Xvfb on a display number nobody uses, started and
// stopped by the test that needs it. Tests never use the ambient $DISPLAY.
import Foundation
@preconcurrency import Glibc

public struct XvfbError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A private Xvfb server, stopped by `stop()` or when released.
///
///     let server = try Xvfb(width: 640, height: 480, extraArguments: ["-extension", "MIT-SHM"])
///     defer { server.stop() }
///     let display = try X11Display(name: server.displayName)
///     try server.run("xdotool", ["mousemove", "10", "10"])
public final class Xvfb: TestXServer {
    public let displayNumber: Int
    /// ":N", for XOpenDisplay.
    public var displayName: String { ":\(displayNumber)" }
    /// This process's environment with DISPLAY set to this server, for child processes.
    public var environment: [String: String] {
        var env = Xvfb.environment(display: displayName)
        // A kiosk keeps its store in $XDG_STATE_HOME: each server's programs get a folder
        // of their own, so that no test takes up a card another left on show.
        env["XDG_STATE_HOME"] = stateFolder
        return env
    }
    /// XDG_STATE_HOME for the programs run against this server; removed by `stop()`.
    public var stateFolder: String { "/tmp/scratchcard-state-\(getpid())-\(displayNumber)" }
    /// The server's process id; we spawn and reap it ourselves.
    public let pid: pid_t
    private var exited = false

    /// Starts `Xvfb :N -screen 0 WxHxD -nolisten tcp -noreset -dpi DPI extra…` on the
    /// first free N from a start that depends on our pid (no /tmp/.X11-unix/XN socket,
    /// no /tmp/.XN-lock), trying the next numbers if it exits at once, and waits (at
    /// most `timeout` seconds) until its socket accepts connections.
    ///
    /// `runAs`: run the server as that user and group (through `setpriv --reuid --regid
    /// --clear-groups`, no shell; needs root), so it is not the clients' user: it then
    /// cannot attach their 0600 MIT-SHM segments and answers BadAccess.
    public init(width: Int = 640, height: Int = 480, depth: Int = 24, dpi: Int? = nil,
                extraArguments: [String] = [], runAs: (uid: UInt32, gid: UInt32)? = nil, timeout: Double = 10) throws {
        guard let xvfb = Xvfb.find("Xvfb") else { throw XvfbError("Xvfb is not installed") }
        var executable = xvfb
        var prefix: [String] = []
        if let runAs {
            guard let setpriv = Xvfb.find("setpriv") else { throw XvfbError("setpriv is not installed") }
            executable = setpriv
            prefix = ["--reuid", "\(runAs.uid)", "--regid", "\(runAs.gid)", "--clear-groups", xvfb]
        }
        let started = try Xvfb.startOnFreeDisplay(from: 100 + Int(getpid() % 300) * 3 + Int.random(in: 0..<3),
                                                  attempts: 8, name: "Xvfb", timeout: timeout) { candidate in
            var arguments = prefix + [":\(candidate)", "-screen", "0", "\(width)x\(height)x\(depth)", "-nolisten", "tcp",
                                      "-noreset"]
            if let dpi { arguments += ["-dpi", "\(dpi)"] }
            return try Xvfb.spawn(executable, arguments + extraArguments)
        }
        displayNumber = started.display
        pid = started.pid
    }

    deinit { stop() }

    /// Stops the server: SIGTERM (it removes its socket and lock file), then SIGKILL if
    /// it has not gone within 5 s; reaps it; removes a socket or lock it left behind.
    public func stop() {
        guard !exited else { return }
        exited = true
        try? FileManager.default.removeItem(atPath: stateFolder)
        Xvfb.terminate(pid)
        // A lock naming our server is stale now.
        let lock = "/tmp/.X\(displayNumber)-lock"
        if let text = try? String(contentsOfFile: lock, encoding: .utf8),
           Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) == Int(pid) {
            unlink(lock)
            unlink("/tmp/.X11-unix/X\(displayNumber)")
        }
    }

    /// Whether the server is still running.
    public var isRunning: Bool {
        !exited && kill(pid, 0) == 0
    }

    /// posix_spawn with /dev/null for standard input, and for output and error unless
    /// `logPath` names a file to append both to (and `environment`
    /// as "K=V" strings when given, else ours), and default
    /// signal handling and mask (so SIGTERM reaches the server whatever our threads block).
    /// `standardOutput`: a descriptor (a pipe's write end) for the child's output alone,
    /// its error then going to `logPath` or /dev/null; `closing`: descriptors the child
    /// must not keep (the pipe's read end).
    public static func spawn(_ executable: String, _ arguments: [String], environment: [String]? = nil,
                             outputTo logPath: String? = nil, standardOutput: Int32? = nil,
                             closing: [Int32] = []) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let standardOutput {
            posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
            posix_spawn_file_actions_addopen(&actions, 2, logPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, logPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        for fd in closing { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGUSR1] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let result: Int32
        if let environment {
            let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
            defer { for e in envp { free(e) } }
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        } else {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        guard result == 0 else { throw XvfbError("cannot start \(executable): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Runs `program` with `arguments` and `environment` (no shell), as `run`.
    @discardableResult
    public static func run(_ program: String, _ arguments: [String], environment: [String: String],
                           input: String? = nil) throws -> String {
        guard let executable = Xvfb.find(program) else { throw XvfbError("\(program) is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw XvfbError("\(program) \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus): \(String(decoding: errorData, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `xrdb -nocpp -merge` with `resources` on standard input.
    public func xrdb(merge resources: String) throws { try run("xrdb", ["-nocpp", "-merge"], input: resources) }

    /// `xprop -id ID` (optionally only some properties).
    public func xprop(id: UInt, _ properties: String...) throws -> String {
        try run("xprop", ["-id", "\(id)"] + properties)
    }

    // MARK: -

    public static func find(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/bin"] {
            let candidate = "\(directory)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func isFree(_ n: Int) -> Bool {
        access("/tmp/.X11-unix/X\(n)", F_OK) != 0 && access("/tmp/.X\(n)-lock", F_OK) != 0
    }

    static func nextFree(from start: Int) -> Int {
        var n = start
        while !isFree(n) { n += 1 }
        return n
    }

    /// Starts a server with `spawn(N)` on the first free display number N from `start`,
    /// trying the next numbers (`attempts` in all) when it exits at once (another server
    /// took the number first), and waits for each at most `timeout` s to accept
    /// connections. `name` goes into the error.
    static func startOnFreeDisplay(from start: Int, attempts: Int, name: String, timeout: Double,
                                   spawn: (Int) throws -> pid_t) throws -> (display: Int, pid: pid_t) {
        var candidate = start
        var lastProblem = "no free display number"
        for _ in 0..<attempts {
            candidate = nextFree(from: candidate)
            let pid = try spawn(candidate)
            switch waitForSocket(display: candidate, pid: pid, timeout: timeout) {
            case .ready:
                return (candidate, pid)
            case .exited(let status):
                lastProblem = "\(name) :\(candidate) exited at once (wait status \(status))"
            case .timedOut:
                lastProblem = "\(name) :\(candidate) did not accept connections within \(timeout) s"
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
            candidate += 1
        }
        throw XvfbError(lastProblem)
    }

    /// SIGTERM, then SIGKILL if `pid` has not gone within 5 s; reaps it.
    public static func terminate(_ pid: pid_t) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(5_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// This process's environment with DISPLAY set to `displayName`, without XAUTHORITY.
    static func environment(display displayName: String) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = displayName
        env.removeValue(forKey: "XAUTHORITY")
        return env
    }

    /// Polls until our server holds the display's lock file and a connect() to its Unix
    /// socket succeeds, the process exits, or the timeout passes.
    enum Start { case ready, exited(Int32), timedOut }

    static func waitForSocket(display: Int, pid: pid_t, timeout: Double) -> Start {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return .exited(status) }   // the number was taken?
            // The socket may be another server's that took the number first (our Xvfb
            // then exits): ready only when the lock file names our process.
            if lockOwner(display: display) == pid, canConnect(path: "/tmp/.X11-unix/X\(display)") { return .ready }
            usleep(20_000)
        }
        return .timedOut
    }

    /// The pid written in /tmp/.XN-lock by the server holding display N, if any.
    static func lockOwner(display: Int) -> pid_t? {
        guard let text = try? String(contentsOfFile: "/tmp/.X\(display)-lock", encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func canConnect(path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
