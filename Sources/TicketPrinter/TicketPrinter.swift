@preconcurrency import Glibc
import CCups
import Dispatch
import Threads

/// Prints claim tickets on a CUPS destination (`--print-claims PRINTER`) from a queue of
/// its own: `submit` returns at once, and the kiosk never waits for a printer. Each
/// ticket (a PDF) goes to CUPS as one job (cupsCreateJob, cupsStartDocument,
/// cupsWriteRequestData, cupsFinishDocument; the server is CUPS's default: `CUPS_SERVER`
/// or client.conf, else the local one). A stopped queue (`cupsdisable`) takes the job
/// and holds it until it is enabled: that is logged. A server that cannot be reached, or
/// a job it refuses, is tried again after 1 s, doubling to 30 s, each time logged, until
/// it is taken. The job's title names the card, never the code.
///
///     let printer = TicketPrinter(destination: "counter", log: { log($0) })
///     printer.submit(pdf: bytes, title: "claim ticket: bike")
public final class TicketPrinter: @unchecked Sendable {
    public let destination: String
    private let log: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "scratchcard.ticket-printer")
    // Touched on `queue` only.
    private var waiting: [(pdf: [UInt8], title: String)] = []
    private var backoff = TicketPrinter.firstBackoff
    private var retryScheduled = false
    /// Under `countLock`: tickets submitted and not yet taken by CUPS.
    private let countLock = Condition()
    private var unsent = 0

    static let firstBackoff = 1.0
    static let longestBackoff = 30.0

    public init(destination: String, log: @escaping @Sendable (String) -> Void) {
        self.destination = destination
        self.log = log
    }

    /// Queues a ticket; returns at once.
    public func submit(pdf: [UInt8], title: String) {
        countLock.lock(); unsent += 1; countLock.unlock()
        queue.async {
            self.waiting.append((pdf, title))
            if !self.retryScheduled { self.sendWaiting() }
        }
    }

    /// Tickets CUPS has not taken yet.
    public var pending: Int { countLock.lock(); defer { countLock.unlock() }; return unsent }

    /// On the queue: sends what waits, in order; on a failure, tries again later.
    private func sendWaiting() {
        while let ticket = waiting.first {
            switch send(ticket.pdf, title: ticket.title) {
            case .success(let job):
                waiting.removeFirst()
                countLock.lock(); unsent -= 1; countLock.unlock()
                backoff = Self.firstBackoff
                log("print-claims: \(ticket.title) sent to \(destination) (job \(job))")
            case .failure(let problem):
                log("print-claims: \(problem); trying \(ticket.title) again in \(Int(backoff)) s")
                retryScheduled = true
                queue.asyncAfter(deadline: .now() + backoff) {
                    self.retryScheduled = false
                    self.sendWaiting()
                }
                backoff = Swift.min(backoff * 2, Self.longestBackoff)
                return
            }
        }
    }

    struct Problem: Error, CustomStringConvertible { let description: String }

    /// One ticket to CUPS: the job's id, or why not.
    private func send(_ pdf: [UInt8], title: String) -> Result<Int32, Problem> {
        // The default server again (CUPS_SERVER, client.conf): libcups keeps it per thread,
        // and the queue's work may run on any thread.
        cupsSetServer(nil)
        guard let dest = cupsGetNamedDest(nil, destination, nil) else {
            // libcups says "not found" for a server it cannot reach too: ask the server.
            let server = cupsServer().map { String(cString: $0) } ?? "?"
            guard let http = httpConnect2(cupsServer(), ippPort(), nil, AF_UNSPEC, cupsEncryption(), 1, 5000, nil) else {
                return .failure(Problem(description: "cannot reach the CUPS server at \(server)"))
            }
            httpClose(http)
            return .failure(Problem(description: "the CUPS server at \(server) has no printer '\(destination)' (\(lastError()))"))
        }
        let state = cupsGetOption("printer-state", dest.pointee.num_options, dest.pointee.options).map { String(cString: $0) }
        let accepting = cupsGetOption("printer-is-accepting-jobs", dest.pointee.num_options, dest.pointee.options).map { String(cString: $0) }
        cupsFreeDests(1, dest)
        if accepting == "false" {
            return .failure(Problem(description: "'\(destination)' refuses jobs (cupsreject); the ticket waits here"))
        }
        if state == "5" { log("print-claims: '\(destination)' is stopped: \(title) waits in its queue until it is enabled (cupsenable)") }
        let job = cupsCreateJob(nil, destination, title, 0, nil)
        guard job > 0 else { return .failure(Problem(description: "'\(destination)' did not take the job (\(lastError()))")) }
        guard cupsStartDocument(nil, destination, job, "claim-ticket.pdf", "application/pdf", 1) == HTTP_STATUS_CONTINUE else {
            let why = lastError()
            _ = cupsCancelJob(destination, job)
            return .failure(Problem(description: "'\(destination)' did not take the ticket (\(why))"))
        }
        let written = pdf.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { cupsWriteRequestData(nil, $0, bytes.count) }
        }
        let finished = cupsFinishDocument(nil, destination)
        guard written == HTTP_STATUS_CONTINUE, finished == IPP_STATUS_OK else {
            let why = lastError()
            _ = cupsCancelJob(destination, job)
            return .failure(Problem(description: "'\(destination)' lost the ticket on the way (\(why))"))
        }
        return .success(job)
    }

    private func lastError() -> String {
        cupsLastErrorString().map { String(cString: $0) } ?? "error \(cupsLastError().rawValue)"
    }
}
