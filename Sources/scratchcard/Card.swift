import ScratchAssets
import ScratchCore
import ScratchImage

/// The two images of a card, as loaded: the built-in ones unless files are given.
struct CardImages {
    var cover: RGBAImage
    var prize: RGBAImage

    static func load(cover: String?, prize: String?) throws(ImageError) -> CardImages {
        CardImages(cover: try loadImage(cover, builtIn: ScratchAssets.coverURL?.path, what: "cover"),
                   prize: try loadImage(prize, builtIn: ScratchAssets.prizeURL?.path, what: "prize"))
    }

    private static func loadImage(_ path: String?, builtIn: String?, what: String) throws(ImageError) -> RGBAImage {
        if let path { return try PNGFile.read(path: path) }
        guard let builtIn else { throw ImageError(path: "built-in \(what)", problem: "missing from the installation") }
        return try PNGFile.read(path: builtIn)
    }

    /// Both images scaled to fill `size`, centred (a no-op at the same size).
    func filling(_ size: PixelSize) -> CardImages {
        CardImages(cover: cover.size == size ? cover : cover.scaledToFill(size),
                   prize: prize.size == size ? prize : prize.scaledToFill(size))
    }
}
