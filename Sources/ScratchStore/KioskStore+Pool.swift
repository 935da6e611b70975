import CardRules
import Foundation
import ScratchCore

/// The local store's part in a shared pool (`PoolLedger`): deals taken from the pool are
/// recorded here too (the card on show and its strokes stay local), and what the pool
/// must still be told waits in `pool_outbox`, in order, until it can be sent: outcomes,
/// deals made while it could not be reached (unlimited cards only), and deals to void.
///
/// Schema 2 adds:
///
///     pool_outbox(seq INTEGER PRIMARY KEY, deal, kind, card, prize, shown_at,
///                 outcome, how, fraction, reveal_ms, duration_ms)
///
/// and schema 5 an outcome's `picks` (KioskStore+Picks.swift).
extension KioskStore {
    /// The migration from schema 1 to 2 (`migrations[1]`).
    static let poolOutboxMigration = """
        CREATE TABLE pool_outbox(
            seq INTEGER PRIMARY KEY,
            deal TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('deal', 'outcome', 'void')),
            card TEXT,
            prize TEXT,
            shown_at REAL,
            outcome TEXT,
            how TEXT,
            fraction REAL,
            reveal_ms INTEGER,
            duration_ms INTEGER);
        """

    /// Records a deal the pool gave (`queued` false) or one made while it could not be
    /// reached (`queued`: the deal waits in the outbox to be sent), with the card on
    /// show's outcome when given, in one transaction. A claim it carries is the pool's
    /// (`pool`, the pool's password-free description): kept here as a copy this store
    /// never redeems (Claims+Store.swift).
    public func recordPoolDeal(_ id: DealID, card: DeckCard, shownAt: Double,
                               ending: (deal: DealID, outcome: OutcomeRecord)?, queued: Bool, pool: String) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            if let ending { _ = try queueOutcome(ending.deal, ending.outcome) }
            let shownAt = try orderedTime(shownAt)
            try connection.prepare("INSERT INTO deals(deal, card, prize, cover, shown_at) VALUES (?, ?, ?, ?, ?)")
                .bind(.text(id.text), .text(card.id), .text(card.recordedPrize), .optional(card.cover), .real(shownAt)).run()
            try recordClaim(id, card: card, pool: pool)
            if queued {
                try connection.prepare("INSERT INTO pool_outbox(deal, kind, card, prize, shown_at) VALUES (?, 'deal', ?, ?, ?)")
                    .bind(.text(id.text), .text(card.id), .text(card.recordedPrize), .real(shownAt)).run()
            }
        }
    }

    /// The deal's outcome written here, once, and queued for the pool in the same
    /// transaction: false when it had one already (nothing queued then).
    @discardableResult
    public func finishQueued(_ deal: DealID, outcome: OutcomeRecord) throws(StoreError) -> Bool {
        try connection.transaction { () throws(StoreError) -> Bool in try queueOutcome(deal, outcome) }
    }

    /// The outcome, a zone ticket's picks with it, written here and queued for the pool.
    private func queueOutcome(_ deal: DealID, _ outcome: OutcomeRecord) throws(StoreError) -> Bool {
        guard try writeOutcome(deal, outcome) else { return false }
        try connection.prepare("""
            INSERT INTO pool_outbox(deal, kind, outcome, how, fraction, reveal_ms, duration_ms, picks) VALUES (?, 'outcome', ?, ?, ?, ?, ?, ?)
            """).bind(.text(deal.text), .text(outcome.outcome.rawValue), .optional(outcome.how?.rawValue), .real(outcome.fraction),
                      .optional(outcome.revealMilliseconds), .integer(outcome.durationMilliseconds),
                      .optional(outcome.picks.map(ZonePick.json))).run()
        return true
    }

    /// A deal the pool may hold that this kiosk never showed: queued to be voided.
    public func queueVoid(_ deal: DealID) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            try connection.prepare("INSERT INTO pool_outbox(deal, kind) VALUES (?, 'void')").bind(.text(deal.text)).run()
        }
    }

    /// What waits for the pool, oldest first. An outcome's picks that cannot be read (a
    /// damaged value) are left out: the outcome goes without them.
    public func outbox(limit: Int = 100) throws(StoreError) -> [PoolOutboxEntry] {
        let query = try connection.prepare("""
            SELECT seq, deal, kind, card, prize, shown_at, outcome, how, fraction, reveal_ms, duration_ms, picks
            FROM pool_outbox ORDER BY seq LIMIT ?
            """)
        try query.bind(.integer(limit))
        var entries: [PoolOutboxEntry] = []
        while try query.step() {
            let deal = DealID(query.text(1))
            let kind: PoolOutboxEntry.Kind
            switch query.text(2) {
            case "deal":
                kind = .deal(cardID: query.text(3), prize: query.text(4), shownAt: query.real(5))
            case "outcome":
                guard let outcome = CardOutcome(rawValue: query.text(6)) else { continue }
                var record = OutcomeRecord(shownAt: 0, cardID: "", prize: "", outcome: outcome,
                                           how: query.optionalText(7).flatMap(RevealCause.init(rawValue:)),
                                           fraction: query.real(8), revealMilliseconds: query.optionalInteger(9),
                                           durationMilliseconds: query.integer(10))
                record.picks = storedPicks(query.optionalText(11)).picks
                kind = .outcome(record)
            default:
                kind = .void
            }
            entries.append(PoolOutboxEntry(sequence: query.integer(0), deal: deal, kind: kind))
        }
        return entries
    }

    /// An entry the pool has taken.
    public func removeFromOutbox(_ sequence: Int) throws(StoreError) {
        try connection.prepare("DELETE FROM pool_outbox WHERE seq = ?").bind(.integer(sequence)).run()
    }

    /// How many entries wait for the pool.
    public func outboxCount() throws(StoreError) -> Int {
        try connection.integer("SELECT count(*) FROM pool_outbox")
    }

    /// True when this store recorded the deal.
    public func knowsDeal(_ id: DealID) throws(StoreError) -> Bool {
        let query = try connection.prepare("SELECT 1 FROM deals WHERE deal = ?")
        try query.bind(.text(id.text))
        return try query.step()
    }
}

/// One thing the pool must still be told.
public struct PoolOutboxEntry: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// A deal of an unlimited card made while the pool could not be reached.
        case deal(cardID: String, prize: String, shownAt: Double)
        /// A deal's outcome (only its outcome, how, fraction, times and picks are meaningful).
        case outcome(OutcomeRecord)
        /// A deal that may be in the pool but was never shown.
        case void
    }

    public var sequence: Int
    public var deal: DealID
    public var kind: Kind
}

extension DeckCard {
    /// The prize a deal of this card records: its image, else a text card's title (as
    /// the kiosk records a text card without a pool), else its id.
    public var recordedPrize: String { prize ?? text?.title ?? id }

    /// The same card (text, sound, cover text, zones and all) with the pool's stock.
    func withStock(_ stock: Int?) -> DeckCard {
        DeckCard(id: id, prize: prize, cover: cover, weight: weight, sound: sound, celebrate: celebrate,
                 text: text, coverText: coverText, stock: stock, claim: claim, zoneCard: zoneCard)
    }
}
