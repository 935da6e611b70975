@preconcurrency import Glibc
import CardRules
import Foundation
import ScratchCore
import Threads

/// A kiosk's ledger when many kiosks share one prize pool (`--pool`): the stock and every
/// deal and outcome live in PostgreSQL (`PostgresPool`), the card on show and its strokes
/// in the kiosk's own store (`KioskStore`), which also queues what the pool must still be
/// told while it cannot be reached.
///
/// While the pool is out of reach:
/// - the card on show carries on (strokes, reveals and outcomes are local writes);
/// - outcomes queue in the local store's outbox and are sent in order when it is back,
///   each written once by deal id (a retry after a lost reply changes nothing);
/// - a new card is dealt only from the deck's unlimited entries (the consolation cards),
///   never a stocked prize it has not taken from the pool; with none, `dealNext` answers
///   `.offline` and the kiosk shows a "back in a moment" card until the pool answers;
/// - the pool is tried again with backoff (0.5 s doubling to 30 s, with jitter).
///
/// A deal whose reply was lost, or one the pool gave just before the kiosk died, may sit
/// in the pool unshown: it is voided (and a prize it took goes back into the stock) when
/// the pool is reached again. The kiosk id is held for the session (an advisory lock),
/// so no other running kiosk voids this one's deals.
///
/// Thread-safe: the kiosk deals on its card maker's worker (network calls there, never on
/// the window's loop), and writes outcomes and strokes from the loop (local writes only;
/// the outbox is sent on a queue of its own).
///
///     let ledger = PoolLedger(store: store, pool: PostgresPool(address: address, kioskID: id), log: log)
///     try ledger.start()
///     switch try ledger.dealNext(from: deck, shownAt: now, ending: nil) { ... }
public final class PoolLedger: PrizeLedger, CardOnShowStore, @unchecked Sendable {
    /// The local store, reached only through `local` (one thread at a time).
    private let local: LocalStoreAccess
    private let storePath: String
    public let pool: PostgresPool
    /// The pool's connection and everything below: held across network calls.
    private let poolLock = Lock()
    private let log: @Sendable (String) -> Void
    private let sender = DispatchQueue(label: "scratchcard.pool-outbox")
    /// Held for a moment only, never across a network call: the flags below.
    private let stateLock = Lock()
    private var sendScheduled = false
    private var onlineFlag = false
    /// Deals taken from the pool and not recorded here yet (a card being made, a spare):
    /// catching up after a reconnection must not void them.
    private var unrecorded: Set<DealID> = []

    // Under poolLock.
    private var online = false
    private var retryAt = 0.0
    private var backoff = PoolLedger.firstBackoff
    private var table: [String: (stock: Int?, dealt: Int)] = [:]
    private var tableAt = -Double.infinity
    private var lastProblem: String?

    static let firstBackoff = 0.5
    static let longestBackoff = 30.0
    /// How old the pool's stock table may be before a deal reads it again (it is read
    /// again at once when a deal is refused).
    static let tableLifetime = 10.0

    /// A ledger over `store`, which nothing else touches (a lock orders its users).
    public convenience init(store: KioskStore, pool: PostgresPool, log: @escaping @Sendable (String) -> Void) {
        self.init(local: LockedStore(store), storePath: store.path, pool: pool, log: log)
    }

    /// A ledger whose local store is reached through `local` (the kiosk's store writer,
    /// whose queue it shares with the window's own writes).
    public init(local: LocalStoreAccess, storePath: String, pool: PostgresPool, log: @escaping @Sendable (String) -> Void) {
        self.local = local
        self.storePath = storePath
        self.pool = pool
        self.log = log
    }

    /// What `dealNext` did.
    public enum Dealt: Equatable, Sendable {
        /// A deal, recorded: `offline` when made from an unlimited card while the pool
        /// could not be reached (queued for it).
        case dealt(DealID, DeckCard, offline: Bool)
        /// The pool answered: nothing in the deck can be dealt any more.
        case soldOut
        /// The pool cannot be reached and the deck has no unlimited card: try again in
        /// `retryIn` seconds.
        case offline(retryIn: Double)
    }

