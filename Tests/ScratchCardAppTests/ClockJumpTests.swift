import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchStore
import XvfbSupport

/// Kiosks boot with no real-time clock: the wall clock may be a day behind at one start
/// and a year ahead at the next. The kiosk is restarted under Debian's `faketime -f`
/// (the monotonic clock left alone, as the kernel's is: FAKETIME_DONT_FAKE_MONOTONIC): a resumed
/// card is held no longer than its reset time from the restart, reset once, and the
/// times in the store stay in order whatever the clock said.
@Suite(.serialized) struct ClockJumpTests {
    static let size = PixelSize(width: 160, height: 120)
    static let idleReset = 3.0, abandonReset = 4.0
    /// How late a reset may come: the loop's wake, a card made, a put (under load).
    static let slack = 1.5

    @Test("A day behind at the restart: a revealed card resets after --idle-reset, an abandoned one after --abandon-reset, once each; the store's times stay ordered")
    func dayBehind() throws {
        try withKiosk { kiosk in
            try kiosk.showRevealed(clock: nil)
            try kiosk.restartExpectingOneReset(clock: "-1d", within: Self.idleReset)
            try kiosk.showTouched(clock: "-1d")
            try kiosk.restartExpectingOneReset(clock: "-2d", within: Self.abandonReset)
            try kiosk.quit()
            try kiosk.expectOrderedTimes()
        }
    }

    @Test("A year ahead at the restart, then back: the resumed cards reset at once and once; the store's times stay ordered")
    func yearAheadThenBack() throws {
        try withKiosk { kiosk in
            try kiosk.showRevealed(clock: nil)
            try kiosk.restartExpectingOneReset(clock: "+365d", within: Self.idleReset)
            try kiosk.showTouched(clock: "+365d")
            // Back to the true time: the card touched "a year from now" is abandoned
            // after --abandon-reset, not in a year.
            try kiosk.restartExpectingOneReset(clock: nil, within: Self.abandonReset)
            try kiosk.quit()
            try kiosk.expectOrderedTimes()
        }
    }

    func withKiosk(_ body: (Kiosk) throws -> Void) throws {
        let deck = try StockedDeck([.init(id: "cup", colour: RGBA(r: 30, g: 200, b: 60), stock: nil)], size: Self.size)
        defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        let kiosk = Kiosk(deck: deck, server: server)
        defer { kiosk.stop() }
        try body(kiosk)
    }

    /// One kiosk, started again and again on the same store, under a clock of its own.
    final class Kiosk {
        let deck: StockedDeck
        let server: Xvfb
        var app: RunningApp?
        /// The kiosk's own pid (under faketime, its child).
        var pid: Int32 = 0

        init(deck: StockedDeck, server: Xvfb) { self.deck = deck; self.server = server }

        func stop() {
            if let app, app.process.isRunning { kill(pid, SIGKILL); kill(app.pid, SIGKILL); app.wait() }
        }

        /// Kills the kiosk itself (faketime, its parent, then ends too).
        func killKiosk(_ signal: Int32 = SIGKILL) -> Int32 {
            kill(pid, signal)
            return app?.wait() ?? 0
        }

        /// Starts the kiosk with the wall clock `clock` away from the true one (libfaketime's
        /// FAKETIME, e.g. "-1d"), nil for the true clock; waits for its first card.
        @discardableResult
        func start(clock: String?) throws -> RunningApp {
            stop()
            var environment = server.environment
            // (Preloading libfaketime by hand, without the shared memory faketime sets up,
            // left the Swift program without its arguments: faketime itself, then.)
            environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
            let arguments = deck.kioskArguments(idleReset: ClockJumpTests.idleReset, abandonReset: ClockJumpTests.abandonReset,
                                                extra: ["--reveal-at", "40", "--sound", "off"])
            let started = try RunningApp(arguments, environment: environment, stampOutput: true,
                                         launcher: clock.map { ["/usr/bin/faketime", "-f", $0] } ?? [])
            app = started
            pid = started.pid
            if clock != nil {
                // faketime forks the program and waits for it: the kiosk is its child.
                _ = waitUntil(timeout: 5) { ClockJumpTests.child(of: started.pid) != nil }
                pid = try #require(ClockJumpTests.child(of: started.pid), "faketime started nothing")
            }
            try #require(waitUntil(timeout: 20) { started.cardShown != nil }, "no card: \(started.standardError) out: \(started.standardOutput) running: \(started.process.isRunning) args: \(arguments)")
            return started
        }

