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
public enum CardLayer: Sendable {
    case image(RGBAImage)
    /// The built-in silver foil, with the operator's prompt in place of "SCRATCH HERE".
    case builtInCover(prompt: String?)
    /// The built-in prize ("YOU WIN!" on "FREE COFFEE").
    case builtInPrize
    /// A deck's words, over an image (scaled to fill first) or the built-in background.
    case text(CardText, background: RGBAImage?)
    /// A zone card's ticket, its zones' foil panels (`foil`) or their wells: the
    /// promoter's `artwork` (the card's cover image), or the built-in ticket with the
    /// header's words (`header`, nil for the default).
    case ticket(ZoneCard, header: String?, artwork: RGBAImage?, foil: Bool)

    /// The size the layer is meant for, in points: an image file's own (a 96-dpi
    /// picture), else the built-in card's 640x400.
    public var size: PixelSize {
        switch self {
        case .image(let image), .text(_, background: let image?), .ticket(_, _, artwork: let image?, _): image.size
        case .builtInCover, .builtInPrize, .text, .ticket: CardArt.designSize
        }
    }

    /// The layer at `size` device pixels: an image scaled to fill it, centred; a drawing
    /// drawn for it, at its own aspect.
    public func rendered(at size: PixelSize) -> RGBAImage {
        switch self {
        case .image(let image): image.size == size ? image : image.scaledToFill(size)
        case .builtInCover(let prompt): CardArt.cover(size: size, prompt: prompt)
        case .builtInPrize: CardArt.prize(size: size)
        case .text(let text, let background):
            CardArt.prize(size: size, text: text, background: background.map { $0.size == size ? $0 : $0.scaledToFill(size) })
        case .ticket(let zones, _, let artwork?, let foil):
            foil ? CardArt.ticket(artwork: artwork, size: size, zones: zones.outlines(in: size)).cover
                : CardArt.ticket(artwork: artwork, size: size, zones: zones.outlines(in: size)).prize
        case .ticket(let zones, let header, nil, let foil):
            foil ? CardArt.ticket(size: size, zones: zones.outlines(in: size), header: header).cover
                : CardArt.ticket(size: size, zones: zones.outlines(in: size), header: header).prize
        }
    }
}

/// The two sides of a card, as dealt: image files decoded, drawings still to be drawn.
public struct CardImages: Sendable {
    public var cover: CardLayer
    public var prize: CardLayer
    /// A claim card's code and QR, drawn on the prize at whatever size it is made.
    public var claim: ClaimMark? = nil

    public init(cover: CardLayer, prize: CardLayer, claim: ClaimMark? = nil) {
        self.cover = cover
        self.prize = prize
        self.claim = claim
    }

    /// Reads the image files; `prompt` goes on the built-in foil (no `cover`), `text` is
    /// drawn as the prize (over `prize`, if given).
    /// `source`: where the files are read (a card file's entries, else disk).
    public static func load(cover: String?, prize: String?, prompt: String? = nil, text: CardText? = nil,
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

    /// A revealed ticket with a claim: `shown` (what the ticket shows, every zone open)
    /// with the claim's code and QR drawn over it, as on any claim card's prize. Nil for
    /// a card that is no ticket or has no claim.
    public func claimedTicket(_ shown: RGBAImage) -> RGBAImage? {
        guard case .ticket = prize, let claim else { return nil }
        return CardArt.claimed(shown, claim: claim)
    }

    /// Both sides at `size`: images scaled to fill it, drawings drawn for it. The prize
    /// on a thread of its own meanwhile (a 4K drawing takes tens of milliseconds), never
    /// on the shared pool: the window's loop calls this on a resize, and a loop waiting
    /// on the pool could wait behind the card maker's work (with the prize scaled on the
    /// pool, a resize during a deal took 6x as long under ThreadSanitizer).
    public func filling(_ size: PixelSize) -> FilledImages {
        let prize = self.prize, claim = self.claim
        let prizeJob = Job { () -> RGBAImage in
            let image = prize.rendered(at: size)
            // A ticket's claim is drawn over it once it is revealed (`claimedTicket`):
            // drawn here, it would be cut by the symbols drawn into the zones.
            if case .ticket = prize { return image }
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
    public func canvas(at size: PixelSize, layout: PixelLayout, brush: Brush,
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
    public func canvas(showingCoverIn framebuffer: Framebuffer, brush: Brush) -> ScratchCanvas? {
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
    public func pixels(at size: PixelSize, layout: PixelLayout, claim: ClaimMark? = nil) -> LayoutImage {
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
public struct FilledImages {
    public let cover: RGBAImage
    public let prize: RGBAImage
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
public struct ZoneArt: Sendable {
    public let card: ZoneCard
    public let symbolImages: [RGBAImage?]
    public let decoyImages: [RGBAImage?]

    /// What a zone shows, drawn at the zone's pixel size.
    public func draw(_ shows: ZoneTicket.Shows, size: PixelSize) -> RGBAImage {
        let (symbol, image, dimmed): (ZoneSymbol, RGBAImage?, Bool) = switch shows {
        case .symbol(let i): (card.symbols[i], symbolImages[i], false)
        case .decoy(let i): (card.decoys[i], decoyImages[i], true)
        }
        var text: String?, colour: RGBA?
        if case .text(let words, let c) = symbol { text = words; colour = c }
        return CardArt.zoneSymbol(text: text, colour: colour, image: image, size: size, dimmed: dimmed)
    }
}