    /// True while the last call to the pool succeeded.
    public var isOnline: Bool { stateLock.holding { onlineFlag } }

    /// At start: the local store's claims from before schema 4 are settled as the pool's
    /// (`KioskStore.settleClaims`); then connects (a schema that is missing or newer, or a
    /// kiosk id in use, is an error to stop for); a pool out of reach is logged and ridden
    /// out offline. When connected, voids what this kiosk left unshown and sends what its
    /// store queued.
    public func start() throws(StoreError) {
        let description = pool.address.description
        try local.run { store throws(StoreError) in _ = try store.settleClaims(pool: description) }
        try poolLock.holding { () throws(StoreError) in
            do throws(PoolError) {
                try pool.connect(holdKioskID: true)
                try catchUp()
                markOnline()
            } catch where error.isUnreachable {
                markOffline(error)
            } catch {
                throw StoreError(path: "--pool", kind: .other, message: error.message)
            }
        }
    }

    // MARK: dealing

    /// A card taken from the pool (or, offline, chosen among the unlimited ones) and not
    /// recorded in the local store yet: the kiosk's card maker takes it on its worker,
    /// the window's loop records it (`record`) when it shows the card.
    public struct Taken: Equatable, Sendable {
        public let deal: DealID
        /// As the pool sees it: `stock` non-nil when it was taken from a stocked card.
        public let card: DeckCard
        /// Chosen while the pool could not be reached: sent to it later.
        public let offline: Bool
    }

    /// What `take` did.
    public enum Take: Equatable, Sendable {
        case taken(Taken)
        /// The pool answered: nothing in the deck can be dealt any more.
        case soldOut
        /// The pool cannot be reached and the deck has no unlimited card: try again in
        /// `retryIn` seconds.
        case offline(retryIn: Double)
    }

    /// Deals the next card and records it: `take`, then `record`. `ending`, the card on
    /// show's outcome, is written (and queued for the pool) first.
    public func dealNext(from deck: Deck, shownAt: Double,
                         ending: (deal: DealID, outcome: OutcomeRecord)?) throws(StoreError) -> Dealt {
        if let ending { try finishLocally(ending.deal, ending.outcome) }
        switch try take(from: deck, shownAt: shownAt) {
        case .taken(let taken):
            try record(taken, shownAt: shownAt, ending: nil)
            return .dealt(taken.deal, taken.card, offline: taken.offline)
        case .soldOut: return .soldOut
        case .offline(let retryIn): return .offline(retryIn: retryIn)
        }
    }

    /// Takes the next card: drawn by weight among the deck's cards the pool still has
    /// (the pool's stock wins over the deck's) and taken from the pool in one statement;
    /// or, while the pool cannot be reached, drawn among the unlimited cards only. What
    /// waits in the outbox is sent first. The network calls happen here, on the caller's
    /// thread (the card maker's worker), never on the window's loop.
    public func take(from deck: Deck, shownAt: Double) throws(StoreError) -> Take {
        try poolLock.holding { () throws(StoreError) -> Take in
            if tryPool() {
                do {
                    // What waits goes first (the card on show's outcome): in order.
                    try sendOutbox()
                    for attempt in 0..<8 {
                        if attempt > 0 || monotonicNow() - tableAt > Self.tableLifetime { try readTable() }
                        guard let card = Self.effective(deck, table).draw(left: Self.left(table)) else {
                            if attempt > 0 || monotonicNow() - tableAt < 0.5 { return .soldOut }
                            continue
                        }
                        let id = DealID.random()
                        stateLock.holding { _ = unrecorded.insert(id) }
                        let taken: Bool
                        do {
                            taken = try pool.deal(id, card: card, shownAt: shownAt)
                        } catch let error as PoolError where error.isUnreachable {
                            // The reply may be lost after the deal committed: void it later.
                            stateLock.holding { _ = unrecorded.remove(id) }
                            try local.run { store throws(StoreError) in try store.queueVoid(id) }
                            throw error
                        }
                        if taken {
                            if let entry = table[card.id], entry.stock != nil { table[card.id] = (entry.stock, entry.dealt + 1) }
                            return .taken(Taken(deal: id, card: card, offline: false))
                        }
                        stateLock.holding { _ = unrecorded.remove(id) }
                    }
                    return .soldOut
                } catch let error as PoolError {
                    markOffline(error)
                } catch let error as StoreError {
                    throw error
                } catch {
                    throw StoreError(path: storePath, kind: .other, message: "\(error)")
                }
            }
            let consolation = deck.cards.filter { $0.stock == nil && $0.weight > 0 && table[$0.id]?.stock == nil }
            guard let cards = Deck(cards: consolation) else {
                return .offline(retryIn: Swift.max(0.05, retryAt - monotonicNow()))
            }
            return .taken(Taken(deal: DealID.random(), card: cards.draw(), offline: true))
        }
    }

