import CardRules
import CPangoCairo
import ScratchCore

/// Draws cards at the size they are shown at, with cairo (shapes, gradients) and Pango
/// (text in any script, through fontconfig and HarfBuzz): the built-in silver cover, the
/// built-in prize, and a deck's text cards in the built-in prize's style. Never enlarged
/// from a smaller bitmap; deterministic (fixed seeds): the same size gives the same bytes.
///
///     let cover = CardArt.cover(size: PixelSize(width: 3840, height: 2160))
///     let prize = CardArt.prize(size: cover.size, text: CardText(title: "恭喜中奖"))
///
/// The design is 640x400 points (`designSize`); at another size every length is scaled by
/// `unit(for:)` and the frame follows the size's own aspect, so a 16:9 screen gets a
/// 16:9 card with its whole frame. Safe to call from several threads at once: their
/// text is laid out and drawn one at a time (Fonts.swift), the rest side by side.
public enum CardArt {
    /// The built-in card's size in points.
    public static let designSize = PixelSize(width: 640, height: 400)

    /// The built-in cover, with `prompt` in place of "SCRATCH HERE" when given.
    public static func cover(size: PixelSize, prompt: String? = nil) -> RGBAImage {
        Surface.drawing(size: size) { CoverDrawing(size: size, prompt: prompt).draw(on: $0) }
            ?? RGBAImage(size: size, filledWith: RGBA(r: 190, g: 194, b: 200))
    }

    /// The built-in prize (`text` nil) or a text card. `background`, an image already of
    /// `size`, replaces the sunburst under the words.
    public static func prize(size: PixelSize, text: CardText? = nil, background: RGBAImage? = nil) -> RGBAImage {
        let drawing = PrizeDrawing(size: size, text: text ?? .builtInPrize, spaced: text == nil)
        return Surface.drawing(size: size) { drawing.draw(on: $0, background: background?.size == size ? background : nil) }
            ?? RGBAImage(size: size, filledWith: RGBA(r: 255, g: 162, b: 58))
    }

    /// The pixel layout cairo draws in (ARGB32 in native-endian words: B, G, R, A in
    /// memory on a little-endian machine, the usual X visual's BGRX). A framebuffer in
    /// this layout takes `coverPixels` and `prizePixels` with no conversion.
    #if _endian(little)
    public static let nativeLayout = PixelLayout.bgrx
    #else
    public static let nativeLayout = PixelLayout.xrgb
    #endif

    /// `cover(size:prompt:)`'s pixels, in `nativeLayout`: the same colours, drawn with no
    /// RGBA image made and converted (at 4K two passes over 33 MB fewer).
    public static func coverPixels(size: PixelSize, prompt: String? = nil) -> LayoutImage {
        Surface.drawingNative(size: size) { CoverDrawing(size: size, prompt: prompt).draw(on: $0) }
            ?? LayoutImage(size: size, layout: nativeLayout, filledWith: RGBA(r: 190, g: 194, b: 200))
    }

    /// Draws `cover(size:prompt:)` straight into `framebuffer` (of `nativeLayout`), the
    /// whole of it, opaque: the window's first frame with no image made, converted or
    /// composited. False, drawing nothing, when it cannot (another layout, a row stride
    /// cairo does not take, a side over cairo's limit).
    public static func drawCover(prompt: String? = nil, into framebuffer: Framebuffer) -> Bool {
        Surface.drawing(into: framebuffer) { CoverDrawing(size: framebuffer.size, prompt: prompt).draw(on: $0) }
    }

    /// `prize(size:text:background:)`'s pixels, in `nativeLayout`, as the canvas shows
    /// them (opaque: where an image background is translucent, its straight colour).
    public static func prizePixels(size: PixelSize, text: CardText? = nil, background: RGBAImage? = nil) -> LayoutImage {
        let drawing = PrizeDrawing(size: size, text: text ?? .builtInPrize, spaced: text == nil)
        return Surface.drawingNative(size: size) { drawing.draw(on: $0, background: background?.size == size ? background : nil) }
            ?? LayoutImage(size: size, layout: nativeLayout, filledWith: RGBA(r: 255, g: 162, b: 58))
    }