        /// A card revealed (three rows scratched), saved, then the kiosk killed before its idle reset.
        func showRevealed(clock: String?) throws {
            let app = try start(clock: clock)
            // Revealed 2 s after it was shown: a restart must not add those 2 s to its idle reset.
            usleep(2_000_000)
            for y in [20, 60, 100] {
                try server.xdotool("mousemove", "0", "\(y)", "mousedown", "1", "mousemove", "80", "\(y)", "mousemove", "159", "\(y)", "mouseup", "1")
            }
            try #require(waitUntil(timeout: 5) { app.eventNames.contains("revealed") }, "no reveal: \(app.eventNames)")
            try waitForStore { $0?.reveal != nil }
            _ = killKiosk()
        }

        /// A card scratched a little and left: the kiosk killed before its abandon reset.
        func showTouched(clock: String?) throws {
            let app = app?.process.isRunning == true ? app! : try start(clock: clock)
            try server.xdotool("mousemove", "20", "20", "mousedown", "1", "mousemove", "40", "30", "mouseup", "1")
            try waitForStore { !($0?.strokes.isEmpty ?? true) }
            _ = app
            _ = killKiosk()
        }

        /// Restarts under `clock`: the card on show is taken up, replaced by one new card
        /// within `within` seconds (plus slack) of the restart, and not again for as long.
        /// The restart is the kiosk's `ready` line, the card taken up: how long the program
        /// took to get there (longer on a busy machine) is not time the card was held.
        func restartExpectingOneReset(clock: String?, within: Double) throws {
            let held = try KioskStore(path: deck.store, access: .read).pendingDeal()
            let pending = try #require(held, "no card on show in the store")
            let app = try start(clock: clock)
            let ready = app.events.first { $0["event"] as? String == "ready" }
            #expect(ready?["deal"] as? String == pending.deal.text && ready?["resumed"] as? Bool == true, "\(ready ?? [:])")
            let started = try #require(app.arrival(ofLineContaining: "\"event\":\"ready\""), "no ready line")
            let reset = waitUntil(timeout: within + 10) { app.eventNames.contains("new-card") }
            let after = (app.arrival(ofLineContaining: "\"event\":\"new-card\"") ?? monotonicNow()) - started
            print("clock \(clock ?? "true"): the resumed card was replaced \(String(format: "%.2f", after)) s after the restart (reset time \(within) s)")
            #expect(reset && after <= within + ClockJumpTests.slack,
                    "clock \(clock ?? "true"): the resumed card was held \(String(format: "%.1f", after)) s after the restart; its reset is \(within) s; stderr: \(app.standardError)")
            // Not reset again: the new card is fresh (untouched), so it stays.
            usleep(UInt32((within + 0.5) * 1e6))
            #expect(app.eventNames.filter { $0 == "new-card" }.count == 1, "\(app.eventNames)")
            let rows = try KioskStore(path: deck.store, access: .read).dealsWithOutcomeCounts()
            #expect(rows.first { $0.deal == pending.deal }?.outcomes == 1, "the resumed deal's outcomes: \(rows)")
            #expect(rows.filter { $0.outcomes == 0 }.count == 1, "\(rows)")
        }

        /// The kiosk ends on SIGTERM: the card on show ends as quit.
        func quit() throws {
            guard let app, app.process.isRunning else { return }
            #expect(killKiosk(SIGTERM) == 0, "\(app.standardError)")
        }

        /// Every deal's shown_at and its outcome's ended_at, in the order dealt, never go back.
        func expectOrderedTimes() throws {
            let result = try runData("/usr/bin/sqlite3", ["-readonly", deck.store,
                "SELECT d.shown_at, coalesce(o.ended_at, d.shown_at) FROM deals d LEFT JOIN outcomes o ON o.deal = d.deal ORDER BY d.seq"])
            let times = result.split(separator: "\n").flatMap { $0.split(separator: "|").compactMap { Double($0) } }
            #expect(times.count >= 6, "\(result)")
            let backwards = zip(times, times.dropFirst()).filter { $0.1 < $0.0 }
            #expect(backwards.isEmpty, "the store's times go back: \(backwards) in \(times)")
        }

        func waitForStore(_ done: (PendingDeal?) -> Bool) throws {
            let ok = waitUntil(timeout: 5) { done((try? KioskStore(path: deck.store, access: .read).pendingDeal()) ?? nil) }
            try #require(ok, "the store never held what was expected")
        }

        func runData(_ program: String, _ arguments: [String]) throws -> String {
            let process = Process(), pipe = Pipe()
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The first child of `pid`, if it has one.
    static func child(of pid: Int32) -> Int32? {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.flatMap { Int32($0) }
    }
}
