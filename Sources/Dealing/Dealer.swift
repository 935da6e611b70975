import CardArt
import CardRules
import Foundation
import ScratchCore
import ScratchImage
import ScratchStore
import Threads

/// Deals cards: at random by weight from a deck, or always the one card of the options.
/// Sendable (plain values) so that the card maker's worker can deal.
public struct Dealer: Sendable {
    public let deck: Deck?
    let cover: String?
    let prize: String?
    let coverText: String?
    /// With a store: the stock the deck's cards are drawn from (StockBook.swift).
    var stock: StockBook?
    /// `--sold-out IMAGE`, shown when nothing can be dealt; nil: the built-in card.
    let soldOutImage: String?
    /// With a shared pool: the cards are taken from it (Ledger+Pool.swift).
    var pool: PoolLedger?
    /// Where the deck's images and sounds are read from. With a stock book, its cards'
    /// come from the book's edition instead (`reading`): SIGHUP replaces the deck and
    /// its source there, together.
    public private(set) var source: CardSource
    /// A card file's own card options (none for other decks).
    public let settings: CardSettings
    /// The promotion's key, when the deck has claim cards (`--claim-key`).
    public var claims: ClaimMaker?

    /// What the dealer reads of the options.
    public struct Options: Sendable {
        /// `--deck PATH` (a folder, a deck file or a card file).
        public var deck: String?
        /// The deck must be a card file (`scratchcard FILE`), whatever its name.
        public var deckIsCardFile = false
        /// `--cover`, `--prize`, `--cover-text`, `--sold-out`.
        public var cover: String?
        public var prize: String?
        public var coverText: String?
        public var soldOutImage: String?

        public init(deck: String?, deckIsCardFile: Bool, cover: String?, prize: String?, coverText: String?, soldOutImage: String?) {
            self.deck = deck
            self.deckIsCardFile = deckIsCardFile
            self.cover = cover
            self.prize = prize
            self.coverText = coverText
            self.soldOutImage = soldOutImage
        }
    }

    /// A dealer of `deck` alone, with no options of its own (`render --deck`, a dropped card file).
    public init(deck: Deck, source: CardSource = .disk) {
        self.deck = deck
        cover = nil
        prize = nil
        coverText = nil
        soldOutImage = nil
        self.source = source
        settings = CardSettings()
    }

    /// The dealer the options describe: its deck loaded (and its sounds checked).
    public init(options: Options) throws(DeckError) {
        let loaded = try options.deck.map { path throws(DeckError) in try LoadedDeck.load(path: path, asCardFile: options.deckIsCardFile) }
        deck = loaded?.deck
        source = loaded?.source ?? .disk
        settings = loaded?.settings ?? CardSettings()
        cover = options.cover
        prize = options.prize
        coverText = options.coverText
        soldOutImage = options.soldOutImage
        if let deck, let path = options.deck { try Self.check(deck, path: path, source: source, cover: cover) }
    }

    /// This dealer, reading its deck's images and sounds from `source` (a stock book's
    /// edition's, which may be newer than the one the dealer was made with).
    func reading(_ source: CardSource) -> Dealer {
        var dealer = self
        dealer.source = source
        return dealer
    }

    /// The most sound files a deck may name (each is decoded at load to check it).
    public static let maximumSoundFiles = 32

    /// What can only be checked with the deck's files read, at load and before any
    /// window: its sounds (`checkSounds`), and that each zone card's zones lie on its
    /// ticket: the built-in one, or its cover (its own, or `cover`, the `--cover` image),
    /// read here once. A problem ends the program (exit 2) naming the deck and the card.
    public static func check(_ deck: Deck, path: String, source: CardSource, cover: String?) throws(DeckError) {
        try checkSounds(of: deck, path: path, source: source)
        var sizes: [String: PixelSize] = [:]
        for (index, card) in deck.cards.enumerated() {
            guard var zones = card.zoneCard else { continue }
            let entry = "cards[\(index)] (\"\(card.id)\")"
            if let artwork = card.cover ?? cover {
                if sizes[artwork] == nil {
                    do { sizes[artwork] = try source.image(artwork).size } catch {
                        throw DeckError(path: path, message: "\(entry): the ticket's cover \(error)")
                    }
                }
                zones = zones.printed(on: sizes[artwork]!)
            }
            if let problem = zones.zoneOffTheCard {
                let on = (card.cover ?? cover).map { " \(JSONText.quoted($0))" } ?? ""
                throw DeckError(path: path, message: "\(entry): \(problem)\(on)")
            }
        }
    }

    /// Every sound file the deck names is decoded once, at load: a bad one ends the
    /// program (exit 2) naming the deck, the card and the file, before any window.
    public static func checkSounds(of deck: Deck, path: String, source: CardSource) throws(DeckError) {
        var checked = Set<String>()
        for (index, card) in deck.cards.enumerated() {
            guard case .file(let file) = card.sound, !checked.contains(file) else { continue }
            guard checked.count < maximumSoundFiles else {
                throw DeckError(path: path, message: "more than \(maximumSoundFiles) different sound files")
            }
            checked.insert(file)
            do { _ = try source.sound(file) } catch {
                throw DeckError(path: path, message: "cards[\(index)] (\"\(card.id)\"): sound \(error)")
            }
        }
    }

    /// The next card's id and images. A deck card without a cover of its own gets the
    /// `--cover` one (or the built-in foil, with the card's, the deck's or `--cover-text`).
    public func deal() throws(ImageError) -> DealtCard {
        if let pool, let stock { return try deal(fromPool: pool, book: stock) }
        if let stock { return try deal(from: stock) }
        guard let deck else {
            let id = prize.map { fileStem($0) } ?? "built-in"
            return DealtCard(id: id, prize: prize ?? "built-in",
                             images: try CardImages.load(cover: cover, prize: prize, prompt: coverText, source: source))
        }
        return try dealt(deck.draw())
    }