    /// Records a taken card in the local store (the card on show from now on), with the
    /// previous card's outcome when given, in one local transaction; an offline one is
    /// queued for the pool. Local writes only: the window's loop calls this.
    public func record(_ taken: Taken, shownAt: Double, ending: (deal: DealID, outcome: OutcomeRecord)?) throws(StoreError) {
        try local.run { store throws(StoreError) in
            try store.recordPoolDeal(taken.deal, card: taken.card, shownAt: shownAt, ending: ending, queued: taken.offline,
                                     pool: pool.address.description)
        }
        stateLock.holding { _ = unrecorded.remove(taken.deal) }
        scheduleSend()
    }

    /// A taken card that will not be shown: the pool's deal is voided (later, in order).
    public func release(_ taken: Taken) {
        guard !taken.offline else { return }
        do { try local.run { store throws(StoreError) in try store.queueVoid(taken.deal) } } catch {
            log("cannot queue the void of deal \(taken.deal): \(error); it is voided at the next start")
        }
        stateLock.holding { _ = unrecorded.remove(taken.deal) }
        scheduleSend()
    }

    /// The deck as the pool sees it: each card's stock the pool's where it lists the card.
    static func effective(_ deck: Deck, _ table: [String: (stock: Int?, dealt: Int)]) -> Deck {
        let cards = deck.cards.map { card in
            guard let entry = table[card.id] else {
                // Stocked in the deck, unknown to the pool: none to give.
                return card.stock == nil ? card : card.withStock(0)
            }
            return card.withStock(entry.stock)
        }
        return Deck(cards: cards) ?? deck
    }

    static func left(_ table: [String: (stock: Int?, dealt: Int)]) -> [String: Int] {
        var left: [String: Int] = [:]
        for (card, entry) in table { if let stock = entry.stock { left[card] = Swift.max(0, stock - entry.dealt) } }
        return left
    }

    private func readTable() throws(PoolError) {
        table = try pool.stockTable()
        tableAt = monotonicNow()
    }

    // MARK: the pool's state

    /// Under poolLock: true when the pool may be asked now (connected, or the backoff
    /// is over and the connection and catching up succeed).
    private func tryPool() -> Bool {
        if online && pool.isConnected { return true }
        guard monotonicNow() >= retryAt else { return false }
        do throws(PoolError) {
            try pool.connect(holdKioskID: true)
            try catchUp()
            markOnline()
            return true
        } catch {
            markOffline(error)
            return false
        }
    }

    /// Under poolLock, connected: voids this kiosk's deals the pool holds open that this
    /// store never recorded, then sends the outbox.
    private func catchUp() throws(PoolError) {
        for id in try pool.openDeals() {
            let known: Bool
            do { known = try local.run { store throws(StoreError) -> Bool in try store.knowsDeal(id) } } catch {
                throw PoolError(.statement, "\(error)")
            }
            if !known && !stateLock.holding({ unrecorded.contains(id) }) { try pool.voidDeal(id) }
        }
        try sendOutbox()
        try readTable()
    }

