import Dealing
import CardArt
import CardRules
import CardThumbnail
import ScratchCore

/// `scratchcard thumbnail --size N IN OUT.png`: the card file's cover as a PNG, with no
/// display; the work is CardThumbnail's, shared with `scratchcard-thumbnailer`. This one
/// draws a cover that is no image (the built-in foil, a ticket) itself, with CardArt,
/// for a file without a stored preview or a size beyond it.
func writeThumbnail(size: Int, input: String, output: String) throws(ExitError) {
    do { try CardThumbnail.write(size: size, input: input, output: output, drawCover: drawCover) } catch {
        throw ExitError(code: 2, message: error.description)
    }
}

/// The fresh cover of a card with no cover image, `longerSide` pixels on its longer side:
/// what the window shows before a scratch.
func drawCover(longerSide: Int, card: DeckCard) -> RGBAImage {
    freshCover(of: card, size: CardThumbnail.fitted(CardArt.designSize, longerSide: longerSide))
}

/// A card's cover when it has no image, drawn as the window draws it (the same layer): a
/// ticket's printed cover with its foil panels, else the built-in foil with the words.
func freshCover(of card: DeckCard, size: PixelSize) -> RGBAImage {
    let layer = card.zoneCard.map { CardLayer.ticket($0, header: card.coverText, artwork: nil, foil: true) } ?? .builtInCover(prompt: card.coverText)
    return layer.rendered(at: size)
}
