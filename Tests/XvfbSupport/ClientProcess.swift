// A desktop client (xclip, a GTK drag source, xdotool) run in the background against a
// test's server, while the test's own window goes on reading its events: the client and
// the window talk to each other through the server, so neither may wait for the other.
import Foundation
@preconcurrency import Glibc

/// A program started with `server`'s environment; its standard output and error go to
/// files of their own (a PNG of megabytes must not fill a pipe nobody reads yet).
public final class ClientProcess {
    private let process = Process()
    private let outputPath: String
    private let errorPath: String

    public init(_ program: String, _ arguments: [String], environment: [String: String]) throws {
        guard let executable = program.hasPrefix("/") ? program : Xvfb.find(program) else {
            throw XvfbError("\(program) is not installed")
        }
        let stem = NSTemporaryDirectory() + "client-\(getpid())-\(UUID().uuidString)"
        outputPath = stem + ".out"
        errorPath = stem + ".err"
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        unlink(outputPath)
        unlink(errorPath)
    }

    public var isRunning: Bool { process.isRunning }
    /// The exit status once it has exited.
    public var status: Int32? { process.isRunning ? nil : process.terminationStatus }
    /// What it wrote on standard output so far.
    public var output: Data { FileManager.default.contents(atPath: outputPath) ?? Data() }
    public var outputText: String { String(decoding: output, as: UTF8.self) }
    public var errorText: String { String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self) }

    /// Stops it (SIGTERM) and waits for it.
    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
