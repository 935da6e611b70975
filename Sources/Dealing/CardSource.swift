import CardFile
import CardRules
import ScratchCore
import ScratchImage
import ScratchSound

/// Where a card's images and sounds are read from: files on disk, or, for a deck that
/// came in a card file, that file's entries (the paths its deck keeps start with the
/// card file's path). A path that is not an entry (`--cover` beside a card file, say)
/// is read from disk.
public struct CardSource: Sendable {
    /// Files on disk only.
    public static let disk = CardSource(entries: nil)

    public let entries: CardFileEntries?

    public init(entries: CardFileEntries?) {
        self.entries = entries
    }

    public func image(_ path: String) throws(ImageError) -> RGBAImage {
        guard let entries, entries.entryName(of: path) != nil else { return try ImageFile.read(path: path) }
        let bytes: [UInt8]
        do { bytes = try entries.bytes(of: path, limit: CardContainer.maximumEntryBytes) } catch {
            throw ImageError(path: error.path, problem: error.message)
        }
        return try ImageFile.decode(bytes, name: path)
    }

    public func sound(_ path: String) throws(WAVError) -> SoundClip {
        guard let entries, entries.entryName(of: path) != nil else { return try WAVFile.load(path: path) }
        let bytes: [UInt8]
        do { bytes = try entries.bytes(of: path, limit: WAVFile.maximumFileBytes) } catch {
            throw WAVError(path: error.path, message: error.message)
        }
        return try WAVFile.decode(bytes, path: path)
    }
}

/// A deck as the commands load it: a folder of images, a JSON deck file, or a card file
/// (told by its first bytes or its `.scratchcard` name), with where its files are read
/// from and the card options a card file sets.
public struct LoadedDeck: Sendable {
    public let deck: Deck
    public let source: CardSource
    public let settings: CardSettings
    /// The card file, when the deck came in one.
    public let cardFile: CardFile?

    /// `asCardFile`: the path must be a card file (`scratchcard FILE`), whatever its name.
    public static func load(path: String, asCardFile: Bool = false) throws(DeckError) -> LoadedDeck {
        guard asCardFile || isCardFile(path) else {
            return LoadedDeck(deck: try Deck.load(path: path), source: .disk, settings: CardSettings(), cardFile: nil)
        }
        let card = try CardFile.open(path: path)
        return LoadedDeck(deck: card.deck, source: CardSource(entries: card.entries), settings: card.settings, cardFile: card)
    }

    /// True for a path named `*.scratchcard` (any case) or a file that starts as one.
    public static func isCardFile(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".scratchcard") || CardFile.looksLikeCardFile(path: path)
    }
}
