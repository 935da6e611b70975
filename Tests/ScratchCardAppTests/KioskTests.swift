import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import XvfbSupport

/// Kiosk mode under Xvfb: the unattended rhythm, keys ignored, the outcome log.
@Suite(.serialized) struct KioskTests {
    static let cover = RGBA(r: 180, g: 180, b: 185)
    static let prize = RGBA(r: 240, g: 160, b: 20)

    /// The foil over the gold prize, shown at scale 1, in a fresh folder.
    static func files() throws -> SolidCard {
        try SolidCard(cover: cover, prize: prize, size: PixelSize(width: 200, height: 150), prizeName: "gold.png")
    }
    static let scaleOne = ["--scale", "1"]

    /// Scratches the whole 200x150 screen with a 60 px brush: four rows.
    func scratchEverything(_ server: Xvfb, _ window: UInt) throws {
        for y in [20, 60, 100, 140] { try server.drag(window: window, from: (0, y), through: [(100, y), (199, y)]) }
    }

    @Test("a revealed card makes way for a new one after --idle-reset; keys other than the chord do nothing")
    func idleReset() throws {
        let files = try Self.files(); defer { files.remove() }
        let server = try Xvfb(width: 200, height: 150); defer { server.stop() }
        let app = try RunningApp(files.arguments + Self.scaleOne + ["--kiosk", "--events", "--brush", "60", "--idle-reset", "2.5"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.eventNames.contains("ready") })
        for key in ["q", "Escape", "space", "Return", "r", "s", "ctrl+c", "alt+F4"] { try server.press(key, in: window) }
        usleep(300_000)
        #expect(app.process.isRunning, "keys must not end kiosk mode")
        #expect(app.eventNames == ["ready"], "keys must not reveal or deal: \(app.eventNames)")

        try scratchEverything(server, window)
        #expect(waitUntil { app.eventNames.contains("revealed") })
        // The revealed card stays a while (the drags after the reveal took well under
        // the 2.5 s), showing the whole prize, then a new card comes.
        #expect(!app.eventNames.contains("new-card"))
        // The prize shown whole (once the reveal's fade is over: later on a busy
        // machine), before the new card.
        #expect(try server.waitForPixels(window: window) { $0[100, 75] == Self.prize }[100, 75] == Self.prize)
        #expect(waitUntil { app.eventNames.contains("new-card") })
        // The new card is covered again (its repaint follows the event: wait for it, a
        // ThreadSanitizer build once captured the window just before).
        let image = try server.waitForPixels(window: window) { $0[100, 75] == Self.cover }
        #expect(image[100, 75] == Self.cover)
        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0)
    }

    @Test("a card touched and left alone is replaced after --abandon-reset; the log says abandoned")
    func abandonReset() throws {
        let files = try Self.files(); defer { files.remove() }
        let logPath = files.folder.appendingPathComponent("cards.log").path
        let server = try Xvfb(width: 200, height: 150); defer { server.stop() }
        let app = try RunningApp(files.arguments + Self.scaleOne + ["--kiosk", "--events", "--brush", "10", "--abandon-reset", "1",
                                                    "--log", logPath], environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.eventNames.contains("ready") })
        try server.drag(window: window, from: (20, 20), through: [(60, 30)])
        #expect(waitUntil { app.eventNames.contains("new-card") })
        #expect(!app.eventNames.contains("revealed"))
        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0)
        let (records, damaged) = try OutcomeLog.read(path: logPath)
        #expect(damaged == 0)
        #expect(records.map(\.outcome) == [.abandoned, .quit])
        #expect(records.first?.cardID == "gold" && records.first.map { $0.fraction > 0 && $0.fraction < 0.6 } == true)
        let mode = try FileManager.default.attributesOfItem(atPath: logPath)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test("a press held still past --abandon-reset costs no CPU; the card is abandoned only after the release")
    func heldPressDoesNotSpin() throws {
        let files = try Self.files(); defer { files.remove() }
        let server = try Xvfb(width: 200, height: 150); defer { server.stop() }
        let app = try RunningApp(files.arguments + Self.scaleOne + ["--kiosk", "--events", "--brush", "10",
                                                                    "--abandon-reset", "0.2"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.eventNames.contains("ready") })
        try server.xdotool("mousemove", "--window", "\(window)", "50", "40", "mousedown", "1")
        #expect(waitUntil { app.eventNames.contains("scratch-start") })
        // Held still for 1.5 s, 7 times the abandon time: a loop woken by an overdue
        // timer it may not act on would spend about a tick every 10 ms.
        let before = try cpuTicks(app.pid)
        usleep(1_500_000)
        let spent = try cpuTicks(app.pid) - before
        #expect(spent <= 5, "\(spent) ticks while the press was held")
        #expect(!app.eventNames.contains("new-card"), "a card in use is not abandoned")
        try server.xdotool("mouseup", "1")
        #expect(waitUntil { app.eventNames.contains("new-card") }, "\(app.eventNames)")
        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0)
    }

    @Test("with a window manager the kiosk holds the keyboard: its Alt+Tab does not switch to another window")
    func kioskHoldsTheKeyboard() throws {
        let files = try Self.files(); defer { files.remove() }
        let server = try Xvfb(width: 200, height: 150); defer { server.stop() }
        let manager = try WindowManager(server: server); defer { manager.stop() }
        // Another client's window to switch to.
        let xmessage = try #require(Xvfb.find("xmessage"), "xmessage (x11-utils) is not installed")
        let other = try Xvfb.spawn(xmessage, ["another window"], environment: server.environment.map { "\($0.key)=\($0.value)" })
        defer { kill(other, SIGKILL); var status: Int32 = 0; waitpid(other, &status, 0) }
        _ = try server.xdotool("search", "--sync", "--onlyvisible", "--classname", "xmessage")
        let app = try RunningApp(files.arguments + Self.scaleOne + ["--kiosk", "--events"], environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.eventNames.contains("ready") })
        func active() -> UInt? { (try? server.xdotool("getactivewindow")).flatMap { UInt($0.trimmingCharacters(in: .whitespacesAndNewlines)) } }
        #expect(waitUntil { active() == window }, "the kiosk is active: \(String(describing: active()))")
        try server.xdotool("key", "alt+Tab")
        usleep(500_000)
        #expect(active() == window, "Alt+Tab went to the window manager: \(String(describing: active())) is active")
        try server.press("ctrl+alt+shift+q", in: window)
        #expect(app.wait() == 0)
    }

    @Test("the outcome log survives repeated kill -9: every dealt card's record is whole and counted")
    func logSurvivesKill() throws {
        let files = try Self.files(); defer { files.remove() }
        let logPath = files.folder.appendingPathComponent("cards.log").path
        let server = try Xvfb(width: 200, height: 150); defer { server.stop() }
        var dealt = 0, runs = 0
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<6 {
            let app = try RunningApp(files.arguments + Self.scaleOne + ["--kiosk", "--events", "--brush", "5", "--abandon-reset", "0.05",
                                                        "--log", logPath], environment: server.environment)
            let window = try server.scratchcardWindow()
            let until = Date().addingTimeInterval(Double.random(in: 0.3...1.2, using: &rng))
            var x = 10
            while Date() < until {
                try server.xdotool("mousemove", "--window", "\(window)", "\(x)", "40", "click", "1")
                x = x % 180 + 7
                usleep(70_000)
            }
            kill(app.pid, SIGKILL)
            app.wait()
            dealt += app.eventNames.filter { $0 == "new-card" }.count
            runs += 1
        }
        let (records, damaged) = try OutcomeLog.read(path: logPath)
        #expect(damaged == 0, "no torn line")
        // A record is synced before its new-card event is written; a kill may fall between.
        #expect(records.count >= dealt && records.count <= dealt + runs, "\(records.count) records, \(dealt) cards dealt")
        #expect(dealt >= 6, "the test dealt too few cards to mean much: \(dealt)")
        #expect(records.allSatisfy { $0.outcome == .abandoned })
        let summary = try runToExit(["log-summary", logPath])
        #expect(summary.status == 0)
        #expect(summary.out.contains("cards: \(records.count)\n"), "\(summary.out)")
        #expect(summary.out.contains("abandoned \(records.count)"), "\(summary.out)")
    }

    func screenSaverTimeout(_ server: Xvfb) throws -> String {
        let text = try server.run("xset", ["q"])
        let line = text.split(separator: "\n").first { $0.contains("timeout:") } ?? ""
        return line.trimmingCharacters(in: .whitespaces)
    }

    @Test("without a window manager: the screen, the cursor hidden, the screen saver held off; only the chord ends it")
    func fullScreenWithoutWindowManager() throws {
        let files = try Self.files(); defer { files.remove() }
        let server = try Xvfb(width: 320, height: 240); defer { server.stop() }
        try server.run("xset", ["s", "300"])
        let before = try screenSaverTimeout(server)
        let app = try RunningApp(files.arguments + Self.scaleOne + ["--kiosk", "--events"], environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.eventNames.contains("ready") })
        let g = try server.geometry(window: window)
        #expect(g.x == 0 && g.y == 0 && g.width == 320 && g.height == 240, "\(g)")
        #expect(try server.capture(window: window).size == PixelSize(width: 320, height: 240))
        let held = try screenSaverTimeout(server)
        #expect(held.contains("timeout:  0"), "\(held)")
        try server.xdotool("mousemove", "--window", "\(window)", "100", "100")
        let cursor = try #require(server.currentCursorImage())
        #expect(cursor.isInvisible, "an invisible cursor over the kiosk")

        for key in ["q", "Escape", "ctrl+alt+q", "ctrl+shift+q"] { try server.press(key, in: window) }
        usleep(300_000)
        #expect(app.process.isRunning)
        try server.press("ctrl+alt+shift+q", in: window)
        #expect(app.wait() == 0)
        #expect(app.eventNames.last == "quit")
        let after = try screenSaverTimeout(server)
        #expect(after == before, "the screen saver settings are restored")
    }

    @Test("a deck image gone missing: the kiosk keeps its card, says why, does not spin, and deals again once it is back")
    func missingDeckImage() throws {
        let files = try Self.files(); defer { files.remove() }
        let deck = files.folder.appendingPathComponent("deck")
        try FileManager.default.createDirectory(at: deck, withIntermediateDirectories: true)
        let gold = deck.appendingPathComponent("gold.png").path
        try FileManager.default.copyItem(atPath: files.folder.appendingPathComponent("gold.png").path, toPath: gold)
        let server = try Xvfb(width: 200, height: 150); defer { server.stop() }
        let app = try RunningApp(["--cover", files.folder.appendingPathComponent("cover.png").path, "--deck", deck.path,
                                  "--scale", "1", "--kiosk", "--events", "--brush", "60", "--idle-reset", "0.5"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.eventNames.contains("ready") })
        try FileManager.default.moveItem(atPath: gold, toPath: gold + ".away")
        try scratchEverything(server, window)
        #expect(waitUntil { app.standardError.contains("cannot deal a new card") }, "\(app.standardError)")
        usleep(500_000)
        let stat = { () throws -> Int in
            let text = try String(contentsOfFile: "/proc/\(app.pid)/stat", encoding: .utf8)
            let fields = text[text.index(after: text.lastIndex(of: ")")!)...].split(separator: " ")
            return Int(fields[11])! + Int(fields[12])!
        }
        let before = try stat()
        usleep(1_500_000)
        #expect(try stat() - before <= 2, "no busy retrying")
        #expect(app.process.isRunning && !app.eventNames.contains("new-card"))
        try FileManager.default.moveItem(atPath: gold + ".away", toPath: gold)
        #expect(waitUntil(timeout: 10) { app.eventNames.contains("new-card") })
        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0)
    }

    @Test("SIGTERM ends kiosk mode cleanly and gives the screen saver its settings back")
    func terminatedKioskRestoresScreenSaver() throws {
        let files = try Self.files(); defer { files.remove() }
        let server = try Xvfb(width: 320, height: 240); defer { server.stop() }
        try server.run("xset", ["s", "450"])
        let before = try screenSaverTimeout(server)
        let app = try RunningApp(files.arguments + Self.scaleOne + ["--kiosk", "--events"], environment: server.environment)
        _ = try server.scratchcardWindow()
        #expect(waitUntil { app.eventNames.contains("ready") })
        let held = try screenSaverTimeout(server)
        #expect(held.contains("timeout:  0"), "\(held)")
        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0)
        #expect(app.eventNames.last == "quit")
        let after = try screenSaverTimeout(server)
        #expect(after == before, "\(after)")
    }

    @Test("with a window manager (openbox): fills the screen, resets itself after a reveal, exits only on the chord, logs each card")
    func kioskWithWindowManager() throws {
        let files = try Self.files(); defer { files.remove() }
        let logPath = files.folder.appendingPathComponent("cards.log").path
        let server = try Xvfb(width: 200, height: 150); defer { server.stop() }
        let manager = try WindowManager(server: server); defer { manager.stop() }
        let app = try RunningApp(files.arguments + Self.scaleOne + ["--kiosk", "--events", "--log", logPath, "--brush", "60",
                                                    "--idle-reset", "1", "--exit-chord", "ctrl+alt+x"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow()
        let deadline = Date().addingTimeInterval(5)
        var g = try server.geometry(window: window)
        while (g.width != 200 || g.height != 150) && Date() < deadline {
            usleep(50_000)
            g = try server.geometry(window: window)
        }
        #expect(g.x == 0 && g.y == 0 && g.width == 200 && g.height == 150, "\(g)")
        #expect(try server.xprop(id: window, "_NET_WM_STATE").contains("_NET_WM_STATE_FULLSCREEN"))
        #expect(waitUntil { app.eventNames.contains("ready") })

        try scratchEverything(server, window)
        #expect(waitUntil { app.eventNames.contains("new-card") }, "a new card after the reveal: \(app.eventNames)")
        #expect(try server.waitForPixels(window: window) { $0[100, 75] == Self.cover }[100, 75] == Self.cover)

        for key in ["q", "Escape", "ctrl+alt+shift+q"] { try server.press(key, in: window) }
        usleep(300_000)
        #expect(app.process.isRunning, "the default chord is replaced by the operator's")
        try server.press("ctrl+alt+x", in: window)
        #expect(app.wait() == 0)
        let (records, damaged) = try OutcomeLog.read(path: logPath)
        #expect(damaged == 0)
        #expect(records.map(\.outcome) == [.revealed, .quit])
        #expect(records.first?.how == .threshold)
    }
}
