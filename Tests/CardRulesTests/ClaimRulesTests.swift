@testable import CardRules
import Foundation
import Testing

/// The rules' part of claims: a deck card's "claim", the code in the revealed event and
/// the outcome log.
@Suite struct ClaimRulesTests {
    static func deck(_ json: String) throws -> Deck {
        let folder = NSTemporaryDirectory() + "claimrules-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data().write(to: URL(fileURLWithPath: folder + "/bike.png"))
        return try Deck.parse(bytes: Data(json.utf8), path: folder + "/deck.json")
    }

    @Test("\"claim\": true marks a claim card; absent is false; anything but a boolean is refused naming the card")
    func deckClaim() throws {
        let deck = try Self.deck(#"{"cards": [{"id": "bike", "prize": "bike.png", "claim": true}, {"id": "tea", "text": "Tea", "claim": false}, {"id": "x", "text": "X"}]}"#)
        #expect(deck.cards.map(\.claim) == [true, false, false])
        #expect { try Self.deck(#"{"cards": [{"id": "bike", "prize": "bike.png", "claim": "yes"}]}"#) } throws: {
            "\($0)".contains(#"cards[0] ("bike"): claim must be true or false"#)
        }
    }

    @Test("the revealed event carries the claim when given, no other event does; the outcome log line too")
    func eventAndLog() {
        let revealed = CardEvent.revealed(cardID: "bike", how: .threshold, fraction: 0.6, milliseconds: 10)
        #expect(revealed.json(claim: "K7Q2M-0TXH4-9CVBD-W3R8P-6GJZE").hasSuffix(#","claim":"K7Q2M-0TXH4-9CVBD-W3R8P-6GJZE"}"#))
        #expect(revealed.json == revealed.json(claim: nil) && !revealed.json.contains("claim"))
        #expect(!CardEvent.quit.json(claim: "K7Q2M").contains("claim"))
        var record = OutcomeRecord(shownAt: 0, cardID: "bike", prize: "bike.png", outcome: .revealed, how: .threshold,
                                   fraction: 1, revealMilliseconds: 1, durationMilliseconds: 2)
        #expect(!record.json.contains("claim"))
        record.claim = "K7Q2M-0TXH4-9CVBD-W3R8P-6GJZE"
        #expect(record.json.hasSuffix(#","claim":"K7Q2M-0TXH4-9CVBD-W3R8P-6GJZE"}"#))
    }
}
