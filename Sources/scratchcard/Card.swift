import CardRules
import Dispatch
import Foundation
import CardArt
import ScratchCore
import ScratchStore
import ScratchImage
import ScratchSound
import Threads

/// One side of a card as dealt: the pixels of an image file, or a drawing the program
/// makes at whatever size the card is shown at (the built-in foil and prize, text cards).
enum CardLayer: Sendable {
    case image(RGBAImage)
    /// The built-in silver foil, with the operator's prompt in place of "SCRATCH HERE".
    case builtInCover(prompt: String?)
    /// The built-in prize ("YOU WIN!" on "FREE COFFEE").
    case builtInPrize
    /// A deck's words, over an image (scaled to fill first) or the built-in background.
    case text(CardText, background: RGBAImage?)
    /// The built-in ticket of a zone card: its foil panels (`foil`) or their wells, the
    /// header's words (`header`, nil for the default).
    case ticket(ZoneCard, header: String?, foil: Bool)

    /// The size the layer is meant for, in points: an image file's own (a 96-dpi
    /// picture), else the built-in card's 640x400.
    var size: PixelSize {
        switch self {
        case .image(let image), .text(_, background: let image?): image.size
        case .builtInCover, .builtInPrize, .text, .ticket: CardArt.designSize
        }
    }

    /// The layer at `size` device pixels: an image scaled to fill it, centred; a drawing
    /// drawn for it, at its own aspect.
    func rendered(at size: PixelSize) -> RGBAImage {
        switch self {
        case .image(let image): image.size == size ? image : image.scaledToFill(size)
        case .builtInCover(let prompt): CardArt.cover(size: size, prompt: prompt)
        case .builtInPrize: CardArt.prize(size: size)
        case .text(let text, let background):
            CardArt.prize(size: size, text: text, background: background.map { $0.size == size ? $0 : $0.scaledToFill(size) })
        case .ticket(let zones, let header, let foil):
            foil ? CardArt.ticket(size: size, zones: zones.outlines(in: size), header: header).cover
                : CardArt.ticket(size: size, zones: zones.outlines(in: size), header: header).prize
        }
    }
}

/// The two sides of a card, as dealt: image files decoded, drawings still to be drawn.
struct CardImages: Sendable {
    var cover: CardLayer
    var prize: CardLayer
    /// A claim card's code and QR, drawn on the prize at whatever size it is made.
    var claim: ClaimMark? = nil

    /// Reads the image files; `prompt` goes on the built-in foil (no `cover`), `text` is
    /// drawn as the prize (over `prize`, if given).
    /// `source`: where the files are read (a card file's entries, else disk).
    static func load(cover: String?, prize: String?, prompt: String? = nil, text: CardText? = nil,
                     source: CardSource = .disk) throws(ImageError) -> CardImages {
        // Both decodes at once, the prize's on another thread: at 4K each is mostly
        // zlib's inflate (or libjpeg's IDCT), and the machine has more than one core. Called at start-up,
        // before the loop runs, and on the card maker's worker, never by the loop.
        let prizeJob = Job { () throws(ImageError) -> CardLayer in
            let image = try prize.map { path throws(ImageError) in try source.image(path) }
            if let text { return .text(text, background: image) }
            return image.map(CardLayer.image) ?? .builtInPrize
        }
        let coverLayer = Result { () throws(ImageError) -> CardLayer in
            guard let cover else { return .builtInCover(prompt: prompt) }
            return .image(try source.image(cover))
        }
        let prizeLayer = prizeJob.result()
        return CardImages(cover: try coverLayer.get(), prize: try prizeLayer.get())
    }

    /// Both sides at `size`: images scaled to fill it, drawings drawn for it. The prize
    /// on a thread of its own meanwhile (a 4K drawing takes tens of milliseconds), never
    /// on the shared pool: the window's loop calls this on a resize, and a loop waiting
    /// on the pool could wait behind the card maker's work (with the prize scaled on the
    /// pool, a resize during a deal took 6x as long under ThreadSanitizer).
    func filling(_ size: PixelSize) -> FilledImages {
        let prize = self.prize, claim = self.claim
        let prizeJob = Job { () -> RGBAImage in
            let image = prize.rendered(at: size)
            return claim.map { CardArt.claimed(image, claim: $0) } ?? image
        }
        let coverImage = cover.rendered(at: size)
        return FilledImages(cover: coverImage, prize: prizeJob.result().get())
    }
}

