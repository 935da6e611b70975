@testable import CardRules
import Foundation
import ScratchCore
import Testing

/// The events a store adds: the deal id on `ready` and `new-card`, `resumed`, `sold-out`;
/// and the stock-aware draw.
struct StoreEventTests {
    @Test("ready and new-card carry the deal; a resumed card says so; keys in a fixed order")
    func dealInEvents() throws {
        let deal = DealID("0123456789abcdef0123456789abcdef")
        let ready = CardEvent.ready(cardID: "bike", width: 8, height: 6, scale: 1, deal: deal, resumed: true).json
        #expect(ready == #"{"event":"ready","card":"bike","width":8,"height":6,"scale":1,"deal":"0123456789abcdef0123456789abcdef","resumed":true}"#)
        #expect(try parsed(ready)["resumed"] as? Bool == true)
        #expect(CardEvent.ready(cardID: "bike", width: 8, height: 6, scale: 1, deal: deal).json.hasSuffix(#""deal":"0123456789abcdef0123456789abcdef"}"#))
        #expect(CardEvent.newCard(cardID: "cup", deal: deal).json == #"{"event":"new-card","card":"cup","deal":"0123456789abcdef0123456789abcdef"}"#)
        #expect(CardEvent.newCard(cardID: "cup").json == #"{"event":"new-card","card":"cup"}"#)
        #expect(CardEvent.soldOut.json == #"{"event":"sold-out"}"#)
    }

    @Test("deal ids are 32 hex digits and do not repeat")
    func dealIDs() {
        let ids = (0..<10_000).map { _ in DealID.random().text }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test("a draw never picks a card with no stock left; by weight among the rest; nil when nothing is left")
    func drawWithStock() throws {
        let deck = try #require(Deck(cards: [DeckCard(id: "a", prize: "a", weight: 5, stock: 3),
                                             DeckCard(id: "b", prize: "b", weight: 1, stock: 0),
                                             DeckCard(id: "c", prize: "c", weight: 1)]))
        var rng = SystemRandomNumberGenerator()
        var counts: [String: Int] = [:]
        var dealt: [String: Int] = [:]
        for _ in 0..<2000 {
            let card = try #require(deck.draw(left: deck.left(dealt: dealt), using: &rng))
            counts[card.id, default: 0] += 1
            dealt[card.id, default: 0] += 1
        }
        #expect(counts["a"] == 3 && counts["b"] == nil && counts["c"] == 1997)
        let stockedOnly = try #require(Deck(cards: [DeckCard(id: "a", prize: "a", stock: 1)]))
        #expect(stockedOnly.draw(left: stockedOnly.left(dealt: ["a": 1]), using: &rng) == nil)
        #expect(stockedOnly.left(dealt: ["a": 5]) == ["a": 0])
    }

    @Test("a resumed session: scratching, or done without a fade when it had been revealed; progress not reported again")
    func resumedSession() {
        var touched = CardSession(resuming: "a", revealAt: 0.6, now: 100, shownSecondsAgo: 30, touched: true, fraction: 0.35, reveal: nil)
        #expect(touched.phase == .scratching && touched.shownAt == 70)
        #expect(touched.scratched(fraction: 0.36, now: 101).isEmpty)
        #expect(touched.scratched(fraction: 0.61, now: 102).map(\.name) == ["progress", "progress", "progress", "revealed"])
        let revealed = CardSession(resuming: "a", revealAt: 0.6, now: 100, shownSecondsAgo: 30, touched: true, fraction: 0.7,
                                   reveal: (.keyboard, 12, 0.4))
        #expect(revealed.phase == .done && revealed.isRevealed && !revealed.isAnimating)
        #expect(revealed.outcome(prize: "p", shownAtWallClock: 0, fraction: 0.7, now: 100, endedBy: true).outcome == .revealed)
        let fresh = CardSession(resuming: "a", revealAt: 0.6, now: 100, shownSecondsAgo: -5, touched: false, fraction: 0, reveal: nil)
        #expect(fresh.phase == .fresh && fresh.shownAt == 100)
    }
}
