import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import ScratchCore
import ScratchStore
import XvfbSupport

/// Stores on bad ground: a read-only folder and a full disk, each a small tmpfs of the
/// test's own (mounting needs root; the tests say so when they cannot run).
@Suite(.serialized) struct StoreFaultTests {
    /// A tmpfs mounted for one test, unmounted at the end.
    final class Mount {
        let path: String
        init(sizeKiB: Int, readOnly: Bool = false) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("scratchcard-mount-\(getpid())-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKiB)k,mode=0700" + (readOnly ? ",ro" : ""), "tmpfs", path])
        }
        deinit {
            try? Self.run("/bin/umount", [path])
            try? FileManager.default.removeItem(atPath: path)
        }
        static func run(_ program: String, _ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw XvfbError("\(program) \(arguments) failed") }
        }
        /// Fills the disk with one file until writes fail; returns its path.
        func fill() -> String {
            let filler = path + "/filler"
            let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let block = [UInt8](repeating: 0xAB, count: 4096)
            while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
            close(fd)
            return filler
        }
    }

    @Test("a store in a read-only folder: exit 2 naming the store and the problem, before any window",
          .requires(Faults.tmpfsUnavailable))
    func readOnlyFolder() throws {
        let mount = try Mount(sizeKiB: 256, readOnly: true)
        let deck = try StoreAppTests.deck(); defer { deck.remove() }
        let store = mount.path + "/kiosk.db"
        let result = try runCommand(["--kiosk", "--deck", deck.deck, "--store", store])
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err.contains("\(store): cannot write in the store's folder"), "\(result.err)")
        #expect(result.err.contains("Read-only file system"), "\(result.err)")
    }

    @Test("a full disk at start: exit 2, 'the disk is full', naming the store",
          .requires(Faults.tmpfsUnavailable))
    func fullDiskAtStart() throws {
        let mount = try Mount(sizeKiB: 256)
        _ = mount.fill()
        let deck = try StoreAppTests.deck(); defer { deck.remove() }
        let store = mount.path + "/kiosk.db"
        let result = try runCommand(["--kiosk", "--deck", deck.deck, "--store", store])
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err.contains("\(store): the disk is full"), "\(result.err)")
    }

    @Test("the disk fills while the kiosk runs: the card on show carries on (scratches shown), said once; no deal is shown uncommitted; once space is back, deals go on",
          .requires(Faults.tmpfsUnavailable))
    func diskFillsWhileRunning() throws {
        let mount = try Mount(sizeKiB: 1024)
        let deck = try StoreAppTests.deck([nil]); defer { deck.remove() }
        let store = mount.path + "/kiosk.db"
        let server = try Xvfb(width: StoreAppTests.size.width, height: StoreAppTests.size.height); defer { server.stop() }
        var arguments = deck.kioskArguments(abandonReset: 0.5)
        arguments[arguments.firstIndex(of: deck.store)!] = store
        let app = try RunningApp(arguments, environment: server.environment)
        defer { kill(app.pid, SIGKILL) }
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.cardShown?.deal != nil })
        let filler = mount.fill()
        try server.drag(window: window, from: (10, 20), through: [(60, 30), (120, 90)])
        #expect(waitUntil { app.standardError.contains("the disk is full") }, "\(app.standardError)")
        // The scratch shows: the loop went on.
        let image = try server.waitForPixels(window: window) { $0[60, 30] == StoreAppTests.red }
        #expect(image[60, 30] == StoreAppTests.red)
        // The abandon reset cannot commit a deal: the card stays, and says so.
        #expect(waitUntil { app.standardError.contains("cannot record the deal") || app.standardError.contains("cannot save") }, "\(app.standardError)")
        usleep(1_000_000)
        #expect(!app.eventNames.contains("new-card"), "a deal was shown that the store did not hold: \(app.eventNames)")
        #expect(app.process.isRunning)
        // Space again: the retry (5 s) deals, committed.
        try FileManager.default.removeItem(atPath: filler)
        #expect(waitUntil(timeout: 15) { app.eventNames.contains("new-card") }, "\(app.eventNames) \(app.standardError)")
        let reader = try KioskStore(path: store, access: .read)
        #expect(try reader.pendingDeal()?.deal.text == app.cardShown?.deal)
        #expect(try reader.outcomeRecords().map(\.outcome) == [.abandoned])
    }
}
