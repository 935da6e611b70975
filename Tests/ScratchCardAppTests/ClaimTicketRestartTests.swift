import Claims
import Foundation
@preconcurrency import Glibc
import ScratchStore
import Testing
import XvfbSupport

/// `--print-claims` when CUPS cannot be reached and the kiosk is killed: the ticket kept
/// in the store is printed, once, when the kiosk starts again and CUPS is there.
@Suite(.serialized)
struct ClaimTicketRestartTests {
    @Test("revealed while CUPS cannot be reached, the kiosk killed -9, cupsd started, the kiosk started again: exactly one PDF whose QR is the code within 60 s; a third start prints nothing more")
    func ticketSurvivesAKill() throws {
        let promo = try ClaimKioskTests.Promotion()
        let deck = promo.deck
        defer { deck.remove() }
        let cups = try CupsServer()      // configured, not started: nothing listens on its port
        defer { cups.remove() }
        let server = try Xvfb(width: ClaimKioskTests.size.width, height: ClaimKioskTests.size.height)
        defer { server.stop() }
        var environment = server.environment
        environment["CUPS_SERVER"] = cups.server
        let arguments = deck.kioskArguments(brush: 40, extra: ["--claim-key", promo.key, "--kiosk-id", "hall-1", "--print-claims", cups.printer])
        let first = try RunningApp(arguments, environment: environment)
        defer { if first.process.isRunning { kill(first.pid, SIGKILL) } }
        let window = try server.scratchcardWindow()
        #expect(waitUntil { first.cardShown?.card == "bike" })
        for y in stride(from: 20, through: 380, by: 40) { try server.drag(window: window, from: (0, y), through: [(320, y), (639, y)]) }
        #expect(waitUntil { first.eventNames.contains("revealed") })
        let code = try #require(first.events.first { $0["event"] as? String == "revealed" }?["claim"] as? String)
        // Kept in the store before the printer tried CUPS.
        #expect(waitUntil(timeout: 15) { first.standardError.contains("cannot reach the CUPS server") }, "\(first.standardError)")
        let kept = try KioskStore(path: deck.store, access: .read).untakenTickets()
        #expect(kept.count == 1 && kept.first?.deal.text == first.cardShown?.deal, "\(kept.map(\.deal))")
        kill(first.pid, SIGKILL)
        first.wait()

        try cups.start()
        let second = try RunningApp(arguments, environment: environment)
        defer { if second.process.isRunning { kill(second.pid, SIGKILL) } }
        _ = try server.scratchcardWindow()
        #expect(waitUntil(timeout: 60) { cups.printed.count == 1 && cups.queuedJobs == 0 }, "\(second.standardError)")
        let printed = try #require(cups.printed.first)
        #expect(try cups.qrCodes(inPDF: printed) == [code])
        #expect(waitUntil(timeout: 10) { (try? KioskStore(path: deck.store, access: .read).untakenTickets().isEmpty) == true })
        kill(second.pid, SIGTERM)
        #expect(second.wait(timeout: 20) == 0, "\(second.standardError)")

        let third = try RunningApp(arguments, environment: environment)
        defer { if third.process.isRunning { kill(third.pid, SIGKILL) } }
        _ = try server.scratchcardWindow()
        #expect(waitUntil { third.cardShown != nil })
        usleep(8_000_000)
        #expect(cups.printed.count == 1 && cups.queuedJobs == 0, "\(cups.printed) \(third.standardError)")
        #expect(!third.standardError.contains("sent to"), "\(third.standardError)")
        for run in [first, second, third] { #expect(!run.standardError.contains(code)) }
        kill(third.pid, SIGTERM)
        #expect(third.wait(timeout: 20) == 0)
    }
}
