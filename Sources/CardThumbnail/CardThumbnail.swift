@preconcurrency import Glibc
import CardArt
import CardFile
import CardRules
import ScratchCore
import ScratchImage

/// A card file's thumbnail: the first card's cover (its image, or the built-in foil with
/// its words) N pixels on its longer side, drawn with no display. Only the cover is ever
/// read: the prize's bytes are not even decompressed. Shared by `scratchcard thumbnail`
/// and `scratchcard-thumbnailer`, the small program file managers run (it links only
/// what a thumbnail needs, so it starts faster than the whole viewer).
public enum CardThumbnail {
    /// Why a thumbnail could not be written: the message names the file.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes the thumbnail of the card file at `input` to `output` as a PNG.
    ///
    /// OUT is written in place (opened, truncated, written, fsynced), never by a rename:
    /// tumbler 4.18 opens the output before it runs the thumbnailer and reads the result
    /// through that descriptor, which a rename would leave on the old, empty file.
    public static func write(size: Int, input: String, output: String) throws(Failure) {
        let card: CardFile
        do { card = try CardFile.open(path: input) } catch { throw Failure(description: "\(error)") }
        let image: RGBAImage
        do { image = try thumbnail(of: card, longerSide: size) } catch { throw Failure(description: "\(error)") }
        let png: [UInt8]
        do { png = try PNGFile.encodeFast(image) } catch { throw Failure(description: "\(error)") }
        try writeInPlace(png, to: output)
    }

    /// The cover of the card a file manager shows: the first that can be dealt.
    public static func thumbnail(of card: CardFile, longerSide: Int) throws(ImageError) -> RGBAImage {
        let cards = card.deck.cards
        let shown = cards.first(where: { $0.weight > 0 }) ?? cards[0]
        guard let cover = shown.cover else {
            return CardArt.cover(size: fitted(CardArt.designSize, longerSide: longerSide), prompt: shown.coverText)
        }
        let bytes: [UInt8]
        do { bytes = try card.entries.bytes(of: cover, limit: CardContainer.maximumEntryBytes) } catch {
            throw ImageError(path: error.path, problem: error.message)
        }
        let decoded = try ImageFile.decode(bytes, name: cover, reducedTo: longerSide)
        let target = fitted(decoded.size, longerSide: longerSide)
        return decoded.size == target ? decoded : decoded.scaledToFill(target)
    }

    /// `size` scaled so that its longer side is `longerSide` (at least 1 pixel a side).
    public static func fitted(_ size: PixelSize, longerSide: Int) -> PixelSize {
        let scale = Double(longerSide) / Double(max(size.width, size.height))
        return PixelSize(width: max(1, Int((Double(size.width) * scale).rounded())),
                         height: max(1, Int((Double(size.height) * scale).rounded())))
    }

    /// Writes `bytes` into the file at `path` itself (created 0644 if missing): no
    /// temporary file, no rename, so a descriptor opened on it beforehand sees them.
    static func writeInPlace(_ bytes: [UInt8], to path: String) throws(Failure) {
        func fail(_ what: String) -> Failure { Failure(description: "\(path): \(what): \(String(cString: strerror(errno)))") }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fail("cannot write the thumbnail") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 { if errno == EINTR { continue }; throw fail("cannot write the thumbnail") }
            done += n
        }
        guard fsync(fd) == 0 else { throw fail("cannot write the thumbnail") }
    }
}
