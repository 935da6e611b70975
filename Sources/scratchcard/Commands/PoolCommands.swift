@preconcurrency import Glibc
import Dealing
import CardRules
import Foundation
import ScratchCore
import ScratchStore

/// `scratchcard pool init|deal|stock`: the shared prize pool's commands, without a display.
enum PoolCommand: Equatable {
    case initialize(pool: String, deck: String?, claimKey: String?)
    case deal(PoolDealOptions)
    case stock(pool: String, deck: String?, json: Bool)
}

/// Options of `scratchcard pool deal`.
struct PoolDealOptions: Equatable {
    var pool = ""
    var deck = ""
    var count = 0
    var kioskID = defaultKioskID()
    /// The local store (deals, the outbox); nil: one in memory, gone at the end (the
    /// command waits until the pool has everything before it ends).
    var store: String?
    /// Milliseconds between deals (an operator's load test at a human pace).
    var paceMilliseconds = 0
    /// Seconds the end waits for the pool to take what is queued.
    var drainTimeout = 600.0
    /// Print the deals' latency before the last line.
    var stats = false
    /// The promotion's key: a claim for each claim card dealt, as a kiosk makes them.
    var claimKey: String?
}

let poolUsage = """
    usage: scratchcard pool init --pool CONNINFO [--deck PATH] [--claim-key FILE]
           scratchcard pool deal --pool CONNINFO --deck PATH --count N [--kiosk-id ID]
                                 [--store PATH] [--pace MS] [--drain-timeout S] [--stats]
                                 [--claim-key FILE]
           scratchcard pool stock --pool CONNINFO [--deck PATH] [--json]
                                 (the same as scratchcard stock --pool ...)

    The prize pool many kiosks share, in PostgreSQL. CONNINFO is a libpq connection
    string or URI (host=... dbname=..., or postgresql://user@host/db); the password is
    read from PGPASSFILE or ~/.pgpass, never from the command line: a CONNINFO holding
    one is refused.

    init    creates the pool's schema, or migrates it to this version; with --deck, sets
            each card's stock in the pool from the deck (what was dealt is kept, so
            raising a number adds prizes). Kiosks check the schema and never change it.
            With --claim-key, records the key's fingerprint: a kiosk with another key
            is refused at start (a pool that has one already keeps it).
    deal    deals N cards through the pool with no display, each revealed at once and
            its outcome recorded, as a kiosk would (a load test). While the pool cannot
            be reached it deals unlimited cards only and queues what the pool must be
            told; at the end it waits for the pool to take it all. Its last line:
            dealt=N stocked=K consolation=M offline_waits=W (W: the times it waited for
            the pool). --stats adds a line with the deals' latency. --claim-key FILE:
            a claim for each claim card dealt ("claim": true), as a kiosk makes them.
    stock   per card: stock, dealt, left, revealed, abandoned, quit; per kiosk: dealt,
            revealed, abandoned, quit, void (taken and never shown), last seen.
    """

/// A kiosk id: 1 to 200 printable characters.
func kioskID(_ text: String, _ option: String) throws(UsageError) -> String {
    guard !text.isEmpty, text.count <= 200, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f }) else {
        throw UsageError(message: "\(option) takes 1 to 200 printable characters, not '\(text.prefix(40))'")
    }
    return text
}

