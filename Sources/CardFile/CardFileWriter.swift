@preconcurrency import Glibc
import CardRules
import ScratchCore

/// Packs a deck into a card file: `mimetype` first and stored, then `card.json`
/// (deflated), then each image (stored as it is: it is compressed already) and sound
/// (deflated) the deck names, once each, under its own file name (a number before it
/// when two files share a name), and last the cover's preview when there is one
/// (`CardFile.previewEntry`; entries of the deck's files never hold a `/`, so it cannot
/// clash). The deck is written back with the entries' names, so the card file opens to
/// the same deck.
///
///     let bytes = try CardFileWriter.archive(deck: deck, settings: settings, files: FolderFiles(folder: "/cards"))
///     try CardFileWriter.write(bytes, to: "cards.scratchcard", force: false)
public enum CardFileWriter {
    /// The card file's bytes. `files` reads what the deck's cards name; `preview`, a JPEG
    /// of the built-in foil cover, goes in as `CardFile.previewEntry` (stored).
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
        var cards: [String] = []
        for card in deck.cards {
            var fields: [(String, String)] = [("id", JSONText.quoted(card.id))]
            if let prize = card.prize { fields.append(("prize", JSONText.quoted(try entry(prize, deflate: false)))) }
            if let cover = card.cover { fields.append(("cover", JSONText.quoted(try entry(cover, deflate: false)))) }
            if card.weight != 1 { fields.append(("weight", number(card.weight))) }
            switch card.sound {
            case .chime: break
            case .none: fields.append(("sound", "null"))
            case .file(let file): fields.append(("sound", JSONText.quoted(try entry(file, deflate: true))))
            }
            if !card.celebrate { fields.append(("celebrate", "false")) }
            if let text = card.text {
                fields.append(("text", JSONText.quoted(text.title)))
                if let subtitle = text.subtitle { fields.append(("subtitle", JSONText.quoted(subtitle))) }
                if let colour = text.colour { fields.append(("color", hex(colour))) }
                if let background = text.background { fields.append(("background", hex(background))) }
            }
            if let coverText = card.coverText { fields.append(("cover-text", JSONText.quoted(coverText))) }
            if let stock = card.stock { fields.append(("stock", String(stock))) }
            cards.append("    {" + fields.map { "\(JSONText.quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}")
        }
        var top: [String] = []
        if let reveal = settings.revealAtPercent { top.append("  \"reveal-at\": \(number(reveal))") }
        if let brush = settings.brushPoints { top.append("  \"brush\": \(number(brush))") }
        if let celebrate = settings.celebrate { top.append("  \"celebrate\": \(celebrate)") }
        top.append("  \"cards\": [\n" + cards.joined(separator: ",\n") + "\n  ]")
        let json = "{\n" + top.joined(separator: ",\n") + "\n}\n"

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

    /// A number as JSON: whole numbers without a fraction.
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    static func hex(_ colour: RGBA) -> String {
        let digits = [colour.r, colour.g, colour.b].map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }
        return JSONText.quoted("#" + digits.joined())
    }
}
