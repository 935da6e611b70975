@preconcurrency import Glibc
import CardRules
import ScratchCore

/// Packs a deck into a card file: `mimetype` first and stored, then `card.json`
/// (deflated), then each image (prizes, covers, zone symbols and decoys: stored as they
/// are, they are compressed already) and sound (deflated) the deck names, once each,
/// under its own file name (a number before it when two files share a name), and last
/// the cover's preview when there is one (`CardFile.previewEntry`; entries of the deck's
/// files never hold a `/`, so it cannot clash). The deck writes itself back
/// (`Deck.json`) with the entries' names, so the card file opens to
/// the same deck.
///
///     let bytes = try CardFileWriter.archive(deck: deck, settings: settings, files: FolderFiles(folder: "/cards"))
///     try CardFileWriter.write(bytes, to: "cards.scratchcard", force: false)
public enum CardFileWriter {
    /// The card file's bytes. `files` reads what the deck's cards name; `preview`, a JPEG
    /// of a drawn cover (the built-in foil, a ticket), goes in as `CardFile.previewEntry` (stored).
    public static func archive(deck: Deck, settings: CardSettings, files: any DeckFiles,
                               preview: [UInt8]? = nil) throws(FileError) -> [UInt8] {
        var entryOf: [String: String] = [:]         // file -> entry
        var taken: Set<String> = [CardContainer.deckEntry, "mimetype"]
        var items: [ZipItem] = []
        func entry(_ file: String, deflate: Bool) throws(FileError) -> String {
            if let name = entryOf[file] { return name }
            let base = file.split(separator: "/").last.map(String.init) ?? file
            var name = base, n = 1
            while taken.contains(name) { n += 1; name = "\(n)-\(base)" }
            taken.insert(name)
            entryOf[file] = name
            items.append(ZipItem(name: name, bytes: try files.bytes(of: file, limit: CardContainer.maximumEntryBytes), deflate: deflate))
            return name
        }
        // The deck writes itself (CardRules owns its format); each file it names becomes an
        // entry: images stored, sounds deflated.
        let json = try deck.json(settings: settings) { (file, kind) throws(FileError) in
            try entry(file, deflate: kind == .sound)
        }

        let head = [ZipItem(name: "mimetype", bytes: Array(CardContainer.mediaType.utf8), deflate: false),
                    ZipItem(name: CardContainer.deckEntry, bytes: Array(json.utf8), deflate: true)]
        let tail = preview.map { [ZipItem(name: CardFile.previewEntry, bytes: $0, deflate: false)] } ?? []
        do { return try ZipWriter.archive(head + items + tail) } catch {
            throw FileError(path: "card file", message: "cannot be packed: \(error.message)")
        }
    }

    /// Writes the bytes to `path` atomically (temp, fsync, rename); an existing file is
    /// replaced only with `force`.
    public static func write(_ bytes: [UInt8], to path: String, force: Bool) throws(FileError) {
        var info = stat()
        if !force && lstat(path, &info) == 0 {
            throw FileError(path: path, message: "already exists (use --force to replace it)")
        }
        try AtomicFile.write(bytes, to: path, mode: 0o644)
    }
}