    /// Under poolLock, connected: the outbox, in order, each entry removed once the pool
    /// has it. A refused entry stays (and stops the sending) so that nothing is lost.
    private func sendOutbox() throws(PoolError) {
        while true {
            let entries: [PoolOutboxEntry]
            do { entries = try local.run { store throws(StoreError) -> [PoolOutboxEntry] in try store.outbox() } } catch {
                throw PoolError(.statement, "\(error)")
            }
            if entries.isEmpty { return }
            for entry in entries {
                switch entry.kind {
                case let .deal(cardID, prize, shownAt):
                    let claim: String?
                    do { claim = try local.run { store throws(StoreError) -> String? in try store.claimCode(forDeal: entry.deal) } } catch {
                        throw PoolError(.statement, "\(error)")
                    }
                    try pool.sendOfflineDeal(entry.deal, cardID: cardID, prize: prize, shownAt: shownAt, claim: claim)
                case .outcome(let outcome):
                    try pool.sendOutcome(entry.deal, outcome)
                case .void:
                    try pool.voidDeal(entry.deal)
                }
                do { try local.run { store throws(StoreError) in try store.removeFromOutbox(entry.sequence) } } catch {
                    throw PoolError(.statement, "\(error)")
                }
            }
        }
    }

    private func markOnline() {
        if !online, lastProblem != nil { log("the pool at \(pool.address) answers again") }
        online = true
        stateLock.holding { onlineFlag = true }
        lastProblem = nil
        backoff = Self.firstBackoff
        retryAt = 0
    }

    private func markOffline(_ error: PoolError) {
        pool.disconnect()
        if online || lastProblem != error.message {
            log(error.isUnreachable ? "\(error.message); carrying on offline (consolation cards only), retrying" : "\(error.message); retrying")
        }
        online = false
        stateLock.holding { onlineFlag = false }
        lastProblem = error.message
        retryAt = monotonicNow() + backoff * Double.random(in: 1...1.25)
        backoff = Swift.min(backoff * 2, Self.longestBackoff)
    }

    /// Sends the outbox on the sender's queue, after `delay` s and again after each
    /// backoff until it is empty. Takes only `stateLock`: the window's loop calls it
    /// (through `finish`) and must never wait for a network call another thread makes.
    private func scheduleSend(after delay: Double = 0) {
        let first = stateLock.holding { () -> Bool in
            if sendScheduled { return false }
            sendScheduled = true
            return true
        }
        guard first else { return }
        sender.asyncAfter(deadline: .now() + delay) { [weak self] in self?.sendNow() }
    }

    private func sendNow() {
        stateLock.holding { sendScheduled = false }
        let retryIn = poolLock.holding { () -> Double? in
            if tryPool() {
                do throws(PoolError) { try sendOutbox(); return nil } catch { markOffline(error) }
            }
            return Swift.max(0.05, retryAt - monotonicNow())
        }
        let waiting = (try? local.run { store throws(StoreError) -> Int in try store.outboxCount() }) ?? 0
        if let retryIn, waiting > 0 { scheduleSend(after: retryIn) }
    }

    /// Sends what waits, retrying with backoff, for at most `timeout` seconds; returns
    /// how many entries still wait and how many times it had to wait for the pool.
    public func drain(timeout: Double) -> (waiting: Int, waits: Int) {
        let deadline = monotonicNow() + timeout
        var waits = 0
        while true {
            let pause = poolLock.holding { () -> Double? in
                if tryPool() {
                    do throws(PoolError) { try sendOutbox(); return nil } catch { markOffline(error) }
                }
                return Swift.max(0.01, retryAt - monotonicNow())
            }
            let waiting = (try? local.run { store throws(StoreError) -> Int in try store.outboxCount() }) ?? -1
            guard let pause, waiting != 0, monotonicNow() + pause < deadline else { return (waiting, waits) }
            waits += 1
            usleep(UInt32(pause * 1e6))
        }
    }

    // MARK: PrizeLedger

