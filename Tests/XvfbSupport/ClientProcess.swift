// A desktop client (xclip, a GTK drag source, xdotool) run in the background against a
// test's server, while the test's own window goes on reading its events: the client and
// the window talk to each other through the server, so neither may wait for the other.
import Foundation
@preconcurrency import Glibc

/// A program started with `server`'s environment; its standard output and error go to
/// files of their own (a PNG of megabytes must not fill a pipe nobody reads yet).
public final class ClientProcess {
    public let pid: pid_t
    private let outputPath: String
    private let errorPath: String
    private var exitStatus: Int32?

    /// Started with posix_spawn (`Xvfb.spawn`) and reaped here with waitpid: a client
    /// that forks and exits (xclip -i) is seen to exit at once.
    public init(_ program: String, _ arguments: [String], environment: [String: String]) throws {
        guard let executable = program.hasPrefix("/") ? program : Xvfb.find(program) else {
            throw XvfbError("\(program) is not installed")
        }
        let stem = NSTemporaryDirectory() + "client-\(getpid())-\(UUID().uuidString)"
        outputPath = stem + ".out"
        errorPath = stem + ".err"
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard output >= 0 else { throw XvfbError("cannot create \(outputPath)") }
        defer { close(output) }
        pid = try Xvfb.spawn(executable, arguments, environment: environment.map { "\($0.key)=\($0.value)" },
                             outputTo: errorPath, standardOutput: output)
    }

    deinit {
        stop()
        unlink(outputPath)
        unlink(errorPath)
    }

    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return false
    }
    /// The exit status once it has exited (128 + the signal when killed).
    public var status: Int32? { isRunning ? nil : exitStatus }
    /// What it wrote on standard output so far.
    public var output: Data { FileManager.default.contents(atPath: outputPath) ?? Data() }
    public var outputText: String { String(decoding: output, as: UTF8.self) }
    public var errorText: String { String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self) }

    /// Stops it (SIGTERM, then SIGKILL after 5 s) and reaps it.
    public func stop() {
        guard isRunning else { return }
        Xvfb.terminate(pid)
        exitStatus = exitStatus ?? 143
    }
}
