import CardArt
import Dispatch
import Foundation
import ScratchCore
import ScratchStore
import TicketPrinter

/// `--print-claims PRINTER`: a ticket for each claim revealed (the prize, the code and
/// its QR, the kiosk, the time), drawn as PDF on a queue of its own and handed to the
/// printing room, which sends it from its own queue: the loop only asks.
final class ClaimTickets {
    private let printer: TicketPrinter
    private let kiosk: String
    private let drawing = DispatchQueue(label: "scratchcard.claim-tickets", qos: .utility)

    /// Tickets for `destination` (`--print-claims PRINTER`), naming `kiosk`.
    init(destination: String, kiosk: String) {
        printer = TicketPrinter(destination: destination, log: { log($0) })
        self.kiosk = kiosk
    }

    /// The card on show was revealed: its ticket, if it is a claim.
    func revealed(_ card: DealtCard) {
        guard let claim = card.claim?.mark else { return }
        let prize = card.images.prize, title = card.id, kiosk = kiosk, printer = printer
        let time = utcTime(Date().timeIntervalSince1970)
        drawing.async {
            let picture = prize.rendered(at: CardArt.designSize)
            guard let pdf = CardArt.ticketPDF(ClaimTicket(prize: picture, title: title, claim: claim, kiosk: kiosk, time: time)) else {
                log("print-claims: the ticket for \(title) could not be drawn")
                return
            }
            printer.submit(pdf: pdf, title: "claim ticket: \(title)")
        }
    }

    /// Tickets not yet taken by CUPS (said at the end: they are lost when the kiosk quits).
    var pending: Int { printer.pending }
}
