@preconcurrency import Glibc
import Foundation
import Synchronization
import ScratchCore
import ScratchImage
import ScratchStore
import CardRules

/// What the dealer draws from when a store keeps the stock: the deck (replaced when
/// SIGHUP reloads it) and how many of each card were dealt, shared between the loop
/// (which counts each deal it commits) and the card maker's worker (which draws).
final class StockBook: Sendable {
    private let state: Mutex<(deck: Deck, dealt: [String: Int])>

    init(deck: Deck, dealt: [String: Int]) { state = Mutex((deck, dealt)) }

    var deck: Deck { state.withLock { $0.deck } }

    /// A card by weight among those with stock left; nil when nothing can be dealt.
    func draw() -> DeckCard? {
        state.withLock { $0.deck.draw(left: $0.deck.left(dealt: $0.dealt)) }
    }

    /// True when some card can still be dealt.
    var canDeal: Bool {
        state.withLock { book in
            let left = book.deck.left(dealt: book.dealt)
            return book.deck.cards.contains { $0.weight > 0 && ($0.stock == nil || (left[$0.id] ?? 0) > 0) }
        }
    }

    func counted(_ cardID: String) { state.withLock { $0.dealt[cardID, default: 0] += 1 } }

    func replace(deck: Deck? = nil, dealt: [String: Int]) {
        state.withLock { book in
            if let deck { book.deck = deck }
            book.dealt = dealt
        }
    }
}

extension Dealer {
    /// A card from the stock book, or the sold-out card when nothing is left.
    func deal(from book: StockBook) throws(ImageError) -> DealtCard {
        guard let card = book.draw() else { return try soldOutCard() }
        return try dealt(card)
    }

    /// A deck card made ready as `deal()` makes a drawn one: its images (or text), its
    /// sound, its deck entry (with the stock).
    func dealt(_ card: DeckCard) throws(ImageError) -> DealtCard {
        let images = try CardImages.load(cover: card.cover ?? cover, prize: card.prize,
                                         prompt: card.coverText ?? coverText, text: card.text)
        return DealtCard(id: card.id, prize: card.prize ?? card.text?.title ?? card.id, images: images,
                         revealSound: Self.revealSound(card.sound), celebrate: card.celebrate, deckCard: card)
    }

    /// "All prizes have been given away": `--sold-out IMAGE` as both sides, else a text
    /// card drawn at the window's size (CardArt); nothing to scratch either way.
    func soldOutCard() throws(ImageError) -> DealtCard {
        let images: CardImages
        if let soldOutImage {
            let image = try ImageFile.read(path: soldOutImage)
            images = CardImages(cover: .image(image), prize: .image(image))
        } else {
            let text = CardText(title: "ALL PRIZES HAVE BEEN GIVEN AWAY", subtitle: "Thank you!",
                                colour: RGBA(r: 255, g: 255, b: 255), background: RGBA(r: 40, g: 51, b: 74))
            images = CardImages(cover: .text(text, background: nil), prize: .text(text, background: nil))
        }
        return DealtCard(id: "sold-out", prize: soldOutImage ?? "built-in", images: images, revealSound: nil, celebrate: false,
                         soldOut: true)
    }
}
