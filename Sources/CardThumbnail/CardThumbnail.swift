@preconcurrency import Glibc
import CardFile
import CardRules
import ScratchCore
import ScratchImage

/// A card file's thumbnail: the cover of the card that stands for it, N pixels on its
/// longer side, drawn with no display. Only the cover is ever read: the prize's bytes
/// are not even decompressed. Shared by `scratchcard thumbnail` and
/// `scratchcard-thumbnailer`, the small program file managers run.
///
/// This room draws nothing itself, so it links no cairo or Pango: a cover image is
/// decoded (a JPEG at 1/2, 1/4 or 1/8 of its size straight away); a drawn cover (the
/// built-in foil, a ticket) is the preview `scratchcard make` stored in the file
/// (`CardFile.previewEntry`), or, when there is none (a file packed by hand), what the
/// caller's `CoverPainter` draws.
/// `scratchcard thumbnail` passes CardArt's; the thumbnailer has none and refuses such a
/// file, and the file manager shows the type's icon (BENCHMARKS.md, "Card files": what
/// loading the text stack costs a process that starts once a file).
public enum CardThumbnail {
    /// Why a thumbnail could not be written: the message names the file.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Draws the fresh cover of `card`, whose cover is no image (the built-in foil with
    /// its words, or a ticket's printed cover with its foil panels), `longerSide` pixels
    /// on its longer side.
    public typealias CoverPainter = (_ longerSide: Int, _ card: DeckCard) -> RGBAImage

    /// Writes the thumbnail of the card file at `input` to `output` as a PNG.
    ///
    /// OUT is written in place (opened, truncated, written), never by a rename: tumbler
    /// 4.18 opens the output before it runs the thumbnailer and reads the result through
    /// that descriptor, which a rename would leave on the old, empty file.
    public static func write(size: Int, input: String, output: String, drawCover: CoverPainter? = nil) throws(Failure) {
        let card: CardFile
        do { card = try CardFile.open(path: input) } catch { throw Failure(description: "\(error)") }
        let image = try thumbnail(of: card, longerSide: size, drawCover: drawCover)
        let png: [UInt8]
        do { png = try PNGFile.encodeFast(image) } catch { throw Failure(description: "\(error)") }
        try writeInPlace(png, to: output)
    }

    /// The cover of the card that stands for the file, `longerSide` pixels on its longer side.
    public static func thumbnail(of card: CardFile, longerSide: Int, drawCover: CoverPainter? = nil) throws(Failure) -> RGBAImage {
        let shown = CardFile.coverCard(of: card.deck)
        let path = card.container.path
        let entry: String
        if let cover = shown.cover {
            guard let name = card.entries.entryName(of: cover) else {
                throw Failure(description: "\(cover): is not an entry of \(path)")
            }
            entry = name
        } else {
            let preview = card.container.size(of: CardFile.previewEntry)
            // The preview is drawn at 640 pixels: larger thumbnails are drawn afresh when
            // a painter is at hand, the preview enlarged when not.
            if let drawCover, preview == nil || longerSide > max(CardFile.previewSize.width, CardFile.previewSize.height) {
                return drawCover(longerSide, shown)
            }
            guard preview != nil else {
                throw Failure(description: "\(path): its cover is drawn (the built-in foil or a ticket) and it has no \(CardFile.previewEntry) "
                              + "(scratchcard make writes one; scratchcard thumbnail draws the cover without it)")
            }
            entry = CardFile.previewEntry
        }
        do {
            let bytes = try card.container.bytes(of: entry, limit: CardContainer.maximumEntryBytes)
            let decoded = try ImageFile.decode(bytes, name: "\(path)/\(entry)", reducedTo: longerSide)
            let target = fitted(decoded.size, longerSide: longerSide)
            return decoded.size == target ? decoded : decoded.scaledToFill(target)
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    /// `size` scaled so that its longer side is `longerSide` (at least 1 pixel a side).
    public static func fitted(_ size: PixelSize, longerSide: Int) -> PixelSize {
        let scale = Double(longerSide) / Double(max(size.width, size.height))
        return PixelSize(width: max(1, Int((Double(size.width) * scale).rounded())),
                         height: max(1, Int((Double(size.height) * scale).rounded())))
    }

    /// Writes `bytes` into the file at `path` itself (created 0644 if missing): no
    /// temporary file, no rename, so a descriptor opened on it beforehand sees them.
    /// Not synced: a thumbnail is a cache the file manager checks (Thumb::MTime) and makes
    /// again, and a folder of a hundred files is not worth a hundred disk flushes.
    static func writeInPlace(_ bytes: [UInt8], to path: String) throws(Failure) {
        func fail(_ what: String) -> Failure { Failure(description: "\(path): \(what): \(String(cString: strerror(errno)))") }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fail("cannot write the thumbnail") }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let failure = fail("cannot write the thumbnail")
                close(fd)
                throw failure
            }
            done += n
        }
        // close reports what a delayed write could not do (a full disk on NFS, say).
        guard close(fd) == 0 else { throw fail("cannot write the thumbnail") }
    }
}