    /// Card units per device pixel at `size`: the largest scale at which the 640x400
    /// design fits.
    public static func unit(for size: PixelSize) -> Double {
        Swift.max(Swift.min(Double(size.width) / Double(designSize.width), Double(size.height) / Double(designSize.height)), 0.01)
    }

    /// The rounded frame's rectangle (the middle of its line) at `size`.
    public static func frame(for size: PixelSize) -> Box {
        let u = unit(for: size)
        return Box(x: 0, y: 0, width: Double(size.width), height: Double(size.height)).insetBy(15.5 * u, 15.5 * u)
    }

    /// The area a card's words may cover at `size`: inside the frame, with a margin.
    public static func textArea(for size: PixelSize) -> Box {
        let u = unit(for: size)
        return Box(x: 0, y: 0, width: Double(size.width), height: Double(size.height)).insetBy(44 * u, 38 * u)
    }

    /// How many characters of `text` (title and subtitle) no installed font can draw:
    /// Pango shows them as boxes. 0 means every character has a glyph.
    public static func unknownGlyphs(in text: CardText) -> Int {
        unknownGlyphs(inEach: [text.title, text.subtitle].compactMap { $0 }).reduce(0, +)
    }

    /// How many characters of a cover's prompt no installed font can draw.
    public static func unknownGlyphs(inPrompt prompt: String) -> Int {
        unknownGlyphs(inEach: [prompt])[0]
    }

    /// For each of `texts`, how many of its characters no installed font can draw; one
    /// layout for all of them (a deck may hold 10,000 cards).
    public static func unknownGlyphs(inEach texts: [String]) -> [Int] {
        guard let surface = Surface(size: PixelSize(width: 1, height: 1)),
              let layout = TextLayout(text: "", style: TextStyle(largestPixelSize: 40), on: surface) else {
            return texts.map { _ in 0 }
        }
        layout.set(pixelSize: 40, wrapWidth: 1e6)
        // The lock is taken per text: a 10,000-card deck's lookup (on a thread of its own)
        // must not hold up a card being drawn meanwhile.
        return texts.map { layout.unknownGlyphs(in: $0) }
    }

    /// Where a piece of text went on a drawn card, as Pango measured it.
    public struct PlacedText: Sendable {
        /// "title", "subtitle", "prompt" or "subline".
        public let role: String
        /// The card's text area (`textArea(for:)`): the text must lie inside it.
        public let area: Box
        /// Pango's ink and logical extents (pango_layout_get_pixel_extents), placed.
        public let ink: Box
        public let logical: Box
        /// All the drawing covers: the ink grown by its outline and shadow, and the logical box.
        public let drawn: Box
        /// The size it was set at, in device pixels, and its number of lines.
        public let pixelSize: Double
        public let lines: Int
    }

    /// The text of a prize or text card at `size`, laid out exactly as `prize` lays it out.
    public static func prizeLayout(size: PixelSize, text: CardText? = nil) -> [PlacedText] {
        guard let surface = Surface(size: PixelSize(width: 1, height: 1)) else { return [] }
        let (title, subtitle, _) = PrizeDrawing(size: size, text: text ?? .builtInPrize, spaced: text == nil).layout(on: surface)
        let area = textArea(for: size)
        return [title.map { placed("title", $0, area) }, subtitle.map { placed("subtitle", $0, area) }].compactMap { $0 }
    }

    /// The text of the cover at `size`, laid out exactly as `cover` lays it out.
    public static func coverLayout(size: PixelSize, prompt: String? = nil) -> [PlacedText] {
        guard let surface = Surface(size: PixelSize(width: 1, height: 1)) else { return [] }
        let (text, subline, _) = CoverDrawing(size: size, prompt: prompt).layout(on: surface)
        let area = textArea(for: size)
        return [text.map { placed("prompt", $0, area) }, subline.map { placed("subline", $0, area) }].compactMap { $0 }
    }

    private static func placed(_ role: String, _ text: FittedText, _ area: Box) -> PlacedText {
        PlacedText(role: role, area: area, ink: text.ink, logical: text.logical, drawn: text.drawn,
                   pixelSize: text.layout.pixelSize, lines: text.layout.lineCount)
    }
}
