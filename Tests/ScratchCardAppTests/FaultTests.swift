import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import ScratchCore
import ScratchImage
import XvfbSupport

/// Faults from outside, each survived or ended cleanly (issue 8, SECURITY.md): a server
/// that cannot attach our MIT-SHM segment, the window killed under us, a full disk while
/// saving a snapshot, and the termination signals. After each, no shared memory segment
/// of ours is left in the system.
@Suite(.serialized) struct FaultTests {

    // MARK: - The server cannot attach our segment

    @Test("a server running as another user refuses our 0600 segment (BadAccess): XPutImage takes over, drawing works",
          .requires(Faults.otherUserUnavailable))
    func shmRefusedFallsBack() throws {
        let user = try #require(Faults.otherUser)
        let card = try WindowTests.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480, runAs: user); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--verbose"], environment: server.environment)
        let window = try server.scratchcardWindow()
        let image = try WindowTests().dragAcross(server, window: window)
        #expect(image[150, 100] == WindowTests.prizeColour)
        #expect(image[150, 150] == WindowTests.coverColour)
        #expect(app.standardError.contains("drawing with XPutImage (XShmAttach: BadAccess"), "\(app.standardError)")
        // Nothing of ours is attached anywhere: the segment went at the refusal.
        #expect(Faults.segments(createdBy: app.pid).isEmpty)
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        #expect(Faults.segments(createdBy: app.pid).isEmpty)
    }

    // MARK: - The window destroyed under us

    @Test("the window killed under us (xdotool windowkill = XKillClient): exit 1 with a message, no segment left")
    func windowKilled() throws {
        let card = try WindowTests.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1"], environment: server.environment)
        let window = try server.scratchcardWindow()
        // While it runs: one segment, mode 0600, already marked for removal (SHM_DEST).
        let live = Faults.segments(createdBy: app.pid)
        #expect(live.count == 1, "\(live)")
        for segment in live {
            #expect(segment.mode & 0o777 == 0o600, "mode \(String(segment.mode, radix: 8))")
            #expect(segment.mode & Faults.shmDest != 0, "not marked IPC_RMID")
        }
        try server.xdotool("windowkill", "\(window)")
        #expect(app.wait(timeout: 5) == 1)
        #expect(app.process.terminationReason == .exit)
        #expect(app.standardError.contains("lost the connection to the X server"), "\(app.standardError)")
        #expect(Faults.noSegmentsRemain(createdBy: app.pid))
        #expect(server.isRunning)
    }

    // MARK: - A full disk while saving a snapshot

    @Test("a full disk while saving a snapshot: reported, the program goes on, no partial file, the old file whole",
          .requires(Faults.tmpfsUnavailable))
    func diskFullSnapshot() throws {
        let card = try WindowTests.card(); defer { card.remove() }
        let shots = try Faults.SmallDisk(kilobytes: 64); defer { shots.remove() }
        // An old snapshot, then filler until the file system is full.
        let old = [UInt8](try Data(contentsOf: URL(fileURLWithPath: card.cover)))
        let oldPath = shots.path + "/scratchcard-20250101-000000.png"
        try Data(old).write(to: URL(fileURLWithPath: oldPath))
        try shots.fill()

        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(card.arguments + ["--scale", "1", "--snapshot-dir", shots.path], environment: server.environment)
        let window = try server.scratchcardWindow()
        try server.press("s", in: window)
        try Faults.waitFor(5) { app.standardError.contains("snapshot not saved") }
        #expect(app.standardError.contains("no space left on device"), "\(app.standardError)")
        #expect(app.process.isRunning)
        // Only the old file and the filler: no new PNG, no temporary file.
        #expect(try shots.names() == ["filler", "scratchcard-20250101-000000.png"])
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: oldPath))) == old)

        // Space again: the next `s` saves, and the program still draws.
        try FileManager.default.removeItem(atPath: shots.path + "/filler")
        try server.press("s", in: window)
        try Faults.waitFor(5) { app.standardError.contains("saved ") }
        let saved = try shots.names().filter { $0 != "scratchcard-20250101-000000.png" }
        #expect(saved.count == 1 && saved[0].hasSuffix(".png"), "\(saved)")
        if let name = saved.first {
            let image = try PNGFile.read(path: shots.path + "/" + name)
            #expect(image.size == WindowTests.cardSize)
        }
        _ = try WindowTests().dragAcross(server, window: window)
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: oldPath))) == old)
    }

    // MARK: - Termination signals

    /// SIGTERM, SIGINT and SIGHUP reach the run loop through a pipe polled beside the X
    /// connection (Signals.swift): it ends as `q` does. SIGKILL cannot be handled; the
    /// segment goes with it all the same, marked IPC_RMID right after the attach.
    ///
    /// Started with `posix_spawn`, an empty signal mask and default actions, as a shell
    /// or systemd would start it (`RunningApp`, through Foundation's Process, passes on
    /// the test thread's mask; the program unblocks these three itself).
    @Test("SIGTERM, SIGINT, SIGHUP (and SIGKILL) end the program promptly and leave no segment",
          arguments: [SIGTERM, SIGINT, SIGHUP, SIGKILL])
    func terminationSignals(signal: Int32) throws {
        let card = try WindowTests.card(); defer { card.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try Faults.Spawned(card.arguments + ["--scale", "1", "--events"], environment: server.environment,
                                     folder: card.folder)
        defer { app.kill() }
        _ = try server.scratchcardWindow()
        #expect(Faults.segments(createdBy: app.pid).count == 1)
        Glibc.kill(app.pid, signal)
        let ending = app.wait(timeout: 5)
        let output = app.standardOutput
        if signal == SIGKILL {
            #expect(ending == .signal(SIGKILL), "ended \(ending)")
        } else {
            // Handled: the loop ends as `q` does (WindowTests.signalsEndCleanly checks the rest).
            #expect(ending == .exit(0) && output.hasSuffix("{\"event\":\"quit\"}\n"), "ended \(ending): \(output)")
        }
        #expect(Faults.noSegmentsRemain(createdBy: app.pid))
    }
}

