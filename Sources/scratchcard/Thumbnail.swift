import CardThumbnail

/// `scratchcard thumbnail --size N IN OUT.png`: the card file's cover as a PNG, with no
/// display; the work is CardThumbnail's, shared with `scratchcard-thumbnailer`.
func writeThumbnail(size: Int, input: String, output: String) throws(ExitError) {
    do { try CardThumbnail.write(size: size, input: input, output: output) } catch {
        throw ExitError(code: 2, message: error.description)
    }
}
