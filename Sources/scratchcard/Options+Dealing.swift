import CardRules
import Dealing
import Foundation
import ScratchStore

/// What each part of the dealing room reads of the window's options, and nothing more.
extension WindowOptions {
    var dealerOptions: Dealer.Options {
        Dealer.Options(deck: deck, deckIsCardFile: openCardFile, cover: cover, prize: prize, coverText: coverText,
                       soldOutImage: soldOut)
    }

    var ledgerOptions: Ledger.Options {
        // Kiosk mode always keeps a store, and so does a pool kiosk (its card on show).
        let storePath = store ?? (kiosk || pool != nil ? KioskStore.defaultPath(environment: ProcessInfo.processInfo.environment) : nil)
        return Ledger.Options(store: storePath, outcomeLog: log, pool: pool, kioskID: kioskID ?? defaultKioskID(),
                              defaultCover: cover, printClaims: printClaims, verbose: verbose)
    }

    /// The promotion's key of `--claim-key`, or nil without one. A deck with claim cards
    /// and no key, and a key file that cannot be used, end the program (exit 2).
    func claimMaker(deck: Deck?) throws(ExitError) -> ClaimMaker? {
        guard let path = claimKey else {
            if let deck, let problem = ClaimMaker.needsKey(deck) { throw ExitError(code: 2, message: "\(self.deck ?? "the deck"): \(problem)") }
            return nil
        }
        return ClaimMaker(key: try loadClaimKey(path), kiosk: kioskID ?? defaultKioskID())
    }

    /// The options with a card file's own settings where the command line (or the
    /// configuration file) left the default.
    func applying(_ settings: CardSettings) -> WindowOptions {
        var options = self
        let defaults = WindowOptions()
        if let reveal = settings.revealAtPercent, revealAtPercent == defaults.revealAtPercent { options.revealAtPercent = reveal }
        if let brush = settings.brushPoints, brushPoints == defaults.brushPoints { options.brushPoints = brush }
        if let celebrate = settings.celebrate, self.celebrate == defaults.celebrate { options.celebrate = celebrate }
        return options
    }
}

extension ExitError {
    /// Dealing could not start: an image's exit code says whose fault it is (the
    /// installation's own: 1), anything else is bad input (2).
    init(_ error: DealingError) {
        switch error {
        case .image(let image): self.init(code: image.exitCode, message: "\(image)")
        case .input(let message): self.init(code: 2, message: message)
        }
    }
}