extension CardImages {
    /// The card's canvas at `size`. With the built-in foil for a cover and a framebuffer
    /// in cairo's own layout (`CardArt.nativeLayout`, the usual BGRX visual) both sides
    /// are drawn straight in that layout, the prize on a thread of its own meanwhile, and
    /// no RGBA image is made or converted: at 4K that was most of the time to the first
    /// frame after the drawing itself. Otherwise the images are filled (`filling`) and the
    /// canvas converts them. `keeping` gives the mask to carry over, from the filled
    /// cover (nil when the cover is the built-in foil, which is opaque).
    func canvas(at size: PixelSize, layout: PixelLayout, brush: Brush,
                keeping: (_ filledCover: RGBAImage?) -> Mask? = { _ in nil }) throws(CanvasError) -> ScratchCanvas {
        guard case .builtInCover(let prompt) = cover, layout == CardArt.nativeLayout else {
            let filled = filling(size)
            return try ScratchCanvas(cover: filled.cover, prize: filled.prize, layout: layout, brush: brush,
                                     keeping: keeping(filled.cover))
        }
        let prize = self.prize, claim = self.claim
        let prizeJob = Job { () -> LayoutImage in prize.pixels(at: size, layout: layout, claim: claim) }
        let coverPixels = CardArt.coverPixels(size: size, prompt: prompt)
        let previous = keeping(nil)
        return try ScratchCanvas(cover: coverPixels, prize: prizeJob.result().get(), brush: brush, keeping: previous)
    }
}

extension CardImages {
    /// The card's canvas, its cover drawn straight into `framebuffer` (the window's, not
    /// yet on screen) while the prize is drawn on a thread of its own: then the first frame
    /// needs no image made, converted or composited, and the copy of the cover into the
    /// canvas runs while the prize is still being drawn. For the built-in foil over a
    /// framebuffer in cairo's own layout (`CardArt.nativeLayout`); nil, having drawn
    /// nothing, otherwise. The framebuffer shows the card as the canvas has it, nothing
    /// scratched.
    func canvas(showingCoverIn framebuffer: Framebuffer, brush: Brush) -> ScratchCanvas? {
        guard case .builtInCover(let prompt) = cover, framebuffer.layout == CardArt.nativeLayout else { return nil }
        let prize = self.prize, size = framebuffer.size, layout = framebuffer.layout, claim = self.claim
        let prizeJob = Job { () -> LayoutImage in prize.pixels(at: size, layout: layout, claim: claim) }
        guard CardArt.drawCover(prompt: prompt, into: framebuffer) else {
            _ = prizeJob.result()
            return nil
        }
        return ScratchCanvas(coverShownIn: framebuffer, prize: { prizeJob.result().get() }, brush: brush)
    }
}

extension CardLayer {
    /// The layer at `size` in `layout`, which is `CardArt.nativeLayout`: a drawing drawn
    /// in it, an image scaled to fill and converted (its alpha dropped, as a prize's is).
    func pixels(at size: PixelSize, layout: PixelLayout, claim: ClaimMark? = nil) -> LayoutImage {
        if let claim { return LayoutImage(CardArt.claimed(rendered(at: size), claim: claim), layout: layout) }
        switch self {
        case .builtInPrize: return CardArt.prizePixels(size: size)
        case .text(let text, let background):
            return CardArt.prizePixels(size: size, text: text, background: background.map { $0.size == size ? $0 : $0.scaledToFill(size) })
        case .builtInCover(let prompt): return CardArt.coverPixels(size: size, prompt: prompt)
        case .image, .ticket: return LayoutImage(rendered(at: size), layout: layout)
        }
    }
}

/// A card's two images at the window's size, ready for a canvas.
struct FilledImages {
    let cover: RGBAImage
    let prize: RGBAImage
}

