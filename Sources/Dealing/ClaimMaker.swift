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
public struct ClaimMaker: Sendable {
    public let key: ClaimKey
    public let kiosk: String

    public init(key: ClaimKey, kiosk: String) {
        self.key = key
        self.kiosk = kiosk
    }

    /// Why `deck` cannot be dealt without the promotion's key (it has a claim card), or
    /// nil: checked at start, and when SIGHUP reloads the deck.
    public static func needsKey(_ deck: Deck) -> String? {
        deck.cards.first(where: \.claim).map {
            "the card \"\($0.id)\" is a claim (\"claim\": true): give the promotion's key with --claim-key FILE"
        }
    }

    /// The claim a deal of a claim card carries, as drawn.
    func claim(forDeal deal: DealID) -> DealtClaim {
        let code = key.code(forDeal: deal.text).grouped
        // 29 characters of QR's alphanumeric set always fit a version-2 symbol.
        let qr = try! QRCode(encoding: code)
        return DealtClaim(mark: ClaimMark(code: code, qrModules: qr.modules, qrWidth: qr.width), deal: deal)
    }

    /// What the store and the pool record for each deal of a claim card.
    public var issuer: ClaimIssuer { Self.issuer(key: key, kiosk: kiosk) }

    /// The issuer a kiosk (or `pool deal`) gives its ledger: the key's code for each deal
    /// of a claim card.
    public static func issuer(key: ClaimKey, kiosk: String) -> ClaimIssuer {
        ClaimIssuer(kiosk: kiosk) { card, deal in card.claim ? key.code(forDeal: deal.text).text : nil }
    }
}