func parsePool(_ tokens: ArraySlice<String>) throws(UsageError) -> Command {
    var tokens = tokens
    guard let verb = tokens.popFirst() else { throw UsageError(message: "pool needs init, deal or stock") }
    if verb == "-h" || verb == "--help" { return .help(poolUsage) }
    var pool: String?, deck: String?, json = false
    var deal = PoolDealOptions()
    var count: Int?
    while let token = tokens.popFirst() {
        func value() throws(UsageError) -> String {
            guard let next = tokens.popFirst() else { throw UsageError(message: "\(token) needs a value") }
            return next
        }
        switch (verb, token) {
        case (_, "-h"), (_, "--help"): return .help(poolUsage)
        case (_, "--pool"): pool = try nonEmpty(value(), token)
        case (_, "--deck"): deck = try nonEmpty(value(), token)
        case ("stock", "--json"): json = true
        case ("deal", "--count"): count = try wholeNumber(value(), token, in: 1...100_000_000)
        case ("deal", "--kiosk-id"): deal.kioskID = try kioskID(value(), token)
        case ("deal", "--store"): deal.store = try nonEmpty(value(), token)
        case ("deal", "--pace"): deal.paceMilliseconds = try wholeNumber(value(), token, in: 0...60_000)
        case ("deal", "--drain-timeout"): deal.drainTimeout = try positiveNumber(value(), token, upTo: 86_400)
        case ("deal", "--stats"): deal.stats = true
        case ("deal", "--claim-key"), ("init", "--claim-key"): deal.claimKey = try nonEmpty(value(), token)
        default: throw UsageError(message: "pool \(verb.prefix(20)): unknown option '\(token.prefix(40))'")
        }
    }
    guard ["init", "deal", "stock"].contains(verb) else {
        throw UsageError(message: "pool takes init, deal or stock, not '\(verb.prefix(40))'")
    }
    guard let pool else { throw UsageError(message: "pool \(verb) needs --pool CONNINFO") }
    switch verb {
    case "init": return .pool(.initialize(pool: pool, deck: deck, claimKey: deal.claimKey))
    case "stock": return .pool(.stock(pool: pool, deck: deck, json: json))
    default:
        guard let deck else { throw UsageError(message: "pool deal needs --deck PATH") }
        guard let count else { throw UsageError(message: "pool deal needs --count N") }
        deal.pool = pool
        deal.deck = deck
        deal.count = count
        return .pool(.deal(deal))
    }
}

/// The address, checked: a bad one (or one holding a password) is exit 2.
func poolAddress(_ text: String) throws(ExitError) -> PoolAddress {
    do { return try PoolAddress(text, environment: ProcessInfo.processInfo.environment) } catch {
        throw ExitError(code: 2, message: error.message)
    }
}

func poolDeck(_ path: String) throws(ExitError) -> Deck {
    do { return try LoadedDeck.load(path: path).deck } catch { throw ExitError(code: 2, message: "\(error)") }
}

func runPool(_ command: PoolCommand) throws(ExitError) {
    switch command {
    case let .initialize(text, deckPath, keyPath):
        let address = try poolAddress(text)
        let deck = try deckPath.map { path throws(ExitError) in try poolDeck(path) }
        let key = try keyPath.map { path throws(ExitError) in try loadClaimKey(path) }
        let pool = PostgresPool(address: address, kioskID: "pool init")
        do {
            let versions = try pool.initialize(deck: deck)
            if let key { try pool.recordClaimKey(fingerprint: key.fingerprint) }
            let what = versions.from == versions.to ? "schema \(versions.to), up to date" : versions.from == 0
                ? "schema \(versions.to) created" : "schema \(versions.from) migrated to \(versions.to)"
            print("pool at \(address): \(what)" + (deck.map { "; stock set for \($0.cards.count) cards" } ?? "")
                  + (key.map { "; claim key \($0.fingerprint)" } ?? ""))
        } catch {
            throw ExitError(code: 2, message: error.message)
        }
    case let .stock(text, deckPath, json):
        try poolStock(address: poolAddress(text), deck: deckPath.map { path throws(ExitError) in try poolDeck(path) }, json: json)
    case .deal(let options):
        try poolDeal(options)
    }
}

/// `scratchcard stock --pool`: per card, then per kiosk.
func poolStock(address: PoolAddress, deck: Deck?, json: Bool) throws(ExitError) {
    let pool = PostgresPool(address: address, kioskID: "stock")
    do {
        for line in try pool.stockReport(deck: deck) { print(json ? line.json : line.text) }
        for line in try pool.kioskReport() { print(json ? line.json : line.text) }
    } catch {
        throw ExitError(code: 2, message: error.message)
    }
}

