import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import NotifySupport
import ScratchCore
import ScratchStore
import XvfbSupport

/// The kiosk under a service manager, as systemd runs a `Type=notify` unit with
/// `WatchdogSec=`: a datagram socket the test listens on stands in for systemd's.
@Suite(.serialized) struct ServiceNotifyAppTests {
    static let size = PixelSize(width: 160, height: 120)

    /// A launcher (python3, which make deps installs) that makes the program's stdout a
    /// datagram socket connected to the listener's address (the first argument), then
    /// execs the program: its event lines then come into the same queue as its notify
    /// messages, in the order it sent them. Two readers of two channels (a pipe and the
    /// socket), each stamping what it reads, order them as the scheduler pleases: once
    /// READY=1 was stamped 310 µs before the ready line it followed.
    static let stdoutToListener = [
        "/usr/bin/python3", "-c",
        "import os, socket, sys\n"
            + "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
            + "s.connect(sys.argv[1])\n"
            + "os.dup2(s.fileno(), 1)\n"
            + "os.execv(sys.argv[2], sys.argv[2:])\n",
    ]

    /// The program's event lines among the listener's datagrams, in order.
    static func events(_ listener: NotifyListener) -> [[String: Any]] {
        listener.messages.flatMap(\.lines).compactMap { line in
            line.hasPrefix("{") ? (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] : nil
        }
    }

    @Test("READY=1 once the first card is on screen, STATUS= naming the deal, then sold out; WATCHDOG=1 at half WATCHDOG_USEC; STOPPING=1 at SIGTERM")
    func readyStatusWatchdogStopping() throws {
        let listener = try NotifyListener(); defer { listener.stop() }
        let deck = try StockedDeck([.init(id: "bike", colour: RGBA(r: 220, g: 30, b: 40), stock: 1)], size: Self.size)
        defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        var environment = server.environment
        environment["NOTIFY_SOCKET"] = listener.address
        environment["WATCHDOG_USEC"] = "1000000"
        let app = try RunningApp(deck.kioskArguments(idleReset: 1, abandonReset: 30, extra: ["--reveal-at", "40"]),
                                 environment: environment, launcher: Self.stdoutToListener + [listener.address])
        defer { if app.process.isRunning { kill(app.pid, SIGKILL); app.wait() } }
        func eventNames() -> [String] { Self.events(listener).compactMap { $0["event"] as? String } }

        // READY=1: by then the card is on screen (the cover's grey, not a black window).
        try #require(waitUntil(timeout: 20) { !listener.times(of: "READY=1").isEmpty }, "no READY=1: \(app.standardError)")
        let window = try server.scratchcardWindow()
        let first = try server.capture(window: window)
        // (The attract band may sweep a part of it.)
        let coverPixels = (0..<first.size.height).flatMap { y in (0..<first.size.width).map { first[$0, y] } }
            .filter { $0 == StockedDeck.cover }.count
        #expect(coverPixels > first.size.width * first.size.height / 2, "at READY=1 only \(coverPixels) pixels show the cover")
        #expect(listener.times(of: "READY=1").count == 1)
        // After the first frame, so after the `ready` event (written when the window is
        // mapped, before its first put): a READY=1 sent at the map would come first.
        let sent = listener.messages
        let readyLine = try #require(sent.firstIndex { $0.text.contains("\"event\":\"ready\"") }, "no ready line: \(sent.map(\.text))")
        let ready = try #require(sent.firstIndex { $0.lines.contains("READY=1") })
        #expect(ready > readyLine, "READY=1 was sent before the ready event: \(sent.map(\.text))")
        let shown = Self.events(listener).last { ["ready", "new-card"].contains($0["event"] as? String) }
        let deal = try #require(shown?["deal"] as? String, "\(sent.map(\.text))")
        #expect(listener.values(of: "STATUS").contains { $0.contains(deal) && $0.contains("bike") }, "\(listener.values(of: "STATUS"))")

        // The watchdog at half of 1 s: every 0.5 s, from the loop, while nothing happens.
        let from = monotonicNow()
        usleep(3_000_000)
        let pings = listener.times(of: "WATCHDOG=1").filter { $0 >= from }
        #expect((5...7).contains(pings.count), "\(pings.count) pings in 3 s")
        let gaps = zip(pings, pings.dropFirst()).map { $0.1 - $0.0 }
        #expect(gaps.allSatisfy { $0 > 0.4 && $0 < 0.8 }, "gaps \(gaps)")

        // Revealed, reset, and the stock of one is gone: sold out.
        for y in [20, 60, 100] {
            try server.xdotool("mousemove", "0", "\(y)", "mousedown", "1", "mousemove", "80", "\(y)", "mousemove", "159", "\(y)", "mouseup", "1")
        }
        #expect(waitUntil(timeout: 10) { listener.values(of: "STATUS").last?.contains("sold out") == true },
                "\(listener.values(of: "STATUS")), events \(eventNames())")

