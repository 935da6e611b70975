import Dealing
import ScratchCore
import ScratchImage
import CardRules

/// `scratchcard render`: replays a trace with no display and writes the final card.
func render(_ options: RenderOptions) throws(ExitError) {
    let trace: Trace
    do { trace = try Trace.load(path: options.trace) } catch { throw ExitError(code: 2, message: "\(error)") }
    if let deck = options.deck, let id = options.card {
        // A ticket's prizes are its symbols: a --prize would go unused, so it is refused.
        if options.prize != nil { throw ExitError(code: 2, message: "render: --prize does not go with --deck and --card (a ticket shows its symbols)") }
        return try renderTicket(trace, deck: deck, card: id, cover: options.cover, out: options.out)
    }
    let images: FilledImages
    do { images = try CardImages.load(cover: options.cover, prize: options.prize).filling(trace.canvas) } catch {
        throw ExitError(code: error.exitCode, message: "\(error)")
    }
    let canvas: ScratchCanvas
    do {
        canvas = try ScratchCanvas(cover: images.cover, prize: images.prize, layout: .rgbx, brush: trace.initialBrush)
    } catch { throw ExitError(code: 2, message: "\(error)") }
    trace.replay(on: canvas)
    let framebuffer = Framebuffer(size: trace.canvas, layout: .rgbx)
    canvas.composite(PixelRect(size: trace.canvas), into: framebuffer)
    do { try PNGFile.write(framebuffer.rgbaImage(), to: options.out) } catch {
        throw ExitError(code: 1, message: "\(error)")
    }
}

/// `render --deck PATH --card ID`: the trace over a deck's zone card, as the window
/// plays it: zones started in the order the trace touches them, each showing its symbol,
/// the fades run to their end. `cover`: `--cover`, the artwork of a ticket without its own.
func renderTicket(_ trace: Trace, deck path: String, card id: String, cover: String?, out: String) throws(ExitError) {
    let dealer: Dealer
    do {
        dealer = try Dealer(options: Dealer.Options(deck: path, deckIsCardFile: false, cover: cover, prize: nil, coverText: nil, soldOutImage: nil))
    } catch { throw ExitError(code: 2, message: "\(error)") }
    guard let deck = dealer.deck else { throw ExitError(code: 2, message: "\(path): no deck") }
    guard let entry = deck.cards.first(where: { $0.id == id }) else {
        throw ExitError(code: 2, message: "\(path): no card with the id \(JSONText.quoted(id))")
    }
    guard entry.zoneCard != nil else { throw ExitError(code: 2, message: "\(path): card \(JSONText.quoted(id)) has no zones") }
    let dealt: DealtCard
    do { dealt = try dealer.dealtTicket(entry) } catch { throw ExitError(code: error.exitCode, message: "\(error)") }
    let art = dealt.zoneArt!
    let filled = dealt.images.filling(trace.canvas)
    let canvas: ScratchCanvas
    do { canvas = try ScratchCanvas(cover: filled.cover, prize: filled.prize, layout: .rgbx, brush: trace.initialBrush) } catch {
        throw ExitError(code: 2, message: "\(error)")
    }
    let play = ZonePlay(card: art.card, canvas: canvas, revealAt: 0.6) { shows, size in art.draw(shows, size: size) }
    trace.replay(on: canvas) { _ in _ = play.afterStroke(now: 0) }
    play.finishFades()
    let framebuffer = Framebuffer(size: trace.canvas, layout: .rgbx)
    canvas.composite(PixelRect(size: trace.canvas), into: framebuffer)
    do { try PNGFile.write(framebuffer.rgbaImage(), to: out) } catch {
        throw ExitError(code: 1, message: "\(error)")
    }
}

/// Ends the program with a message on stderr and an exit code.
struct ExitError: Error {
    let code: Int32
    let message: String
}