    /// A zone card as dealt: its cover image (its own, or `--cover`) as the ticket's
    /// artwork, its zones printed on it; else the built-in ticket. Its symbols' and
    /// decoys' image files read.
    public func dealtTicket(_ card: DeckCard) throws(ImageError) -> DealtCard {
        var zones = card.zoneCard!
        let artwork = try (card.cover ?? cover).map { path throws(ImageError) in try source.image(path) }
        if let artwork { zones = zones.printed(on: artwork.size) }
        let header = card.coverText ?? coverText
        func read(_ symbols: [ZoneSymbol]) throws(ImageError) -> [RGBAImage?] {
            var images: [RGBAImage?] = []
            for symbol in symbols {
                if case .image(let path) = symbol { images.append(try source.image(path)) } else { images.append(nil) }
            }
            return images
        }
        let art = ZoneArt(card: zones, symbolImages: try read(zones.symbols), decoyImages: try read(zones.decoys))
        let images = CardImages(cover: .ticket(zones, header: header, artwork: artwork, foil: true),
                                prize: .ticket(zones, header: header, artwork: artwork, foil: false))
        return DealtCard(id: card.id, prize: card.id, images: images, revealSound: revealSound(card.sound),
                         celebrate: card.celebrate, origin: .unstocked(card), zoneArt: art)
    }

    /// True when some card has words of its own (a text card, a cover-text) to check.
    public var hasText: Bool { coverText != nil || deck?.cards.contains { $0.text != nil || $0.coverText != nil } == true }

    /// Warnings for words no installed font can draw (shown as boxes), naming where they
    /// come from: the deck's entries, `--cover-text`. A font missing is no reason to stop.
    public func missingGlyphWarnings(deckPath: String?) -> [String] {
        // Every text once, with where it is first found.
        var places: [(text: String, place: String)] = []
        var seenPrompts: Set<String> = []
        if let coverText {
            seenPrompts.insert(coverText)
            places.append((coverText, "--cover-text"))
        }
        for (index, card) in (deck?.cards ?? []).enumerated() {
            let place = "\(deckPath ?? "deck"): cards[\(index)] (\"\(card.id)\")"
            if let text = card.text {
                places.append((text.title, place + " text"))
                if let subtitle = text.subtitle { places.append((subtitle, place + " subtitle")) }
            }
            // A deck's cover-text is on every card: said once, for the first.
            if let prompt = card.coverText, seenPrompts.insert(prompt).inserted { places.append((prompt, place + " cover-text")) }
        }
        let counts = CardArt.unknownGlyphs(inEach: places.map(\.text))
        return zip(places, counts).compactMap { item, count in
            count == 0 ? nil : "warning: \(item.place): \(count) character\(count == 1 ? "" : "s") with no glyph in any installed font (drawn as boxes)"
        }
    }

    /// The clip a card's reveal plays: the chime, none, or its WAV file (checked at load;
    /// should it have changed since and no longer decode, the chime).
    public func revealSound(_ sound: DeckSound) -> RevealSound? {
        switch sound {
        case .chime: return .chime
        case .none: return nil
        case .file(let path): return (try? source.sound(path)).map(RevealSound.clip) ?? .chime
        }
    }
}

extension Dealer {
    /// A card from the stock book, or the sold-out card when nothing is left.
    /// The card's images and sounds are read from the edition it was drawn from, which
    /// the card remembers.
    func deal(from book: StockBook) throws(ImageError) -> DealtCard {
        let (card, edition) = book.draw()
        guard let card else { return try soldOutCard(edition: edition.number) }
        var made = try reading(edition.source).dealt(card)
        made.origin = .stock(card, edition: edition.number)
        return made
    }

    /// A deck card made ready as `deal()` makes a drawn one: its images (or text, or its
    /// ticket), its sound, its deck entry (with the stock). A claim card gets its claim
    /// for `deal` (the pool's, a resumed one), else for a new deal id the ledger will
    /// record it under.
    public func dealt(_ card: DeckCard, deal: DealID? = nil) throws(ImageError) -> DealtCard {
        var made: DealtCard
        if card.zoneCard != nil {
            made = try dealtTicket(card)
        } else {
            let images = try CardImages.load(cover: card.cover ?? cover, prize: card.prize,
                                             prompt: card.coverText ?? coverText, text: card.text, source: source)
            made = DealtCard(id: card.id, prize: card.prize ?? card.text?.title ?? card.id, images: images,
                             revealSound: revealSound(card.sound), celebrate: card.celebrate, origin: .unstocked(card))
        }
        // Only with a book of record (a stock book): a code no book holds would not redeem.
        if card.claim, let claims, stock != nil {
            let claim = claims.claim(forDeal: deal ?? DealID.random())
            made.images.claim = claim.mark
            made.claim = claim
        }
        return made
    }

    /// "All prizes have been given away": `--sold-out IMAGE` as both sides, else a text
    /// card drawn at the window's size (CardArt); nothing to scratch either way.
    func soldOutCard(edition: Int?) throws(ImageError) -> DealtCard {
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
                         origin: .soldOut(edition: edition))
    }

    /// Fonts for every text of the deck are looked up on a thread of its own: 20,000
    /// texts (a 10,000-card deck) take 2 s, which the first card need not wait for.
    /// What a font lacks is said on stderr.
    public func lookUpFonts(deckPath: String?) {
        guard hasText else { return }
        let fonts = self
        detachThread { for warning in fonts.missingGlyphWarnings(deckPath: deckPath) { log(warning) } }
    }
}
