import CardArt
import CardRules
import Dispatch
import Foundation
import ScratchCore
import ScratchStore
import TicketPrinter

/// `--print-claims PRINTER`: a ticket for each claim revealed (the prize, the code and
/// its QR, the kiosk, the time), drawn as PDF on a queue of its own and handed to the
/// printing room, which sends it from its own queue: the loop only asks.
///
/// With the kiosk's store, each ticket is kept there (KioskStore+Tickets.swift) before it
/// goes to the printer, and marked with CUPS's job id when CUPS takes it; at start, the
/// tickets an earlier run kept and CUPS never took are sent again (the printer first asks
/// CUPS whether it took one just before that run ended). The store is reached through its
/// writer's queue only, from this part's queue and the printer's, never the loop.
final class ClaimTickets {
    private let printer: TicketPrinter
    private let kiosk: String
    private let store: (any LocalStoreAccess)?
    private let drawing = DispatchQueue(label: "scratchcard.claim-tickets", qos: .utility)

    /// Tickets for `destination` (`--print-claims PRINTER`), naming `kiosk`. `store`:
    /// the kiosk's store through its writer's queue, when there is one.
    init(destination: String, kiosk: String, store: (any LocalStoreAccess)?) {
        let printer = TicketPrinter(destination: destination, log: { log($0) })
        self.printer = printer
        self.kiosk = kiosk
        self.store = store
        guard let store else { return }
        // First on this part's queue, so before any ticket of this run is kept.
        drawing.async {
            let kept: [StoredTicket]
            do { kept = try store.run { s throws(StoreError) -> [StoredTicket] in try s.untakenTickets() } } catch {
                log("print-claims: cannot read the tickets kept in the store: \(error)")
                return
            }
            for ticket in kept {
                printer.submit(pdf: ticket.pdf, title: ticket.title, deal: ticket.deal.text, earlierRun: true,
                               taken: Self.recorder(store, ticket.deal))
            }
        }
    }

    /// The card on show was revealed: its ticket, if it is a claim (once per deal: a card
    /// taken up again after a restart does not print a second one).
    func revealed(_ card: DealtCard) {
        guard let claim = card.claim?.mark, let deal = card.claim?.deal else { return }
        let prize = card.images.prize, title = "claim ticket: \(card.id)", kiosk = kiosk, printer = printer, store = store
        let time = utcTime(Date().timeIntervalSince1970)
        drawing.async {
            let picture = prize.rendered(at: CardArt.designSize)
            guard let pdf = CardArt.ticketPDF(ClaimTicket(prize: picture, title: card.id, claim: claim, kiosk: kiosk, time: time)) else {
                log("print-claims: the ticket for \(card.id) could not be drawn")
                return
            }
            var taken: @Sendable (Int32) -> Void = { _ in }
            if let store {
                do {
                    let now = Date().timeIntervalSince1970
                    let fresh = try store.run { s throws(StoreError) -> Bool in try s.queueTicket(deal: deal, title: title, pdf: pdf, now: now) }
                    guard fresh else { return }     // this deal's ticket is kept already (and sent, or on its way)
                    taken = Self.recorder(store, deal)
                } catch {
                    log("print-claims: cannot keep the ticket for \(card.id) in the store (\(error)); it is sent all the same")
                }
            }
            printer.submit(pdf: pdf, title: title, deal: deal.text, taken: taken)
        }
    }

    /// What the printer calls (on its queue) when CUPS took a ticket: the job id into the store.
    private static func recorder(_ store: any LocalStoreAccess, _ deal: DealID) -> @Sendable (Int32) -> Void {
        { job in
            do {
                try store.run { s throws(StoreError) in try s.ticketTaken(deal: deal, job: Int(job), now: Date().timeIntervalSince1970) }
            } catch {
                log("print-claims: CUPS took the ticket of deal \(deal) (job \(job)) but the store could not record it: \(error)")
            }
        }
    }

    /// Tickets not yet taken by CUPS (with a store, kept there for the next start).
    var pending: Int { printer.pending }
}
