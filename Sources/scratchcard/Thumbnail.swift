import CardArt
import CardThumbnail
import ScratchCore

/// `scratchcard thumbnail --size N IN OUT.png`: the card file's cover as a PNG, with no
/// display; the work is CardThumbnail's, shared with `scratchcard-thumbnailer`. This one
/// can draw the built-in foil itself (CardArt), for a file without a stored preview or a
/// size beyond it.
func writeThumbnail(size: Int, input: String, output: String) throws(ExitError) {
    do { try CardThumbnail.write(size: size, input: input, output: output, drawFoil: drawFoil) } catch {
        throw ExitError(code: 2, message: error.description)
    }
}

/// The built-in foil with its words, `longerSide` pixels on its longer side.
func drawFoil(longerSide: Int, prompt: String?) -> RGBAImage {
    CardArt.cover(size: CardThumbnail.fitted(CardArt.designSize, longerSide: longerSide), prompt: prompt)
}
