@preconcurrency import Glibc
import Dealing
import CardRules
import Foundation
import ScratchCore
import ScratchStore

/// Options of `scratchcard stock`.
struct StockOptions: Equatable {
    var store: String
    var deck: String?
    var json = false
    /// A shared pool to report instead of the store (PoolCommands.swift).
    var pool: String?
}

/// Options of `scratchcard simulate`.
struct SimulateOptions: Equatable {
    var deck = ""
    var count = 0
    /// The store whose stock the simulation starts from (copied; never written).
    var store: String?
    var seed: UInt64?
    var json = false
    /// Where to write the simulated store, for a look inside (a new file).
    var out: String?
}

let stockUsage = """
    usage: scratchcard stock [--store PATH] [--deck PATH] [--json]
           scratchcard stock --pool CONNINFO [--deck PATH] [--json]

    Per card: its stock (from the deck, "unlimited" without one), how many were dealt,
    how many are left, and how the dealt cards ended (revealed, abandoned, quit). Reads
    the kiosk's store (default $XDG_STATE_HOME/scratchcard/kiosk.db) while it runs; needs
    no display. --json: one JSON object per card per line, with the keys card, stock,
    dealt, left, revealed, abandoned, quit (stock and left null when unlimited).
    --pool CONNINFO: the shared pool's instead (its stock; the password from PGPASSFILE
    or ~/.pgpass), then one line per kiosk: dealt, revealed, abandoned, quit, void (taken
    and never shown), last seen (--json: keys kiosk, dealt, ..., last_seen).
    """

let simulateUsage = """
    usage: scratchcard simulate --deck PATH --count N [--store PATH] [--seed S] [--json]
                                [--out PATH]

    Deals N cards from a copy of the stock (the store's, default the kiosk's when it
    exists; the real store is never touched) and prints how many of each card were dealt:
    the odds an operator will see, before the promotion starts. --seed S (a whole number)
    makes the draws repeatable; --json prints one JSON object per card per line; --out
    writes the simulated store to a new file. Needs no display.
    """

func parseStock(_ tokens: ArraySlice<String>, environment: [String: String]) throws(UsageError) -> Command {
    var tokens = tokens
    var options = StockOptions(store: KioskStore.defaultPath(environment: environment))
    while let token = tokens.popFirst() {
        func value() throws(UsageError) -> String {
            guard let next = tokens.popFirst() else { throw UsageError(message: "\(token) needs a value") }
            return next
        }
        switch token {
        case "-h", "--help": return .help(stockUsage)
        case "--store": options.store = try nonEmpty(value(), token)
        case "--deck": options.deck = try nonEmpty(value(), token)
        case "--json": options.json = true
        case "--pool": options.pool = try nonEmpty(value(), token)
        default: throw UsageError(message: "stock: unknown option '\(token.prefix(40))'")
        }
    }
    return .stock(options)
}

func parseSimulate(_ tokens: ArraySlice<String>, environment: [String: String]) throws(UsageError) -> Command {
    var tokens = tokens
    var options = SimulateOptions()
    var deck: String?, count: Int?, store: String?
    while let token = tokens.popFirst() {
        func value() throws(UsageError) -> String {
            guard let next = tokens.popFirst() else { throw UsageError(message: "\(token) needs a value") }
            return next
        }
        switch token {
        case "-h", "--help": return .help(simulateUsage)
        case "--deck": deck = try nonEmpty(value(), token)
        case "--count": count = try wholeNumber(value(), token, in: 1...10_000_000)
        case "--store": store = try nonEmpty(value(), token)
        case "--seed":
            let text = try value()
            guard text.count <= 20, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let seed = UInt64(text) else {
                throw UsageError(message: "--seed takes a whole number from 0 to \(UInt64.max), not '\(text.prefix(40))'")
            }
            options.seed = seed
        case "--json": options.json = true
        case "--out": options.out = try nonEmpty(value(), token)
        default: throw UsageError(message: "simulate: unknown option '\(token.prefix(40))'")
        }
    }
    guard let deck else { throw UsageError(message: "simulate needs --deck PATH") }
    guard let count else { throw UsageError(message: "simulate needs --count N") }
    options.deck = deck
    options.count = count
    if let store {
        options.store = store
    } else {
        let path = KioskStore.defaultPath(environment: environment)
        options.store = FileManager.default.fileExists(atPath: path) ? path : nil
    }
    return .simulate(options)
}

