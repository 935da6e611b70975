import Foundation
@preconcurrency import Glibc
import Testing
import NotifySupport
import ServiceNotify

/// The notify protocol against a datagram socket the test listens on, as systemd's.
@Suite struct ServiceNotifierTests {
    @Test("READY, STATUS, STOPPING and WATCHDOG reach a socket at a path, one datagram each")
    func messagesAtAPath() throws {
        let listener = try NotifyListener(); defer { listener.stop() }
        let service = ServiceNotifier(environment: ["NOTIFY_SOCKET": listener.address])
        #expect(service.isActive)
        service.ready(status: "showing card bike")
        service.status("sold out")
        service.status("sold out")      // the same status again: not sent twice
        service.stopping()
        #expect(waitFor { listener.messages.count >= 3 })
        usleep(100_000)
        #expect(listener.messages.map(\.text) == ["READY=1\nSTATUS=showing card bike", "STATUS=sold out", "STOPPING=1"])
    }

    @Test("An abstract socket (@name) is reached too")
    func abstractSocket() throws {
        let listener = try NotifyListener(abstract: true); defer { listener.stop() }
        #expect(listener.address.hasPrefix("@"))
        let service = ServiceNotifier(environment: ["NOTIFY_SOCKET": listener.address])
        #expect(service.send("READY=1"))
        #expect(waitFor { listener.values(of: "READY") == ["1"] })
    }

    @Test("A status of several lines goes as one STATUS line")
    func statusOnOneLine() throws {
        let listener = try NotifyListener(); defer { listener.stop() }
        let service = ServiceNotifier(environment: ["NOTIFY_SOCKET": listener.address])
        service.status("pool offline\nREADY=1")
        #expect(waitFor { !listener.messages.isEmpty })
        #expect(listener.messages.first?.lines == ["STATUS=pool offline READY=1"])
    }

    @Test("Without NOTIFY_SOCKET, or with nobody listening, nothing fails and nothing is sent")
    func absentManager() throws {
        let none = ServiceNotifier(environment: [:])
        #expect(!none.isActive)
        #expect(!none.send("READY=1"))
        none.ready(); none.stopping()
        none.startWatchdog(now: 0)
        #expect(none.nextPingAt == nil && !none.pingDue(now: 100))
        // A socket path where nobody listens: the send fails, quietly.
        let gone = ServiceNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/notify", "WATCHDOG_USEC": "1000000"])
        #expect(!gone.send("READY=1"))
        // A relative path is not a notify socket.
        #expect(!ServiceNotifier(environment: ["NOTIFY_SOCKET": "notify"]).isActive)
    }

    @Test("The watchdog: pinged at half WATCHDOG_USEC, for this pid only")
    func watchdogSchedule() throws {
        let listener = try NotifyListener(); defer { listener.stop() }
        let service = ServiceNotifier(environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "3000000"])
        #expect(service.pingInterval == 1.5)
        service.startWatchdog(now: 10)
        #expect(service.pingDue(now: 10))
        service.watchdogPing(now: 10)
        #expect(!service.pingDue(now: 11.4) && service.pingDue(now: 11.5))
        #expect(service.nextPingAt == 11.5)
        #expect(waitFor { listener.values(of: "WATCHDOG") == ["1"] })

        let ours = ServiceNotifier(environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "2000000",
                                                 "WATCHDOG_PID": "\(getpid())"])
        #expect(ours.pingInterval == 1)
        let another = ServiceNotifier(environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "2000000",
                                                    "WATCHDOG_PID": "\(getpid() + 1)"])
        #expect(another.pingInterval == nil)
        another.startWatchdog(now: 0)
        #expect(!another.pingDue(now: 5))
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "0"]).pingInterval == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "x"]).pingInterval == nil)
    }
}

func waitFor(timeout: Double = 3, _ done: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !done() && Date() < deadline { usleep(10_000) }
    return done()
}
