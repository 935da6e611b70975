import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchImage
import XvfbSupport

/// The claims of SECURITY.md that a test can show, beside those already shown elsewhere
/// (FaultTests, AtomicWriteTests, PNGTests, ConfigFileTests, DeckLoadTests, XvfbTests).
@Suite(.serialized) struct SecurityTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// Every Swift, C header and module map file under Sources, with its text.
    static func sourceFiles() throws -> [(path: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        var files: [(String, String)] = []
        for case let name as String in enumerator where name.hasSuffix(".swift") || name.hasSuffix(".h") {
            files.append((name, try String(contentsOfFile: sources.appendingPathComponent(name).path, encoding: .utf8)))
        }
        return files
    }

    /// The text without `//` comments (a comment may name what the code avoids).
    static func code(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard let comment = line.range(of: "//") else { return String(line) }
            return String(line[..<comment.lowerBound])
        }.joined(separator: "\n")
    }

    @Test("no shell and no child process anywhere in Sources: no system, popen, exec*, fork, posix_spawn, Process")
    func noShell() throws {
        let files = try Self.sourceFiles()
        #expect(files.count > 20)
        let forbidden = ["system(", "popen(", "execv", "execl", "execvp", "fork(", "vfork(", "posix_spawn", "Process(",
                         "Process.run", "NSTask", "/bin/sh", "wordexp("]
        for (path, text) in files {
            let code = Self.code(text)
            for word in forbidden {
                #expect(!code.contains(word), "\(path) uses \(word)")
            }
        }
    }

    @Test("the environment variables read: DISPLAY (through Xlib), libpq's PG* ones (through libpq, with --pool), XDG_CONFIG_HOME, XDG_STATE_HOME, HOME, systemd's NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID, the launcher's DESKTOP_STARTUP_ID (read and unset), and PGPASSWORD only to refuse it; nothing else by name")
    func environmentVariables() throws {
        var names = Set<String>()
        for (_, text) in try Self.sourceFiles() {
            let code = Self.code(text)
            for pattern in [#"getenv\("([A-Z_]+)"\)"#, #"environment\["([A-Z_]+)"\]"#] {
                let regex = try Regex(pattern)
                for match in code.matches(of: regex) {
                    if let name = match.output[1].substring { names.insert(String(name)) }
                }
            }
            #expect(!code.contains("ProcessInfo.processInfo.environment[") , "environment read by name outside ConfigFile")
        }
        #expect(names == ["DISPLAY", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "HOME", "PGPASSWORD",
                          "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "DESKTOP_STARTUP_ID"])
    }

    @Test("--record and snapshots: files of mode 0644, written by rename, never through a planted symbolic link")
    func writtenFilesAndSymlinks() throws {
        let card = try WindowTests.card(); defer { card.remove() }
        let folder = card.folder.path
        // A file the program must not touch, and a symbolic link to it where the trace goes.
        let victim = folder + "/victim.txt"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        chmod(victim, 0o600)
        let trace = folder + "/gesture.trace"
        #expect(symlink(victim, trace) == 0)

        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--record", trace, "--snapshot-dir", folder],
                                 environment: server.environment)
        let window = try server.scratchcardWindow()
        _ = try WindowTests().dragAcross(server, window: window)
        try server.press("s", in: window)
        try Faults.waitFor(5) { app.standardError.contains("saved ") }
        try server.press("q", in: window)
        #expect(app.wait() == 0)

        var info = stat()
        #expect(lstat(trace, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFREG, "the link was replaced by a file, not written through")
        #expect(info.st_mode & 0o777 == 0o644)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(stat(victim, &info) == 0 && info.st_mode & 0o777 == 0o600)
        _ = try Trace.load(path: trace)

        let snapshots = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("scratchcard-") }
        #expect(snapshots.count == 1)
        for name in snapshots {
            #expect(stat(folder + "/" + name, &info) == 0 && info.st_mode & 0o777 == 0o644)
        }
        // No temporary file left behind by either write.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasSuffix(".tmp") })
    }
}
