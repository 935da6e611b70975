import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import ScratchCore
import ScratchStore
import XvfbSupport

/// The store's promise under a real power cut, not a kill -9 (which keeps the page cache
/// and so never tests a sync): the kiosk's store on powercutfs (PowerCutHarness.swift),
/// dealt, scratched and revealed through XTest, and at a random moment the power goes
/// (what was not synced is dropped, the kiosk is killed, the file system mounted again)
/// at least 50 times, the kiosk started again after each. Needs root and /dev/fuse.
/// Runs in `make test`; `make test-power-cut` runs it alone (POWER_CUT_ROUNDS=N for fewer).
@Suite(.serialized) struct PowerCutTests {
    static let size = PixelSize(width: 160, height: 120)

    @Test("50 power cuts at random moments: the store opens, every deal shown is resumed or ended once, stock holds, strokes 150 ms + one sync old survive",
          .requires(Requirement.first(Requirement.root(to: "mount powercutfs, a FUSE file system"),
                                      Requirement.device("/dev/fuse", to: "mount powercutfs, a FUSE file system"))))
    func fiftyPowerCuts() throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var rng = SplitMix64(seed: seed)
        let deck = try StockedDeck([.init(id: "bike", colour: RGBA(r: 220, g: 30, b: 40), stock: 3, weight: 2),
                                    .init(id: "cup", colour: RGBA(r: 30, g: 200, b: 60), stock: 5, weight: 2),
                                    .init(id: "sorry", colour: RGBA(r: 20, g: 40, b: 230), stock: nil, weight: 1)],
                                   size: Self.size)
        defer { deck.remove() }
        let backing = deck.folder.appendingPathComponent("disk").path
        let mountPoint = deck.folder.appendingPathComponent("mnt").path
        let storeFolder = mountPoint + "/state"
        let store = storeFolder + "/kiosk.db"
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        var arguments = deck.kioskArguments(brush: StoreKillTests.brush, idleReset: 1.5, abandonReset: 2.5, extra: ["--reveal-at", "40"])
        arguments[arguments.firstIndex(of: "--store")! + 1] = store
        let driver = StoreKillTests()

        let rounds = ProcessInfo.processInfo.environment["POWER_CUT_ROUNDS"].flatMap(Int.init) ?? 50
        var strokeChecks = 0, resumed = 0, longestSync = 0.0, seenDeals = 0
        var scenarios = [Int](repeating: 0, count: 4)
        /// The deal the store held on show after the last cut: the restart must take it up.
        var mustResume: String?
        var mount = try PowerCutMount(backing: backing, mountPoint: mountPoint)
        defer { mount.unmount() }
        for round in 0..<rounds {
            let context = "round \(round), seed \(seed)"
            let app = try RunningApp(arguments, environment: server.environment)
            defer { if app.process.isRunning { kill(app.pid, SIGKILL); app.wait() } }
            try #require(waitUntil(timeout: 20) { app.cardShown != nil }, "\(context): no card: \(app.standardError)")
            // The store opened as it was: never moved aside as damaged.
            #expect(!app.standardError.contains("moved aside"), "\(context): \(app.standardError)")
            let aside = try FileManager.default.contentsOfDirectory(atPath: storeFolder).filter { $0.contains(".corrupt-") }
            #expect(aside.isEmpty, "\(context): \(aside)")
            let ready = app.events.first { $0["event"] as? String == "ready" }
            if let mustResume {
                #expect(ready?["deal"] as? String == mustResume && ready?["resumed"] as? Bool == true,
                        "\(context): the store held deal \(mustResume) on show; the restart showed \(ready ?? [:])")
                resumed += 1
            }

            // One sync of the WAL on this file system, as it is now (the allowance's "one sync").
            longestSync = Swift.max(longestSync, Self.timeOneSync(store + "-wal"))

