import CardArt
import CardRules
import Claims
import QRCode
import ScratchStore

/// The kiosk's claims: the promotion's key (`--claim-key`, loaded and checked at start)
/// and the kiosk's name. It makes a deal's claim as the card shows it (the code and its
/// QR, drawn on the prize by CardArt) and gives the store and the pool the same code
/// (`issuer`): the code depends on the deal alone, so a card resumed after a power cut,
/// or a deal whose reveal was lost, carries the code the store holds.
struct ClaimMaker: Sendable {
    let key: ClaimKey
    let kiosk: String

    /// The key of `options.claimKey`, or nil without one. A deck with claim cards and no
    /// key, and a key file that cannot be used, end the program (exit 2).
    static func load(options: WindowOptions, deck: Deck?) throws(ExitError) -> ClaimMaker? {
        guard let path = options.claimKey else {
            if let deck, let problem = needsKey(deck) { throw ExitError(code: 2, message: "\(options.deck ?? "the deck"): \(problem)") }
            return nil
        }
        return ClaimMaker(key: try loadClaimKey(path), kiosk: options.kioskID ?? defaultKioskID())
    }

    /// Why `deck` cannot be dealt without the promotion's key (it has a claim card), or
    /// nil: checked at start, and when SIGHUP reloads the deck.
    static func needsKey(_ deck: Deck) -> String? {
        deck.cards.first(where: \.claim).map {
            "the card \"\($0.id)\" is a claim (\"claim\": true): give the promotion's key with --claim-key FILE"
        }
    }

    /// The claim a deal of a claim card carries, as drawn.
    func mark(forDeal deal: DealID) -> ClaimMark {
        let code = key.code(forDeal: deal.text).grouped
        // 29 characters of QR's alphanumeric set always fit a version-2 symbol.
        let qr = try! QRCode(encoding: code)
        return ClaimMark(code: code, qrModules: qr.modules, qrWidth: qr.width)
    }

    /// What the store and the pool record for each deal of a claim card.
    var issuer: ClaimIssuer { claimIssuer(key: key, kiosk: kiosk) }
}