/// Deals cards: at random by weight from a deck, or always the one card of the options.
/// Sendable (plain values) so that the card maker's worker can deal.
struct Dealer: Sendable {
    let deck: Deck?
    let cover: String?
    let prize: String?
    let coverText: String?
    /// With a store: the stock the deck's cards are drawn from (Store/StockBook.swift).
    var stock: StockBook?
    /// `--sold-out IMAGE`, shown when nothing can be dealt; nil: the built-in card.
    var soldOutImage: String?
    /// With a shared pool: the cards are taken from it (Store/StoreKeeper+Pool.swift).
    var pool: PoolLedger?
    /// Where the deck's images and sounds are read from. With a stock book, its cards'
    /// come from the book's edition instead (`reading`): SIGHUP replaces the deck and
    /// its source there, together.
    private(set) var source: CardSource
    /// A card file's own card options (none for other decks).
    let settings: CardSettings
    /// The promotion's key, when the deck has claim cards (`--claim-key`).
    var claims: ClaimMaker?

    /// A dealer of `deck` alone, with no options of its own (`render --deck`).
    init(deck: Deck, source: CardSource = .disk) {
        self.deck = deck
        cover = nil
        prize = nil
        coverText = nil
        self.source = source
        settings = CardSettings()
    }

    init(options: WindowOptions) throws(DeckError) {
        let loaded = try options.deck.map { path throws(DeckError) in try LoadedDeck.load(path: path, asCardFile: options.openCardFile) }
        deck = loaded?.deck
        source = loaded?.source ?? .disk
        settings = loaded?.settings ?? CardSettings()
        cover = options.cover
        prize = options.prize
        coverText = options.coverText
        soldOutImage = options.soldOut
        if let deck, let path = options.deck { try Self.checkSounds(of: deck, path: path, source: source) }
    }

    /// This dealer, reading its deck's images and sounds from `source` (a stock book's
    /// edition's, which may be newer than the one the dealer was made with).
    func reading(_ source: CardSource) -> Dealer {
        var dealer = self
        dealer.source = source
        return dealer
    }

    /// The most sound files a deck may name (each is decoded at load to check it).
    static let maximumSoundFiles = 32