func loadDeck(_ path: String) throws(ExitError) -> Deck {
    do { return try LoadedDeck.load(path: path).deck } catch { throw ExitError(code: 2, message: "\(error)") }
}

/// `scratchcard stock`: the store's counts per card beside the deck's stock.
func stockCommand(_ options: StockOptions) throws(ExitError) {
    let deck = try options.deck.map { path throws(ExitError) in try loadDeck(path) }
    if let pool = options.pool { return try poolStock(address: poolAddress(pool), deck: deck, json: options.json) }
    do {
        let store = try KioskStore(path: options.store, access: .read)
        for line in try store.stockReport(deck: deck) { print(options.json ? line.json : line.text) }
    } catch {
        throw ExitError(code: 2, message: "\(error)")
    }
}

/// `scratchcard simulate`: deals from a copy of the stock in memory through the same
/// store code a kiosk uses, each card revealed at once.
func simulateCommand(_ options: SimulateOptions) throws(ExitError) {
    let deck = try loadDeck(options.deck)
    do {
        let store = try KioskStore(copyOf: options.store)
        var dealtBefore = try store.dealtCounts()
        var dealt: [String: Int] = [:]
        var seeded = SplitMix64(seed: options.seed ?? 0)
        var system = SystemRandomNumberGenerator()
        var previous: DealID?
        var soldOutAfter: Int?
        for n in 0..<options.count {
            let left = deck.left(dealt: dealtBefore)
            let drawn = options.seed == nil ? deck.draw(left: left, using: &system) : deck.draw(left: left, using: &seeded)
            guard let card = drawn else { soldOutAfter = n; break }
            let ending = previous.map { ($0, OutcomeRecord(shownAt: 0, cardID: "", prize: "", outcome: .revealed, how: .threshold,
                                                           fraction: 1, revealMilliseconds: 0, durationMilliseconds: 0)) }
            guard let deal = try store.deal(card, shownAt: Date().timeIntervalSince1970, ending: ending) else {
                soldOutAfter = n
                break
            }
            previous = deal
            dealtBefore[card.id, default: 0] += 1
            dealt[card.id, default: 0] += 1
        }
        if let previous {
            try store.finish(previous, outcome: OutcomeRecord(shownAt: 0, cardID: "", prize: "", outcome: .revealed, how: .threshold,
                                                              fraction: 1, revealMilliseconds: 0, durationMilliseconds: 0))
        }
        let report = try store.stockReport(deck: deck)
        for line in report where deck.cards.contains(where: { $0.id == line.cardID }) {
            let n = dealt[line.cardID] ?? 0
            if options.json {
                print("{\"card\":\(JSONText.quoted(line.cardID)),\"dealt\":\(n),\"stock\":\(line.stock.map(String.init) ?? "null"),"
                      + "\"left\":\(line.left.map(String.init) ?? "null")}")
            } else {
                print("\(line.cardID): dealt \(n) (stock \(line.stock.map(String.init) ?? "unlimited"), left \(line.left.map(String.init) ?? "unlimited"))")
            }
        }
        let total = dealt.values.reduce(0, +)
        if !options.json {
            print("dealt=\(total)" + (soldOutAfter.map { " sold_out_after=\($0)" } ?? ""))
        }
        if let out = options.out { try store.write(to: out) }
    } catch {
        throw ExitError(code: 2, message: "\(error)")
    }
}

/// `scratchcard log-summary`: an outcome log, or a store (told apart by the file's first
/// bytes); `eachTicket`: each zone ticket's picks listed too.
func logSummary(_ path: String, eachTicket: Bool) throws(ExitError) {
    do {
        if KioskStore.isStoreFile(path) {
            let store = try KioskStore(path: path, access: .read)
            let (records, unreadable) = try store.readOutcomes()
            print(OutcomeLog.summary(of: records, damagedLines: 0, unreadablePicks: unreadable, eachTicket: eachTicket), terminator: "")
        } else {
            let (records, damaged) = try OutcomeLog.read(path: path)
            print(OutcomeLog.summary(of: records, damagedLines: damaged, eachTicket: eachTicket), terminator: "")
        }
    } catch {
        throw ExitError(code: 2, message: "\(error)")
    }
}