/// `scratchcard pool deal`: a kiosk without a display.
func poolDeal(_ options: PoolDealOptions) throws(ExitError) {
    let address = try poolAddress(options.pool)
    let deck = try poolDeck(options.deck)
    let key = try options.claimKey.map { path throws(ExitError) in try loadClaimKey(path) }
    let ledger: PoolLedger
    do {
        let store = try options.store.map { path throws(StoreError) in try KioskStore(path: path, access: .kiosk) }
            ?? KioskStore(copyOf: nil)
        let pool = PostgresPool(address: address, kioskID: options.kioskID)
        if let key {
            let issuer = ClaimMaker.issuer(key: key, kiosk: options.kioskID)
            store.claimIssuer = issuer
            pool.claimIssuer = issuer
            pool.claimKeyFingerprint = key.fingerprint
        }
        ledger = PoolLedger(store: store, pool: pool, log: { log($0) })
        try ledger.start()
    } catch {
        throw ExitError(code: 2, message: "\(error)")
    }
    var dealt = 0, stocked = 0, consolation = 0, waits = 0
    var previous: (deal: DealID, outcome: OutcomeRecord)?
    var latencies: [Double] = []
    let started = monotonicSeconds()
    do {
        // A card left on show by a killed run of this command, with a store of its own.
        if let pending = try ledger.pendingDeal() {
            previous = (pending.deal, revealed(pending.shownAt, cardID: pending.cardID, prize: pending.prize))
        }
        dealing: while dealt < options.count {
            let now = Date().timeIntervalSince1970
            let before = monotonicSeconds()
            switch try ledger.dealNext(from: deck, shownAt: now, ending: previous) {
            case let .dealt(id, card, _):
                latencies.append(monotonicSeconds() - before)
                previous = nil
                dealt += 1
                if card.stock == nil { consolation += 1 } else { stocked += 1 }
                try ledger.saveReveal(id, how: .threshold, afterMilliseconds: 0, fraction: 1)
                previous = (id, revealed(now, cardID: card.id, prize: card.recordedPrize))
                if options.paceMilliseconds > 0 { usleep(UInt32(options.paceMilliseconds) * 1000) }
            case .soldOut:
                previous = nil
                log("pool deal: nothing in the deck can be dealt any more, after \(dealt) cards")
                break dealing
            case .offline(let retryIn):
                previous = nil
                waits += 1
                usleep(UInt32(Swift.min(retryIn, 30) * 1e6))
            }
        }
        if let previous { try ledger.finish(previous.deal, outcome: previous.outcome) }
    } catch {
        throw ExitError(code: 1, message: "\(error)")
    }
    let elapsed = monotonicSeconds() - started
    let drained = ledger.drain(timeout: options.drainTimeout)
    waits += drained.waits
    if options.stats {
        let sorted = latencies.sorted()
        func at(_ q: Double) -> String {
            sorted.isEmpty ? "0" : String(format4: sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * q))] * 1000)
        }
        print("deal_ms_p50=\(at(0.5)) deal_ms_p99=\(at(0.99)) deals_per_s=\(Int((Double(dealt) / Swift.max(elapsed, 1e-9)).rounded()))")
    }
    print("dealt=\(dealt) stocked=\(stocked) consolation=\(consolation) offline_waits=\(waits)")
    if drained.waiting != 0 {
        throw ExitError(code: 1, message: "pool deal: \(drained.waiting) outcomes still wait for the pool at \(address) after \(Int(options.drainTimeout)) s"
                        + (options.store.map { "; they stay queued in \($0)" } ?? "; they are lost with this in-memory store"))
    }
}

/// A card revealed at once, as `pool deal` plays it.
private func revealed(_ shownAt: Double, cardID: String, prize: String) -> OutcomeRecord {
    OutcomeRecord(shownAt: shownAt, cardID: cardID, prize: prize, outcome: .revealed, how: .threshold,
                  fraction: 1, revealMilliseconds: 0, durationMilliseconds: 0)
}