            let scenario = Int.random(in: 0..<4, using: &rng)
            scenarios[scenario] += 1
            var sent: [StoreKillTests.Sent] = []
            let dealAtStart = app.cardShown?.deal
            switch scenario {
            case 0:
                usleep(UInt32.random(in: 0..<150_000, using: &rng))
            case 1:
                sent = try driver.drag(server, moves: Int.random(in: 3..<25, using: &rng), release: false, rng: &rng)
                usleep(UInt32.random(in: 0..<400_000, using: &rng))
            case 2:
                for y in [20, 60, 100] { _ = try driver.drag(server, row: y) }
                usleep(UInt32.random(in: 0..<1_900_000, using: &rng))
            default:
                sent = try driver.drag(server, moves: Int.random(in: 2..<12, using: &rng), release: true, rng: &rng)
                usleep(UInt32.random(in: 0..<600_000, using: &rng))
            }
            // The cut: nothing more reaches the disk, then the program dies, then the
            // machine "boots" from what the disk holds.
            let cutAt = Date()
            mount.cut()
            kill(app.pid, SIGKILL)
            app.wait()
            try server.xdotool("mouseup", "1")
            let shownDeals = Set(app.events.compactMap { $0["deal"] as? String })
            seenDeals += shownDeals.count
            mount.unmount()
            mount = try PowerCutMount(backing: backing, mountPoint: mountPoint)

            // The store opens, whole.
            let opened: KioskStore
            do { opened = try KioskStore(path: store, access: .read) } catch {
                Issue.record("\(context): the store does not open after the cut: \(error)")
                break
            }
            let rows = try opened.dealsWithOutcomeCounts()
            let held = try opened.pendingDeal()
            // Every deal whose card reached the screen is in the store, ended once or on show.
            for deal in shownDeals {
                let row = rows.first { $0.deal.text == deal }
                #expect(row != nil, "\(context): deal \(deal) was shown and is not in the store")
                #expect(row.map { $0.outcomes == 1 || $0.deal == held?.deal } ?? true,
                        "\(context): deal \(deal) has no outcome and is not the card on show (\(held?.deal.text ?? "none"))")
            }
            for row in rows { #expect(row.outcomes <= 1, "\(context): deal \(row.deal) has \(row.outcomes) outcomes") }
            #expect(rows.filter { $0.outcomes == 0 }.count <= 1, "\(context): more than one deal without an outcome")
            for entry in deck.entries {
                if let stock = entry.stock {
                    let dealt = rows.filter { $0.card == entry.id }.count
                    #expect(dealt <= stock, "\(context): \(entry.id) dealt \(dealt) times, stock \(stock)")
                }
            }
            mustResume = held?.deal.text

            // Strokes that ended more than 150 ms plus one sync before the cut are there.
            let allowance = 0.15 + longestSync
            if let held, held.deal.text == dealAtStart, held.reveal == nil, !sent.isEmpty {
                let saved = Set(held.strokes.split(separator: "\n").compactMap { line -> String? in
                    let f = line.split(separator: " ")
                    return f.count == 4 && (f[0] == "d" || f[0] == "m") ? "\(f[2]) \(f[3])" : nil
                })
                let due = sent.filter { cutAt.timeIntervalSince($0.at) > allowance }
                let missing = due.filter { !saved.contains("\(Double($0.x) + 0.5) \(Double($0.y) + 0.5)") }
                #expect(missing.isEmpty, "\(context): \(missing.count) of \(due.count) motions older than \(Int(allowance * 1000)) ms lost in the cut: \(missing.map { ($0.x, $0.y, cutAt.timeIntervalSince($0.at)) }); the program said: \(app.standardError.suffix(1500))")
                if !due.isEmpty { strokeChecks += 1 }
            }
        }
        #expect(strokeChecks >= rounds / 10 && resumed >= rounds / 3,
                "stroke checks \(strokeChecks), resumed \(resumed), scenarios \(scenarios)")
        print("power-cut test: seed \(seed), \(rounds) cuts, deals shown \(seenDeals), resumed \(resumed), stroke checks \(strokeChecks), longest sync \(Int(longestSync * 1000)) ms, scenarios \(scenarios)")
    }

    /// How long one fdatasync of `path` takes now (0 when it cannot be opened).
    static func timeOneSync(_ path: String) -> Double {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let start = Date()
        _ = fdatasync(fd)
        return Date().timeIntervalSince(start)
    }
}
