import CardRules
import PostgresSupport
@testable import ScratchStore

/// A shared pool for a suite's test: a private PostgreSQL server, its pool initialised
/// with `cards` (nil: left empty, for a migration), and the kiosk's ledger over a store
/// with short deadlines, claims made by `issuer` on both sides.
struct TestPool {
    let server: PostgresServer
    let address: PoolAddress
    let issuer: ClaimIssuer

    init(cards: [DeckCard]?, issuer: ClaimIssuer) throws {
        server = try PostgresServer()
        self.issuer = issuer
        // The password file named in the connection string: other suites running
        // meanwhile set PGPASSFILE for servers of their own.
        address = try PoolAddress(server.conninfo + " passfile=\(server.passFile)", environment: [:])
        if let cards { try PostgresPool(address: address, kioskID: "init").initialize(deck: Deck(cards: cards)) }
    }

    /// The kiosk's ledger over `store`, short deadlines.
    func ledger(_ store: KioskStore) -> PoolLedger {
        let pool = PostgresPool(address: address, kioskID: "hall-1", connectTimeout: 2, timeout: 2)
        pool.claimIssuer = issuer
        store.claimIssuer = issuer
        return PoolLedger(store: store, pool: pool, log: { _ in })
    }
}