        kill(app.pid, SIGTERM)
        #expect(app.wait() == 0)
        #expect(waitUntil(timeout: 2) { listener.values(of: "STOPPING") == ["1"] }, "\(listener.messages.map(\.text))")
    }

    @Test("The pings stop while the X server is stopped (SIGSTOP) and come back when it resumes (SIGCONT)")
    func pingsFollowTheXServer() throws {
        let listener = try NotifyListener(); defer { listener.stop() }
        let deck = try StockedDeck([.init(id: "cup", colour: RGBA(r: 30, g: 200, b: 60), stock: nil)], size: Self.size)
        defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height)
        defer { kill(server.pid, SIGCONT); server.stop() }
        var environment = server.environment
        environment["NOTIFY_SOCKET"] = listener.address
        environment["WATCHDOG_USEC"] = "600000"
        let app = try RunningApp(deck.kioskArguments(), environment: environment)
        defer { if app.process.isRunning { kill(app.pid, SIGKILL); app.wait() } }
        try #require(waitUntil(timeout: 20) { !listener.times(of: "READY=1").isEmpty }, "no READY=1: \(app.standardError)")
        usleep(1_000_000)
        #expect(listener.times(of: "WATCHDOG=1").count >= 2)

        kill(server.pid, SIGSTOP)
        // A ping whose round trip was answered just before the stop may still come.
        usleep(400_000)
        let stoppedFrom = monotonicNow()
        usleep(2_500_000)
        let whileStopped = listener.times(of: "WATCHDOG=1").filter { $0 >= stoppedFrom }
        let resumedAt = monotonicNow()
        kill(server.pid, SIGCONT)
        #expect(whileStopped.isEmpty, "\(whileStopped.count) pings while the X server was stopped")
        #expect(app.process.isRunning)

        #expect(waitUntil(timeout: 3) { listener.times(of: "WATCHDOG=1").contains { $0 > resumedAt } }, "no ping after SIGCONT")
        usleep(1_500_000)
        let after = listener.times(of: "WATCHDOG=1").filter { $0 > resumedAt }
        #expect(after.count >= 3, "\(after.count) pings in 1.5 s after SIGCONT")
    }

    @Test("A prize pool out of reach: READY=1 with STATUS= saying since when it is offline")
    func poolOfflineStatus() throws {
        let listener = try NotifyListener(); defer { listener.stop() }
        let deck = try StockedDeck([.init(id: "bike", colour: RGBA(r: 220, g: 30, b: 40), stock: 5)], size: Self.size)
        defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        var environment = server.environment
        environment["NOTIFY_SOCKET"] = listener.address
        // A pool no server listens for: the kiosk starts offline ("back in a moment").
        let app = try RunningApp(deck.kioskArguments(extra: ["--pool", "host=\(deck.folder.path) dbname=pool", "--kiosk-id", "k"]),
                                 environment: environment)
        defer { if app.process.isRunning { kill(app.pid, SIGKILL); app.wait() } }
        try #require(waitUntil(timeout: 20) { !listener.times(of: "READY=1").isEmpty }, "no READY=1: \(app.standardError)")
        let status = listener.values(of: "STATUS")
        #expect(status.first?.hasPrefix("prize pool offline since 20") == true && status.first?.hasSuffix(" UTC; \"back in a moment\" on show") == true,
                "\(status)")
    }

    @Test("Without NOTIFY_SOCKET the kiosk runs as before; with a socket nobody reads, it runs too")
    func noServiceManager() throws {
        let deck = try StockedDeck([.init(id: "cup", colour: RGBA(r: 30, g: 200, b: 60), stock: nil)], size: Self.size)
        defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height); defer { server.stop() }
        for socket in [nil, "/nonexistent/notify"] {
            var environment = server.environment
            if let socket { environment["NOTIFY_SOCKET"] = socket; environment["WATCHDOG_USEC"] = "200000" }
            let app = try RunningApp(deck.kioskArguments(), environment: environment)
            #expect(waitUntil(timeout: 20) { app.cardShown != nil }, "\(app.standardError)")
            usleep(500_000)
            kill(app.pid, SIGTERM)
            #expect(app.wait() == 0, "\(app.standardError)")
            #expect(!app.standardError.contains("notify"), "\(app.standardError)")
        }
    }
}
