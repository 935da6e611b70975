@preconcurrency import Glibc
import Foundation
import Synchronization
import ScratchCore
import ScratchImage
import ScratchStore
import CardRules

/// A deck as loaded, with where its cards' images and sounds are read from (a card
/// file's entries, else the disk): the two belong together, and SIGHUP replaces them
/// together. `number` tells the loads apart (0 at start, one more at each reload), so
/// that a card drawn from an older one is known and not shown (Ledger.show).
struct DeckEdition: Sendable {
    let deck: Deck
    let source: CardSource
    let number: Int
}

/// What the dealer draws from when a store keeps the stock: the deck and its source (an
/// edition, replaced when SIGHUP reloads it) and how many of each card were dealt, shared
/// between the loop (which counts each deal it commits and reloads the deck) and the card
/// maker's worker (which draws). A draw takes the card and the edition it came from under
/// one lock: a card is never drawn from one deck and read from another's file.
final class StockBook: Sendable {
    private let state: Mutex<(edition: DeckEdition, dealt: [String: Int])>

    init(deck: Deck, source: CardSource, dealt: [String: Int]) {
        state = Mutex((DeckEdition(deck: deck, source: source, number: 0), dealt))
    }

    var deck: Deck { state.withLock { $0.edition.deck } }

    /// The deck and source cards are drawn from now.
    var edition: DeckEdition { state.withLock { $0.edition } }

    /// A card by weight among those with stock left (nil when nothing can be dealt),
    /// and the edition it was drawn from.
    func draw() -> (card: DeckCard?, edition: DeckEdition) {
        state.withLock { ($0.edition.deck.draw(left: $0.edition.deck.left(dealt: $0.dealt)), $0.edition) }
    }

    /// True when some card can still be dealt.
    var canDeal: Bool {
        state.withLock { book in
            let left = book.edition.deck.left(dealt: book.dealt)
            return book.edition.deck.cards.contains { $0.weight > 0 && ($0.stock == nil || (left[$0.id] ?? 0) > 0) }
        }
    }

    func counted(_ cardID: String) { state.withLock { $0.dealt[cardID, default: 0] += 1 } }

    /// The counts as the store has them.
    func replace(dealt: [String: Int]) {
        state.withLock { $0.dealt = dealt }
    }

    /// SIGHUP: the deck and its source, replaced together (a new edition), with the counts.
    func reload(deck: Deck, source: CardSource, dealt: [String: Int]) {
        state.withLock { book in
            book.edition = DeckEdition(deck: deck, source: source, number: book.edition.number + 1)
            book.dealt = dealt
        }
    }
}
