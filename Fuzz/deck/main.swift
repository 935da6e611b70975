// libFuzzer target: deck files (Deck.parse(bytes:path:)), and every deck accepted written
// back (Deck.json) and read again as the same deck. Image paths resolve against
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
            precondition(card.prize != nil || card.text != nil || card.zoneCard != nil, "a card with neither prize nor text nor zones")
            if let zones = card.zoneCard {
                // What the window relies on: zones inside the card, apart, and enough
                // symbols and decoys for any order of picks.
                precondition(!zones.zones.isEmpty && zones.zones.count <= ZoneCard.maximumZones)
                precondition(card.prize == nil && card.cover == nil && card.text == nil, "a zone card with a picture of its own")
                for (i, z) in zones.zones.enumerated() {
                    precondition(z.x >= 0 && z.y >= 0 && z.width > 0 && z.height > 0, "a zone with no area")
                    precondition(z.x + z.width <= ZoneCard.cardPoints.width && z.y + z.height <= ZoneCard.cardPoints.height, "a zone outside the card")
                    precondition(!zones.zones[..<i].contains { ZoneCard.overlap($0, z) }, "overlapping zones")
                }
                let picks = zones.pick ?? zones.zones.count
                precondition(picks >= 1 && picks <= zones.zones.count, "pick out of range")
                precondition(zones.symbols.count >= picks, "too few symbols")
                precondition(zones.pick == nil || zones.decoys.count >= zones.zones.count - picks, "too few decoys")
                for case .text(let words, _) in zones.symbols + zones.decoys {
                    precondition(CardText.problem(with: words) == nil, "a symbol's text that fails its own check")
                }
            }
            for words in [card.text?.title, card.text?.subtitle, card.coverText].compactMap({ $0 }) {
                precondition(CardText.problem(with: words) == nil, "text that fails its own check")
            }
            precondition(card.cover == nil || card.coverText == nil, "cover-text beside a cover image")
        }
        var rng = SplitMix64(seed: UInt64(size))
        for _ in 0..<4 { precondition(deck.draw(using: &rng).weight > 0, "drew a card of weight 0") }
        // What `make` relies on: the deck writes itself back as a deck that reads the same
        // (every key kept, numbers and words exact), with its files named as they are and,
        // through the naming hook, by a name relative to the deck's folder.
        let written = deck.json()
        do {
            let again = try Deck.parse(bytes: Data(written.utf8), path: deckPath)
            precondition(again == deck, "the deck written back reads differently:\n\(written)")
        } catch {
            preconditionFailure("the deck written back is refused: \(error)\n\(written)")
        }
        let folder = deckPath.dropLast("deck.json".count)
        let relative = deck.json { (file, _) throws(Never) in file.hasPrefix(folder) ? String(file.dropFirst(folder.count)) : file }
        precondition((try? Deck.parse(bytes: Data(relative.utf8), path: deckPath)) == deck, "relative names read differently:\n\(relative)")
    } catch {
        precondition(error.path == deckPath && !error.message.isEmpty)
    }
    return 0
}
