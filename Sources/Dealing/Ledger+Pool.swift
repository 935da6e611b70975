@preconcurrency import Glibc
import CardRules
import Foundation
import ScratchCore
import ScratchImage
import ScratchStore

/// The window's side of a shared prize pool (`--pool`, ScratchStore's `PoolLedger`).
///
/// - The card maker's worker takes each new card from the pool (`Dealer.deal(fromPool:)`):
///   every network call happens there, never on the window's loop, which goes on reading
///   strokes and repainting whatever the network does.
/// - The loop records the taken deal in the local store when it shows the card
///   (`Ledger.show`), with the card before it ended, in one local transaction; the
///   outcome is queued for the pool and sent on the pool's own queue.
/// - While the pool cannot be reached, the worker deals the deck's unlimited cards; with
///   none, the "back in a moment" card is shown (nothing to scratch) and the pool tried
///   again with backoff at each reset. Sold out: the sold-out card, and the pool asked
///   again every 30 s at the latest (a head office may add stock with `pool init --deck`).
extension Ledger {
    /// The pool the options name, connected and caught up (or out of reach: the kiosk
    /// starts offline); nil without `--pool`. A missing or newer schema, a kiosk id in
    /// use, a connection string with a password: an error (exit 2).
    static func openPool(_ options: Options, hasDeck: Bool, writer: StoreWriter, claims: ClaimMaker?) throws(StoreError) -> PoolLedger? {
        guard let text = options.pool else { return nil }
        guard hasDeck else {
            throw StoreError(path: "--pool", kind: .other,
                             message: "needs --deck PATH: the deck says which cards there are and which are unlimited (the consolation cards a kiosk deals while the pool cannot be reached)")
        }
        let address: PoolAddress
        do { address = try PoolAddress(text, environment: ProcessInfo.processInfo.environment) } catch {
            throw StoreError(path: "--pool", kind: .other, message: error.message)
        }
        let pool = PostgresPool(address: address, kioskID: options.kioskID)
        if let claims {
            pool.claimIssuer = claims.issuer
            pool.claimKeyFingerprint = claims.key.fingerprint
        }
        let ledger = PoolLedger(local: writer, storePath: writer.path, pool: pool, log: { log($0) })
        try ledger.start()
        if options.verbose { log("pool: \(address), kiosk id \(options.kioskID)\(ledger.isOnline ? "" : " (offline for now)")") }
        return ledger
    }
}

/// The pool's ledger reaches the store through the writer's queue, beside the window's
/// own writes: one SQLite connection, one thread at a time.
extension StoreWriter: LocalStoreAccess {
    func run<T>(_ body: (KioskStore) throws(StoreError) -> T) throws(StoreError) -> T {
        try now { ledger throws(StoreError) -> T in
            // With --pool the writer holds the kiosk's KioskStore (StoreKeeper.init).
            guard let store = ledger as? KioskStore else {
                throw StoreError(path: path, kind: .other, message: "the pool needs the kiosk's local store")
            }
            return try body(store)
        }
    }
}

extension Dealer {
    /// On the card maker's worker: a card taken from the pool (its images loaded), the
    /// sold-out card, or "back in a moment" when the pool is out of reach and the deck
    /// has no unlimited card.
    func deal(fromPool pool: PoolLedger, book: StockBook) throws(ImageError) -> DealtCard {
        // The deck and its source as one (a SIGHUP meanwhile does not mix them).
        let edition = book.edition
        let take: PoolLedger.Take
        do { take = try pool.take(from: edition.deck, shownAt: Date().timeIntervalSince1970) } catch {
            throw ImageError(path: error.path, problem: error.message)
        }
        switch take {
        case .taken(let taken):
            do {
                // Made as deal() makes a drawn card: its images or text, its sound.
                var card = try reading(edition.source).dealt(taken.card, deal: taken.deal)
                card.origin = .pool(taken, edition: edition.number)
                return card
            } catch {
                pool.release(taken)
                throw error
            }
        case .soldOut:
            return try soldOutCard(edition: nil)
        case .offline(let retryIn):
            return backSoonCard(retryAt: monotonicSeconds() + retryIn)
        }
    }

    /// "Back in a moment": a text card drawn at the window's size (CardArt), like the
    /// built-in sold-out card; nothing to scratch.
    func backSoonCard(retryAt: Double) -> DealtCard {
        let text = CardText(title: "BACK IN A MOMENT", subtitle: "Please come back soon",
                            colour: RGBA(r: 255, g: 255, b: 255), background: RGBA(r: 60, g: 92, b: 74))
        return DealtCard(id: "back-soon", prize: "built-in",
                         images: CardImages(cover: .text(text, background: nil), prize: .text(text, background: nil)),
                         revealSound: nil, celebrate: false, origin: .backSoon(retryAt: retryAt))
    }
}
