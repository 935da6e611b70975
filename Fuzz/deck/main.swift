// libFuzzer target: deck files (Deck.parse(bytes:path:)). Image paths resolve against
// the folder that scripts/fuzz.sh prepares (FUZZ_DECK_DIR, default /tmp/scratchcard-fuzz-deck)
// holding a.png, b.png and cover.png, so entries can be valid and reach the later checks.
import Foundation
import ScratchCore

let deckPath = (ProcessInfo.processInfo.environment["FUZZ_DECK_DIR"] ?? "/tmp/scratchcard-fuzz-deck") + "/deck.json"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeck(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? Data() : Data(bytes: data!, count: size)
    do {
        let deck = try Deck.parse(bytes: bytes, path: deckPath)
        precondition(!deck.cards.isEmpty && deck.cards.count <= Deck.maximumCards)
        precondition(deck.totalWeight > 0 && deck.totalWeight.isFinite)
        precondition(Set(deck.cards.map(\.id)).count == deck.cards.count, "duplicate ids")
        for card in deck.cards {
            precondition(card.prize != nil || card.text != nil, "a card with neither prize nor text")
            for words in [card.text?.title, card.text?.subtitle, card.coverText].compactMap({ $0 }) {
                precondition(CardText.problem(with: words) == nil, "text that fails its own check")
            }
            precondition(card.cover == nil || card.coverText == nil, "cover-text beside a cover image")
        }
        var rng = SplitMix64(seed: UInt64(size))
        for _ in 0..<4 { precondition(deck.draw(using: &rng).weight > 0, "drew a card of weight 0") }
    } catch {
        precondition(error.path == deckPath && !error.message.isEmpty)
    }
    return 0
}
