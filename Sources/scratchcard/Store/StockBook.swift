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
/// that a card drawn from an older one is known and not shown (StoreSide.take).
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

extension Dealer {
    /// A card from the stock book, or the sold-out card when nothing is left.
    /// The card's images and sounds are read from the edition it was drawn from, which
    /// the card remembers.
    func deal(from book: StockBook) throws(ImageError) -> DealtCard {
        let (card, edition) = book.draw()
        var made: DealtCard
        if let card { made = try reading(edition.source).dealt(card) } else { made = try soldOutCard() }
        made.deckEdition = edition.number
        return made
    }

    /// A deck card made ready as `deal()` makes a drawn one: its images (or text), its
    /// sound, its deck entry (with the stock).
    /// A claim card gets its claim for `deal` (the pool's, a resumed one), else for a
    /// new deal id the store will record it under.
    func dealt(_ card: DeckCard, deal: DealID? = nil) throws(ImageError) -> DealtCard {
        if card.zoneCard != nil { return try dealtTicket(card, deckCard: card) }
        var images = try CardImages.load(cover: card.cover ?? cover, prize: card.prize,
                                         prompt: card.coverText ?? coverText, text: card.text, source: source)
        var made = DealtCard(id: card.id, prize: card.prize ?? card.text?.title ?? card.id, images: images,
                             revealSound: revealSound(card.sound), celebrate: card.celebrate, deckCard: card)
        if card.claim, let claims {
            let id = deal ?? DealID.random()
            images.claim = claims.mark(forDeal: id)
            made = DealtCard(id: made.id, prize: made.prize, images: images, revealSound: made.revealSound,
                             celebrate: made.celebrate, deckCard: card)
            made.claim = images.claim
            made.claimDeal = id
        }
        return made
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
