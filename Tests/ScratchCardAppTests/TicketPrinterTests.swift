import CardArt
import Claims
import Foundation
@preconcurrency import Glibc
import QRCode
import CardRules
import ScratchCore
import Testing
import TestRequirementTrait
import TicketPrinter

/// The printing room against a private CUPS server with a cups-pdf printer: what comes
/// out is a PDF whose QR decodes to the claim's code; a stopped queue holds the ticket
/// until it is enabled; a server not there yet is tried again until it is.
@Suite(.serialized, .requires(CupsServer.unavailable))
struct TicketPrinterTests {
    static func ticket() throws -> (pdf: [UInt8], code: ClaimCode) {
        let code = try ClaimKey.generate().code(forDeal: DealID.random().text)
        let qr = try QRCode(encoding: code.grouped)
        let pdf = try #require(CardArt.ticketPDF(ClaimTicket(prize: nil, title: "bike", claim: ClaimMark(code: code.grouped, qrModules: qr.modules, qrWidth: qr.width),
                                                             kiosk: "hall-1", time: "2026-12-02T16:00:00Z")))
        return (pdf, code)
    }

    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    @Test("a stopped printer holds the ticket (logged) and prints it when enabled; its QR decodes to the code")
    func stoppedQueue() throws {
        let cups = try CupsServer()
        defer { if ProcessInfo.processInfo.environment["KEEP_CUPS"] == nil { cups.remove() } else { cups.stop() } }
        try cups.start()
        setenv("CUPS_SERVER", cups.server, 1)
        try cups.setEnabled(false)
        let lines = Lines()
        let printer = TicketPrinter(destination: cups.printer, log: { lines.add($0) })
        let (pdf, code) = try Self.ticket()
        let started = monotonicNow()
        printer.submit(pdf: pdf, title: "claim ticket: bike", deal: DealID.random().text)
        #expect(monotonicNow() - started < 0.05)            // submit never waits for CUPS
        #expect(waitUntil(timeout: 10) { printer.pending == 0 })
        #expect(lines.all.contains { $0.contains("is stopped") }, "\(lines.all)")
        #expect(cups.queuedJobs == 1)
        usleep(1_500_000)
        #expect(cups.printed.isEmpty)
        try cups.setEnabled(true)
        #expect(waitUntil(timeout: 30) { cups.printed.count == 1 && cups.queuedJobs == 0 })
        let codes = try cups.printed.first.map { try cups.qrCodes(inPDF: $0) } ?? []
        #expect(codes == [code.grouped], "\(cups.printed) \(cups.folder)")
        #expect(!lines.all.joined().contains(code.grouped) && !lines.all.joined().contains(code.text))
    }

    @Test("a CUPS server not there yet: each try logged, the ticket printed once it answers")
    func unreachableServer() throws {
        let cups = try CupsServer()
        defer { cups.remove() }
        setenv("CUPS_SERVER", cups.server, 1)
        let lines = Lines()
        let printer = TicketPrinter(destination: cups.printer, log: { lines.add($0) })
        let (pdf, code) = try Self.ticket()
        printer.submit(pdf: pdf, title: "claim ticket: bike", deal: DealID.random().text)
        #expect(waitUntil(timeout: 10) { lines.all.contains { $0.contains("cannot reach the CUPS server") } })
        print("logged: \(lines.all)")
        #expect(printer.pending == 1)
        try cups.start()
        #expect(waitUntil(timeout: 40) { printer.pending == 0 }, "\(lines.all)")
        #expect(waitUntil(timeout: 30) { cups.printed.count == 1 && cups.queuedJobs == 0 })
        #expect(try cups.printed.first.map { try cups.qrCodes(inPDF: $0) } == [code.grouped])
        #expect(lines.all.filter { $0.contains("sent to") }.count == 1)
    }

    final class Jobs: @unchecked Sendable {
        private let lock = NSLock()
        private var jobs: [Int32] = []
        func add(_ job: Int32) { lock.lock(); jobs.append(job); lock.unlock() }
        var all: [Int32] { lock.lock(); defer { lock.unlock() }; return jobs }
    }

    @Test("taken: called with CUPS's job id; a ticket from an earlier run that CUPS took already (its job titled with the same deal) is not printed again but taken with that job; one CUPS never had is printed")
    func earlierRun() throws {
        let cups = try CupsServer()
        defer { cups.remove() }
        try cups.start()
        setenv("CUPS_SERVER", cups.server, 1)
        let lines = Lines()
        let (pdf, code) = try Self.ticket()
        let deal = DealID.random().text
        let first = Jobs()
        TicketPrinter(destination: cups.printer, log: { lines.add($0) })
            .submit(pdf: pdf, title: "claim ticket: bike", deal: deal) { first.add($0) }
        #expect(waitUntil(timeout: 30) { first.all.count == 1 && cups.printed.count == 1 && cups.queuedJobs == 0 })
        #expect(lines.all.contains { $0.contains("claim ticket: bike (deal \(deal)) sent to") && $0.contains("(job \(first.all.first ?? -1))") },
                "\(lines.all)")

        // The next run: the store still had it as not taken (killed before it recorded the job).
        let again = Jobs()
        let next = TicketPrinter(destination: cups.printer, log: { lines.add($0) })
        next.submit(pdf: pdf, title: "claim ticket: bike", deal: deal, earlierRun: true) { again.add($0) }
        #expect(waitUntil(timeout: 30) { again.all.count == 1 })
        #expect(again.all == first.all && next.pending == 0)
        usleep(2_000_000)
        #expect(cups.printed.count == 1, "printed twice: \(cups.printed)")
        #expect(lines.all.contains { $0.contains("not printed again") })

        // An earlier run's ticket CUPS never had: printed, with a job of its own.
        let (other, otherCode) = try Self.ticket()
        let fresh = Jobs()
        next.submit(pdf: other, title: "claim ticket: bike", deal: DealID.random().text, earlierRun: true) { fresh.add($0) }
        #expect(waitUntil(timeout: 30) { fresh.all.count == 1 && cups.printed.count == 2 && cups.queuedJobs == 0 })
        #expect(fresh.all.first != first.all.first)
        #expect(try cups.printed.flatMap { try cups.qrCodes(inPDF: $0) }.sorted() == [code.grouped, otherCode.grouped].sorted())
        #expect(!lines.all.joined().contains(code.text) && !lines.all.joined().contains(code.grouped))
    }
}
