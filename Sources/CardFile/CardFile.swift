@preconcurrency import Glibc
import CardRules
import ScratchCore

/// A scratch card (or a deck of them) in one `.scratchcard` file: the container, the deck
/// its `card.json` describes, and the card options it sets. Opening it checks the
/// container (`CardContainer`), parses `card.json` and finds every image and sound it
/// names among the entries; nothing large is read until a card is dealt.
///
///     let card = try CardFile.open(path: "baby.scratchcard")
///     let prize = try card.entries.bytes(of: card.deck.cards[0].prize!, limit: 256 << 20)
public struct CardFile: Sendable {
    public let container: CardContainer
    public let deck: Deck
    public let settings: CardSettings

    /// The entries as the deck's files: what the deck's cards name.
    public var entries: CardFileEntries { CardFileEntries(container: container) }

    /// Reads and checks the file at `path`; the error names the file and the entry.
    public static func open(path: String) throws(FileError) -> CardFile {
        try open(CardContainer.read(path: path))
    }

    /// A card file from its bytes; `path` names it in errors.
    public static func open(bytes: [UInt8], path: String) throws(FileError) -> CardFile {
        try open(CardContainer(bytes: bytes, path: path))
    }

    static func open(_ container: CardContainer) throws(FileError) -> CardFile {
        let json = try container.bytes(of: CardContainer.deckEntry, limit: Deck.maximumFileBytes)
        let entries = CardFileEntries(container: container)
        let (deck, settings) = try Deck.parseCard(bytes: json, path: "\(container.path): \(CardContainer.deckEntry)", files: entries)
        return CardFile(container: container, deck: deck, settings: settings)
    }

    /// The entry holding a picture of the file's cover when that cover is drawn (the
    /// built-in foil with its words, a ticket's printed cover): a JPEG of `previewSize`,
    /// drawn by `scratchcard make` as the window draws it (OpenDocument keeps its
    /// picture in `Thumbnails/` too). A thumbnailer shows it without drawing text, so it
    /// needs neither cairo nor Pango; a cover image is decoded instead and this is unused.
    public static let previewEntry = "Thumbnails/cover.jpg"
    /// The preview's size: the built-in card's design (640x400), large enough for a
    /// file manager's x-large (512-pixel) thumbnails.
    public static let previewSize = PixelSize(width: 640, height: 400)

    /// The card whose cover stands for the file (thumbnails, the preview): the first
    /// that can be dealt, else the first.
    public static func coverCard(of deck: Deck) -> DeckCard {
        deck.cards.first(where: { $0.weight > 0 }) ?? deck.cards[0]
    }

    /// True when the file starts as a card file does (a zip's local header whose first
    /// entry is named `mimetype`): how a path given where a deck goes is told apart
    /// from a deck file or folder. Reads 38 bytes.
    public static func looksLikeCardFile(path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 38)
        let n = head.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, 38) }
        return n == 38 && head.starts(with: [0x50, 0x4B, 0x03, 0x04]) && head[30...] == ArraySlice("mimetype".utf8)
    }
}

/// A card file's entries as a deck's files. A file the deck keeps is the card file's
/// path, a slash and the entry's name (`baby.scratchcard/images/prize.jpg`), so logs and
/// the store name it plainly and it is never mistaken for a file on disk beside it.
public struct CardFileEntries: DeckFiles {
    public let container: CardContainer

    public init(container: CardContainer) { self.container = container }

    public func locate(_ name: String) -> (file: String, problem: String?) {
        // "./a.png" and "a.png" are one entry; anything else must be a plain entry name.
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).filter { $0 != "." }
        let entry = parts.joined(separator: "/")
        let file = container.path + "/" + entry
        if let problem = CardContainer.nameProblem(Array(entry.utf8)) { return (file, "is not an entry name: it \(problem)") }
        return (file, container.contains(entry) ? nil : "is not in the card file")
    }

    /// The entry a located file names, or nil for a file that is not one of this card file's.
    public func entryName(of file: String) -> String? {
        let prefix = container.path + "/"
        guard file.hasPrefix(prefix) else { return nil }
        return String(file.dropFirst(prefix.count))
    }

    public func bytes(of file: String, limit: Int) throws(FileError) -> [UInt8] {
        guard let name = entryName(of: file) else {
            throw FileError(path: file, message: "is not an entry of \(container.path)")
        }
        return try container.bytes(of: name, limit: limit)
    }
}
