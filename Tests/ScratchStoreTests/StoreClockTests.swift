import Foundation
import Testing
import ScratchCore
import CardRules
@testable import ScratchStore

/// The times a store records stay in order when the wall clock jumps back
/// (KioskStore+Clock.swift): a deal shown "before" the last outcome is recorded at it.
@Suite struct StoreClockTests {
    func times(_ store: KioskStore) throws -> [Double] {
        let query = try store.connection.prepare(
            "SELECT d.shown_at, o.ended_at FROM deals d LEFT JOIN outcomes o ON o.deal = d.deal ORDER BY d.seq")
        var times: [Double] = []
        while try query.step() {
            times.append(query.real(0))
            if let ended = query.optionalReal(1) { times.append(ended) }
        }
        return times
    }

    @Test("A deal shown a day before the last one (the clock went back) is recorded at the latest time; across a reopen too")
    func clockBack() throws {
        let folder = try StoreFolder()
        let card = DeckCard(id: "sorry", prize: "/p/sorry.png")
        let now = Date().timeIntervalSince1970
        do {
            let store = try KioskStore(path: folder.store, access: .kiosk)
            // A deal "a year ahead" (the clock was wrong then), ended now.
            let first = try #require(try store.deal(card, shownAt: now + 365 * 86_400, ending: nil))
            _ = try #require(try store.deal(card, shownAt: now - 86_400, ending: (first, record(.revealed, card: "sorry"))))
        }
        let reopened = try KioskStore(path: folder.store, access: .kiosk)
        let pending = try #require(try reopened.pendingDeal())
        _ = try reopened.deal(card, shownAt: now, ending: (pending.deal, record(.abandoned, card: "sorry")))
        let recorded = try times(reopened)
        #expect(recorded.count == 5)
        #expect(zip(recorded, recorded.dropFirst()).allSatisfy { $0.0 <= $0.1 }, "\(recorded)")
        #expect(recorded.allSatisfy { $0 == now + 365 * 86_400 }, "all held at the year-ahead time: \(recorded)")
    }

    @Test("A clock that runs forward is recorded as it is")
    func clockForward() throws {
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let card = DeckCard(id: "sorry", prize: "/p/sorry.png")
        let first = try #require(try store.deal(card, shownAt: 1_000, ending: nil))
        _ = try store.deal(card, shownAt: 2_000_000_000, ending: (first, record(.quit, card: "sorry")))
        let recorded = try times(store)
        #expect(recorded.first == 1_000 && recorded.last == 2_000_000_000, "\(recorded)")
    }
}