    /// Every sound file the deck names is decoded once, at load: a bad one ends the
    /// program (exit 2) naming the deck, the card and the file, before any window.
    static func checkSounds(of deck: Deck, path: String, source: CardSource) throws(DeckError) {
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
    func deal() throws(ImageError) -> DealtCard {
        if let pool, let stock { return try deal(fromPool: pool, book: stock) }
        if let stock { return try deal(from: stock) }
        guard let deck else {
            let id = prize.map { fileStem($0) } ?? "built-in"
            return DealtCard(id: id, prize: prize ?? "built-in",
                             images: try CardImages.load(cover: cover, prize: prize, prompt: coverText, source: source))
        }
        let card = deck.draw()
        if card.zoneCard != nil { return try dealtTicket(card, deckCard: nil) }
        let images = try CardImages.load(cover: card.cover ?? cover, prize: card.prize,
                                         prompt: card.coverText ?? coverText, text: card.text, source: source)
        return DealtCard(id: card.id, prize: card.prize ?? card.text?.title ?? card.id, images: images,
                         revealSound: revealSound(card.sound), celebrate: card.celebrate)
    }

    /// A zone card as dealt: the built-in ticket, its symbols' and decoys' image files read.
    func dealtTicket(_ card: DeckCard, deckCard: DeckCard?) throws(ImageError) -> DealtCard {
        let zones = card.zoneCard!
        let header = card.coverText ?? coverText
        func read(_ symbols: [ZoneSymbol]) throws(ImageError) -> [RGBAImage?] {
            var images: [RGBAImage?] = []
            for symbol in symbols {
                if case .image(let path) = symbol { images.append(try source.image(path)) } else { images.append(nil) }
            }
            return images
        }
        let art = ZoneArt(card: zones, symbolImages: try read(zones.symbols), decoyImages: try read(zones.decoys))
        let images = CardImages(cover: .ticket(zones, header: header, foil: true), prize: .ticket(zones, header: header, foil: false))
        return DealtCard(id: card.id, prize: card.id, images: images, revealSound: revealSound(card.sound),
                         celebrate: card.celebrate, deckCard: deckCard, zoneArt: art)
    }

    /// True when some card has words of its own (a text card, a cover-text) to check.
    var hasText: Bool { coverText != nil || deck?.cards.contains { $0.text != nil || $0.coverText != nil } == true }

    /// Warnings for words no installed font can draw (shown as boxes), naming where they
    /// come from: the deck's entries, `--cover-text`. A font missing is no reason to stop.
    func missingGlyphWarnings(deckPath: String?) -> [String] {
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
    func revealSound(_ sound: DeckSound) -> RevealSound? {
        switch sound {
        case .chime: return .chime
        case .none: return nil
        case .file(let path): return (try? source.sound(path)).map(RevealSound.clip) ?? .chime
        }
    }
}

/// A card as dealt: its id, where its prize came from, its images as loaded, what its
/// reveal sounds like (nil: nothing) and whether it bursts into sparks.
struct DealtCard: Sendable {
    let id: String
    let prize: String
    let images: CardImages
    var revealSound: RevealSound? = .chime
    var celebrate = true
    /// The deck entry it was drawn from, if any (its stock with it).
    var deckCard: DeckCard? = nil
    /// The sold-out card: nothing could be dealt.
    var soldOut = false
    /// A zone card's rules and what its zones show; nil for a card that scratches anywhere.
    var zoneArt: ZoneArt? = nil
    /// With a shared pool: the deal taken from it, to record when the card is shown.
    var poolTake: PoolLedger.Taken? = nil
    /// A claim card's claim (its code on the prize), and the deal id it was made for:
    /// the store records the deal under that id (Claims/ClaimMaker.swift).
    var claim: ClaimMark? = nil
    var claimDeal: DealID? = nil
    /// With a shared pool: "back in a moment", and when to try the pool again
    /// (monotonic seconds): it cannot be reached and the deck has no unlimited card.
    var backSoonUntil: Double? = nil
    /// Drawn from a stock book: the number of the deck's edition it was drawn from
    /// (StockBook.swift). A card of an edition SIGHUP has since replaced is not shown.
    var deckEdition: Int? = nil
}

/// What a card's reveal plays: the built-in chime, or a clip of its own (a deck card's
/// WAV file). The chime's samples are made when it is first played, not when a card is
/// dealt: synthesising them takes about 10 ms, which the first frame need not wait for.
enum RevealSound: Sendable, Equatable {
    case chime
    case clip(SoundClip)

    var clip: SoundClip {
        switch self {
        case .chime: .chime
        case .clip(let clip): clip
        }
    }
}

/// A file's name without its folder and extension.
func fileStem(_ path: String) -> String {
    // By bytes: a "/" or "." followed by a combining mark is one Character with it, which
    // a split on Characters would not find.
    let bytes = Array(path.utf8)
    let name = bytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? bytes
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != 0 else { return String(decoding: name, as: UTF8.self) }
    return String(decoding: name[..<dot], as: UTF8.self)
}

/// Work started on a thread of its own at once; `result()` waits for it. The thread ends
/// with the work, at start-up: a worker of the shared pool would linger and end seconds
/// later, while the card sits idle.
private final class Job<Value: Sendable, Failure: Error>: @unchecked Sendable {
    // Written once by the worker before it signals, read only after the wait.
    private var outcome: Result<Value, Failure>?
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws(Failure) -> Value) {
        detachThread {
            self.outcome = Result(catching: work)
            self.done.signal()
        }
    }

    func result() -> Result<Value, Failure> {
        done.wait()
        return outcome!
    }
}

/// A zone card as dealt: its zones, picks and symbols, with the symbols' image files read.
struct ZoneArt: Sendable {
    let card: ZoneCard
    let symbolImages: [RGBAImage?]
    let decoyImages: [RGBAImage?]

    /// What a zone shows, drawn at the zone's pixel size.
    func draw(_ shows: ZoneTicket.Shows, size: PixelSize) -> RGBAImage {
        let (symbol, image, dimmed): (ZoneSymbol, RGBAImage?, Bool) = switch shows {
        case .symbol(let i): (card.symbols[i], symbolImages[i], false)
        case .decoy(let i): (card.decoys[i], decoyImages[i], true)
        }
        var text: String?, colour: RGBA?
        if case .text(let words, let c) = symbol { text = words; colour = c }
        return CardArt.zoneSymbol(text: text, colour: colour, image: image, size: size, dimmed: dimmed)
    }
}
