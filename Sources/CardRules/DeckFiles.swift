import Foundation
import ScratchCore

/// Where a deck finds the files its entries name (prizes, covers, sounds): beside the
/// deck file on disk (`FolderFiles`), or among the entries of a card file (CardFile's
/// `CardFileEntries`). The deck keeps what `locate` gives; whoever shows a card asks the
/// same source for the bytes.
public protocol DeckFiles: Sendable {
    /// The file the deck names as `name` (relative to the deck): what a `DeckCard`
    /// keeps for it, and why it cannot be used, if it cannot ("does not exist").
    func locate(_ name: String) -> (file: String, problem: String?)
    /// The bytes of a file `locate` gave, at most `limit` of them; the error names the file.
    func bytes(of file: String, limit: Int) throws(FileError) -> [UInt8]
}

/// A deck file's neighbours on disk: names resolve against the deck file's folder.
public struct FolderFiles: DeckFiles {
    /// An absolute folder.
    public let folder: String

    public init(folder: String) { self.folder = folder }

    public func locate(_ name: String) -> (file: String, problem: String?) {
        let file = PathText.resolve(name, against: folder)
        return (file, Deck.isRegularFile(file) ? nil : Deck.problem(file))
    }

    public func bytes(of file: String, limit: Int) throws(FileError) -> [UInt8] {
        switch FileBytes.read(path: file, limit: limit) {
        case .success(let bytes): return bytes
        case .failure(.cannotOpen): throw FileError(path: file, message: "cannot read the file (missing or not accessible)")
        case .failure(.notRegular): throw FileError(path: file, message: "not a regular file")
        case .failure(.tooBig(let size)): throw FileError(path: file, message: "the file is \(size) bytes; the limit is \(limit)")
        case .failure(.cannotRead): throw FileError(path: file, message: "cannot read the file")
        }
    }
}

extension Deck {
    /// A card file's `card.json`: the deck (its files found through `files`) and the card
    /// options it sets. `path` names the document in errors.
    public static func parseCard(bytes: [UInt8], path: String, files: any DeckFiles) throws(DeckError) -> (deck: Deck, settings: CardSettings) {
        func fail(_ message: String) -> DeckError { DeckError(path: path, message: message) }
        let document = try JSONValue.parse(Data(bytes), limit: maximumFileBytes, what: "a card's card.json", fail: fail)
        guard case .object(var top) = document else { throw fail("card.json is a JSON object, not \(document.kindName)") }
        let settings = try CardSettings(taking: &top, fail: fail)
        return (try deck(from: .object(top), path: path, files: files), settings)
    }
}
