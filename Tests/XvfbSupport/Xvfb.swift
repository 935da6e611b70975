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
public final class Xvfb {
    public let displayNumber: Int
    /// ":N", for XOpenDisplay.
    public var displayName: String { ":\(displayNumber)" }
    /// This process's environment with DISPLAY set to this server, for child processes.
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = displayName
        env.removeValue(forKey: "XAUTHORITY")
        return env
    }
    private let process: Process

    /// Starts `Xvfb :N -screen 0 WxHxD -nolisten tcp -dpi DPI extra…` on the first free
    /// N from a random start (no /tmp/.X11-unix/XN socket, no /tmp/.XN-lock), trying
    /// other numbers if it exits at once, and waits (at most `timeout` seconds) until
    /// its socket accepts connections.
    public init(width: Int = 640, height: Int = 480, depth: Int = 24, dpi: Int? = nil,
                extraArguments: [String] = [], timeout: Double = 10) throws {
        guard let executable = Xvfb.find("Xvfb") else { throw XvfbError("Xvfb is not installed") }
        var candidate = 100 + Int(getpid() % 300) * 3 + Int.random(in: 0..<3)
        var lastProblem = "no free display number"
        for _ in 0..<8 {
            candidate = Xvfb.nextFree(from: candidate)
            var arguments = [":\(candidate)", "-screen", "0", "\(width)x\(height)x\(depth)", "-nolisten", "tcp",
                             "-noreset"]
            if let dpi { arguments += ["-dpi", "\(dpi)"] }
            arguments += extraArguments
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Xvfb.waitForSocket(display: candidate, process: process, timeout: timeout) {
                self.displayNumber = candidate
                self.process = process
                return
            }
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
                lastProblem = "Xvfb :\(candidate) did not accept connections within \(timeout) s"
            } else {
                lastProblem = "Xvfb :\(candidate) exited with status \(process.terminationStatus)"
            }
            candidate += 1
        }
        throw XvfbError(lastProblem)
    }

    deinit { stop() }

    /// Stops the server: SIGTERM, then SIGKILL if it has not gone within 5 s.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Whether the server is still running.
    public var isRunning: Bool { process.isRunning }

    /// Runs `program` with `arguments` against this server (no shell) and returns its
    /// standard output. Throws when it cannot start or exits with a non-zero status.
    @discardableResult
    public func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> String {
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

    /// `xdotool ARGS…`.
    @discardableResult
    public func xdotool(_ arguments: String...) throws -> String { try run("xdotool", arguments) }

    /// `xrdb -nocpp -merge` with `resources` on standard input.
    public func xrdb(merge resources: String) throws { try run("xrdb", ["-nocpp", "-merge"], input: resources) }

    /// `xprop -id ID` (optionally only some properties).
    public func xprop(id: UInt, _ properties: String...) throws -> String {
        try run("xprop", ["-id", "\(id)"] + properties)
    }

    // MARK: -

    static func find(_ program: String) -> String? {
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

    /// Polls until a connect() to the server's Unix socket succeeds, the process exits,
    /// or the timeout passes.
    static func waitForSocket(display: Int, process: Process, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning else { return false }
            if canConnect(path: "/tmp/.X11-unix/X\(display)") { return true }
            usleep(20_000)
        }
        return false
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
