import CardFile
import CardRules
import ScratchCore
import ScratchImage
import ScratchSound

/// Where a card's images and sounds are read from: files on disk, or, for a deck that
/// came in a card file, that file's entries (the paths its deck keeps start with the
/// card file's path). A path that is not an entry (`--cover` beside a card file, say)
/// is read from disk.
struct CardSource: Sendable {
    /// Files on disk only.
    static let disk = CardSource(entries: nil)

    let entries: CardFileEntries?

    func image(_ path: String) throws(ImageError) -> RGBAImage {
        guard let entries, entries.entryName(of: path) != nil else { return try ImageFile.read(path: path) }
        let bytes: [UInt8]
        do { bytes = try entries.bytes(of: path, limit: CardContainer.maximumEntryBytes) } catch {
            throw ImageError(path: error.path, problem: error.message)
        }
        return try ImageFile.decode(bytes, name: path)
    }

    func sound(_ path: String) throws(WAVError) -> SoundClip {
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
struct LoadedDeck: Sendable {
    let deck: Deck
    let source: CardSource
    let settings: CardSettings
    /// The card file, when the deck came in one.
    let cardFile: CardFile?

    /// `asCardFile`: the path must be a card file (`scratchcard FILE`), whatever its name.
    static func load(path: String, asCardFile: Bool = false) throws(DeckError) -> LoadedDeck {
        guard asCardFile || isCardFile(path) else {
            return LoadedDeck(deck: try Deck.load(path: path), source: .disk, settings: CardSettings(), cardFile: nil)
        }
        let card = try CardFile.open(path: path)
        return LoadedDeck(deck: card.deck, source: CardSource(entries: card.entries), settings: card.settings, cardFile: card)
    }

    /// True for a path named `*.scratchcard` (any case) or a file that starts as one.
    static func isCardFile(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".scratchcard") || CardFile.looksLikeCardFile(path: path)
    }
}

extension WindowOptions {
    /// The options with a card file's own settings where the command line (or the
    /// configuration file) left the default.
    func applying(_ settings: CardSettings) -> WindowOptions {
        var options = self
        let defaults = WindowOptions()
        if let reveal = settings.revealAtPercent, revealAtPercent == defaults.revealAtPercent { options.revealAtPercent = reveal }
        if let brush = settings.brushPoints, brushPoints == defaults.brushPoints { options.brushPoints = brush }
        if let celebrate = settings.celebrate, self.celebrate == defaults.celebrate { options.celebrate = celebrate }
        return options
    }
}