    /// Per card, as the pool last said: what was dealt; while the pool cannot be reached a
    /// stocked card counts as all dealt (none is dealt offline).
    public func dealtCounts() throws(StoreError) -> [String: Int] {
        poolLock.holding {
            var counts: [String: Int] = [:]
            for (card, entry) in table {
                guard let stock = entry.stock else { continue }
                counts[card] = online ? entry.dealt : Swift.max(stock, entry.dealt)
            }
            return counts
        }
    }

    /// Deals `card` through the pool (or, while it cannot be reached, locally when the card
    /// is unlimited); nil when the pool has none left or it is stocked and out of reach.
    public func deal(_ card: DeckCard, shownAt: Double, ending: (deal: DealID, outcome: OutcomeRecord)?) throws(StoreError) -> DealID? {
        guard let deck = Deck(cards: [card]) else { return nil }
        if case .dealt(let id, _, _) = try dealNext(from: deck, shownAt: shownAt, ending: ending) { return id }
        return nil
    }

    /// Written here at once and queued for the pool (sent on the sender's queue).
    @discardableResult
    public func finish(_ deal: DealID, outcome: OutcomeRecord) throws(StoreError) -> Bool {
        let written = try finishLocally(deal, outcome)
        if written { scheduleSend() }
        return written
    }

    @discardableResult
    private func finishLocally(_ deal: DealID, _ outcome: OutcomeRecord) throws(StoreError) -> Bool {
        try local.run { store throws(StoreError) -> Bool in try store.finishQueued(deal, outcome: outcome) }
    }

    /// The pool's report (asked now).
    public func stockReport(deck: Deck?) throws(StoreError) -> [StockLine] {
        try poolLock.holding { () throws(StoreError) -> [StockLine] in
            do throws(PoolError) { return try pool.stockReport(deck: deck) } catch {
                throw StoreError(path: "--pool", kind: .other, message: error.message)
            }
        }
    }

    // MARK: CardOnShowStore (local)

    /// The local store's path.
    public var path: String { storePath }

    public func pendingDeals() throws(StoreError) -> [DealID] {
        try local.run { store throws(StoreError) -> [DealID] in try store.pendingDeals() }
    }

    public func pendingDeal() throws(StoreError) -> PendingDeal? {
        try local.run { store throws(StoreError) -> PendingDeal? in try store.pendingDeal() }
    }

    public func saveStrokes(_ deal: DealID, lines: String, lastTouch: Double) throws(StoreError) {
        try local.run { store throws(StoreError) in try store.saveStrokes(deal, lines: lines, lastTouch: lastTouch) }
    }

    public func saveReveal(_ deal: DealID, how: RevealCause, afterMilliseconds: Int, fraction: Double) throws(StoreError) {
        try local.run { store throws(StoreError) in
            try store.saveReveal(deal, how: how, afterMilliseconds: afterMilliseconds, fraction: fraction)
        }
    }
}

/// The core's pthread lock (ScratchCore's Threads.swift: not Foundation's NSLock, whose
/// one use links all of swift-corelibs-foundation into the static binary), as a mutex
/// with a `holding` for bodies with typed errors.
typealias Lock = Condition

extension Condition {
    func holding<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// How a `PoolLedger` reaches its local store: `run` calls `body` with the store, one
/// caller at a time, and returns its answer. A SQLite connection must never be used by
/// two threads at once: whoever else writes the store must go through the same door.
public protocol LocalStoreAccess: AnyObject, Sendable {
    func run<T>(_ body: (KioskStore) throws(StoreError) -> T) throws(StoreError) -> T
}

/// A store behind a lock: `pool deal` and the tests, where nothing else writes it.
public final class LockedStore: LocalStoreAccess, @unchecked Sendable {
    private let store: KioskStore
    private let lock = Lock()
    public init(_ store: KioskStore) { self.store = store }
    public func run<T>(_ body: (KioskStore) throws(StoreError) -> T) throws(StoreError) -> T {
        try lock.holding { () throws(StoreError) -> T in try body(store) }
    }
}
