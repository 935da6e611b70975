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
/// it is taken; then `taken` is called with CUPS's job id, so that the caller can record
/// it. The job's title names the card and the deal (`TITLE (deal ID)`), never the code.
///
/// A ticket from an earlier run (kept by the caller until CUPS took it) may have been
/// taken just before that run ended, its job id not yet recorded: submitted with
/// `earlierRun`, CUPS is first asked for its jobs on the destination (`cupsGetJobs2`, all
/// users, completed ones too), and one whose title carries the same deal and that holds
/// its document is taken as the ticket's (`taken` with its id) instead of printing it twice.
///
///     let printer = TicketPrinter(destination: "counter", log: { log($0) })
///     printer.submit(pdf: bytes, title: "claim ticket: bike", deal: id) { job in record(id, job) }
public final class TicketPrinter: @unchecked Sendable {
    public let destination: String
    private let log: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "scratchcard.ticket-printer")
    /// One ticket on its way.
    private struct Ticket {
        let pdf: [UInt8]
        /// The job's title: the caller's, then the deal.
        let title: String
        let deal: String
        /// From an earlier run: ask CUPS whether it has the ticket before printing it.
        var askFirst: Bool
        let taken: @Sendable (Int32) -> Void
    }
    // Touched on `queue` only.
    private var waiting: [Ticket] = []
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

    /// Queues a ticket; returns at once. `deal` names it in the job's title (the deal id,
    /// never the code); `taken` is called on the printer's queue with CUPS's job id once
    /// CUPS has the whole ticket. `earlierRun`: a ticket an earlier run may have handed
    /// to CUPS already (see the type's note).
    public func submit(pdf: [UInt8], title: String, deal: String, earlierRun: Bool = false,
                       taken: @escaping @Sendable (Int32) -> Void = { _ in }) {
        countLock.lock(); unsent += 1; countLock.unlock()
        let ticket = Ticket(pdf: pdf, title: Self.jobTitle(title, deal: deal), deal: deal, askFirst: earlierRun, taken: taken)
        queue.async {
            self.waiting.append(ticket)
            if !self.retryScheduled { self.sendWaiting() }
        }
    }

    /// The job's title: the caller's (cut to 160 bytes, whole characters) and the deal,
    /// which `earlierRun` looks for: IPP's job-name holds 255 bytes.
    static func jobTitle(_ title: String, deal: String) -> String {
        var cut = ""
        for character in title {
            if cut.utf8.count + String(character).utf8.count > 160 { break }
            cut.append(character)
        }
        return cut + dealMark(deal)
    }

    static func dealMark(_ deal: String) -> String { " (deal \(deal))" }

    /// Tickets CUPS has not taken yet.
    public var pending: Int { countLock.lock(); defer { countLock.unlock() }; return unsent }

    /// On the queue: sends what waits, in order; on a failure, tries again later.
    private func sendWaiting() {
        while let ticket = waiting.first {
            if ticket.askFirst {
                switch job(forDeal: ticket.deal) {
                case .success(let job?):
                    done(ticket, job: job)
                    log("print-claims: \(ticket.title) was taken by \(destination) before the restart (job \(job)); not printed again")
                    continue
                case .success(nil):
                    waiting[0].askFirst = false
                case .failure(let problem):
                    retryLater(problem, ticket)
                    return
                }
            }
            switch send(ticket.pdf, title: ticket.title) {
            case .success(let job):
                done(ticket, job: job)
                log("print-claims: \(ticket.title) sent to \(destination) (job \(job))")
            case .failure(let problem):
                retryLater(problem, ticket)
                return
            }
        }
    }

    /// On the queue: the first ticket is CUPS's now.
    private func done(_ ticket: Ticket, job: Int32) {
        waiting.removeFirst()
        countLock.lock(); unsent -= 1; countLock.unlock()
        backoff = Self.firstBackoff
        ticket.taken(job)
    }

    private func retryLater(_ problem: Problem, _ ticket: Ticket) {
        log("print-claims: \(problem); trying \(ticket.title) again in \(Int(backoff)) s")
        retryScheduled = true
        queue.asyncAfter(deadline: .now() + backoff) {
            self.retryScheduled = false
            self.sendWaiting()
        }
        backoff = Swift.min(backoff * 2, Self.longestBackoff)
    }

    /// CUPS's job on the destination whose title carries `deal` and that holds its
    /// document (any user's, completed ones too), or nil. One that was created and never
    /// got its document (its sender died in between) is cancelled: the ticket is printed
    /// again. Cancelled and aborted jobs do not count.
    private func job(forDeal deal: String) -> Result<Int32?, Problem> {
        cupsSetServer(nil)
        var jobs: UnsafeMutablePointer<cups_job_t>?
        let count = cupsGetJobs2(nil, &jobs, destination, 0, CUPS_WHICHJOBS_ALL)
        guard count >= 0 else {
            let server = cupsServer().map { String(cString: $0) } ?? "?"
            return .failure(Problem(description: "cannot ask the CUPS server at \(server) for the jobs of '\(destination)' (\(lastError()))"))
        }
        defer { cupsFreeJobs(count, jobs) }
        let mark = Self.dealMark(deal)
        var found: Int32?
        for i in 0..<Int(count) {
            guard let job = jobs?[i], let title = job.title.map({ String(cString: $0) }), title.hasSuffix(mark) else { continue }
            if job.state == IPP_JSTATE_CANCELED || job.state == IPP_JSTATE_ABORTED { continue }
            if job.size > 0 {
                found = job.id
            } else if job.state == IPP_JSTATE_PENDING || job.state == IPP_JSTATE_HELD {
                _ = cupsCancelJob(destination, job.id)
            }
        }
        return .success(found)
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
