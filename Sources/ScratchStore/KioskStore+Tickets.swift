import CardRules
import ScratchCore

/// The claim tickets a kiosk prints (`--print-claims`), kept until CUPS has taken them:
/// a ticket queued here before it is handed to the printer is printed after a restart
/// if CUPS could not be reached before it (a kill, a power cut). One ticket per deal.
///
/// Schema 4 adds (with the claims' book, Claims+Store.swift):
///
///     tickets(deal PRIMARY KEY REFERENCES deals, title, pdf BLOB, queued_at,
///             cups_job, taken_at)          -- cups_job NULL until CUPS took it; the
///                                          -- pdf emptied then
extension KioskStore {
    /// The tickets' part of the migration from schema 3 to 4 (`migrations[3]`).
    static let ticketsMigration = """
        CREATE TABLE tickets(
            deal TEXT PRIMARY KEY REFERENCES deals(deal),
            title TEXT NOT NULL,
            pdf BLOB NOT NULL,
            queued_at REAL NOT NULL,
            cups_job INTEGER,
            taken_at REAL);
        """

    /// Keeps a deal's ticket (its PDF and the title it is printed under) until CUPS takes
    /// it. Once per deal: false, and nothing changed, when the deal has one already
    /// (queued or taken).
    @discardableResult
    public func queueTicket(deal: DealID, title: String, pdf: [UInt8], now: Double) throws(StoreError) -> Bool {
        try connection.transaction { () throws(StoreError) -> Bool in
            try connection.prepare("INSERT OR IGNORE INTO tickets(deal, title, pdf, queued_at) VALUES (?, ?, ?, ?)")
                .bind(.text(deal.text), .text(title), .blob(pdf), .real(now)).run()
            return connection.changes > 0
        }
    }

    /// The tickets CUPS has not taken yet, oldest first.
    public func untakenTickets() throws(StoreError) -> [StoredTicket] {
        let query = try connection.prepare("SELECT deal, title, pdf, queued_at FROM tickets WHERE cups_job IS NULL ORDER BY queued_at, deal")
        var tickets: [StoredTicket] = []
        while try query.step() {
            tickets.append(StoredTicket(deal: DealID(query.text(0)), title: query.text(1), pdf: query.blob(2), queuedAt: query.real(3)))
        }
        return tickets
    }

    /// CUPS took the deal's ticket as job `job`: it is not printed again, and its PDF (a
    /// copy of the code, and tens of kilobytes) is dropped. Once: a ticket already marked
    /// keeps its first job.
    public func ticketTaken(deal: DealID, job: Int, now: Double) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            try connection.prepare("UPDATE tickets SET cups_job = ?, taken_at = ?, pdf = x'' WHERE deal = ? AND cups_job IS NULL")
                .bind(.integer(job), .real(now), .text(deal.text)).run()
        }
    }
}

/// A claim ticket the store keeps until CUPS takes it.
public struct StoredTicket: Equatable, Sendable {
    public let deal: DealID
    /// What the print job is called (the deal id is added by the printer), never the code.
    public let title: String
    public let pdf: [UInt8]
    /// When it was queued (seconds since 1970).
    public let queuedAt: Double
}