enum Faults {
    /// SHM_DEST in `shm_perm.mode`: the segment is marked for removal (IPC_RMID).
    static let shmDest = 0o1000

    /// The `scratchtest` system user (scripts/install-deps.sh creates it), when we are
    /// root and so can start a server as that user (`otherUserUnavailable` is nil).
    static let otherUser: (uid: UInt32, gid: UInt32)? = {
        guard otherUserUnavailable == nil, let entry = getpwnam("scratchtest") else { return nil }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }()

    /// What keeps `otherUser` from being had here (root, the user), or nil.
    static var otherUserUnavailable: String? {
        Requirement.first(Requirement.root(to: "start an X server as another user"),
                          Requirement.user("scratchtest", madeBy: "make deps, as root,"))
    }

    /// What keeps this process from mounting a tmpfs (root, and a kernel or container
    /// that lets it: CAP_SYS_ADMIN), or nil: tried once, on a 4 KiB one.
    static let tmpfsUnavailable: String? = {
        if let missing = Requirement.root(to: "mount a tmpfs") { return missing }
        do {
            try SmallDisk(kilobytes: 4).remove()
            return nil
        } catch {
            return "needs to mount a tmpfs, which this machine refuses to root (\(error); a container without CAP_SYS_ADMIN?)"
        }
    }()

    struct Segment: CustomStringConvertible {
        let id: Int, mode: Int, creator: Int32, attached: Int
        var description: String { "shm \(id) mode \(String(mode, radix: 8)) cpid \(creator) nattch \(attached)" }
    }

    /// The System V shared memory segments whose creator is `pid` (/proc/sysvipc/shm).
    static func segments(createdBy pid: Int32) -> [Segment] {
        all().filter { $0.creator == pid }
    }

    /// True once no segment of `pid` remains, waiting up to 5 s: after a client dies
    /// the server detaches when it notices.
    static func noSegmentsRemain(createdBy pid: Int32) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !segments(createdBy: pid).isEmpty && Date() < deadline { usleep(20_000) }
        return segments(createdBy: pid).isEmpty
    }

    static func all() -> [Segment] {
        guard let text = try? String(contentsOfFile: "/proc/sysvipc/shm", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            // key shmid perms size cpid lpid nattch ...
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count > 6, let id = Int(f[1]), let mode = Int(f[2], radix: 8), let cpid = Int32(f[4]),
                  let nattch = Int(f[6]) else { return nil }
            return Segment(id: id, mode: mode, creator: cpid, attached: nattch)
        }
    }

    /// A scratchcard started with posix_spawn: empty signal mask, default actions,
    /// output to files in `folder`.
    final class Spawned {
        enum Ending: Equatable, CustomStringConvertible {
            case exit(Int32), signal(Int32), timedOut
            var description: String {
                switch self {
                case .exit(let code): "exit \(code)"
                case .signal(let n): "signal \(n)"
                case .timedOut: "still running"
                }
            }
        }

        let pid: pid_t
        let outPath: String, errPath: String
        private var reaped = false

        init(_ arguments: [String], environment: [String: String], folder: URL) throws {
            outPath = folder.appendingPathComponent("stdout").path
            errPath = folder.appendingPathComponent("stderr").path
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var empty = sigset_t(), all = sigset_t()
            sigemptyset(&empty)
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &empty)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            let argv: [UnsafeMutablePointer<CChar>?] = ([App.executable] + arguments).map { strdup($0) } + [nil]
            let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for p in argv + envp { free(p) } }
            var pid: pid_t = 0
            let result = posix_spawn(&pid, App.executable, &actions, &attributes, argv, envp)
            guard result == 0 else { throw XvfbError("cannot start scratchcard: \(String(cString: strerror(result)))") }
            self.pid = pid
        }

        /// Waits at most `timeout` seconds for the end, and reaps.
        func wait(timeout: Double) -> Ending {
            let deadline = Date().addingTimeInterval(timeout)
            var status: Int32 = 0
            while Date() < deadline {
                if waitpid(pid, &status, WNOHANG) == pid {
                    reaped = true
                    let signal = status & 0x7F
                    return signal == 0 ? .exit((status >> 8) & 0xFF) : .signal(signal)
                }
                usleep(10_000)
            }
            return .timedOut
        }

        func kill() {
            guard !reaped else { return }
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            reaped = true
        }

        var standardOutput: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
        var standardError: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }
    }

    static func waitFor(_ seconds: Double, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw XvfbError("condition not met within \(seconds) s") }
            usleep(20_000)
        }
    }

    /// A tmpfs of a few kilobytes on a fresh folder, unmounted and removed by `remove`.
    final class SmallDisk {
        let path: String
        init(kilobytes: Int) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("scratchcard-full-\(getpid())-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            guard mount("tmpfs", path, "tmpfs", 0, "size=\(kilobytes)k,mode=0755") == 0 else {
                let why = String(cString: strerror(errno))
                rmdir(path)
                throw XvfbError("mount tmpfs on \(path): \(why)")
            }
        }

        /// Writes `filler` until the file system says it is full.
        func fill() throws {
            let fd = open(path + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw XvfbError("cannot create the filler") }
            defer { close(fd) }
            let block = [UInt8](repeating: 0x55, count: 512)
            while true {
                let n = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
            }
            guard errno == ENOSPC else { throw XvfbError("filler stopped with \(String(cString: strerror(errno)))") }
        }

        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

        func remove() {
            umount2(path, Int32(MNT_DETACH))
            rmdir(path)
        }
    }
}
