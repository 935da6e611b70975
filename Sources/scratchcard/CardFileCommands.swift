@preconcurrency import Glibc
import Dealing
import CardArt
import CardFile
import CardRules
import ScratchCore
import ScratchImage

/// Runs `make`, `make-from` (MakeFromPicture.swift), `info` or `thumbnail` (CardFileOptions.swift reads them).
func runCardFileCommand(_ command: CardFileCommand) throws(ExitError) {
    switch command {
    case .make(let options): try makeCardFile(options)
    case .info(let path, let showPrizes): try printInfo(path: path, showPrizes: showPrizes)
    case .thumbnail(let size, let input, let output): try writeThumbnail(size: size, input: input, output: output)
    case .makeFrom(let picture, let open): try makeFromPicture(picture, open: open)
    }
}

/// Opens a card file for a command; a bad one is exit 2 naming the file and the entry.
func openCardFile(_ path: String) throws(ExitError) -> CardFile {
    do { return try CardFile.open(path: path) } catch { throw ExitError(code: 2, message: "\(error)") }
}

/// `scratchcard make`: the deck (or the one card of the options) checked as the window
/// would check it, packed, opened again from the bytes, written atomically.
func makeCardFile(_ options: MakeOptions) throws(ExitError) {
    func bad(_ error: some Error) -> ExitError { ExitError(code: 2, message: "\(error)") }
    let deck: Deck
    var files: any DeckFiles = FolderFiles(folder: "/")
    var source = CardSource.disk
    var settings = options.settings
    if let path = options.deck {
        let loaded: LoadedDeck
        do { loaded = try LoadedDeck.load(path: path) } catch { throw bad(error) }
        deck = loaded.deck
        source = loaded.source
        if let entries = loaded.cardFile?.entries { files = entries }
        settings.revealAtPercent = settings.revealAtPercent ?? loaded.settings.revealAtPercent
        settings.brushPoints = settings.brushPoints ?? loaded.settings.brushPoints
        settings.celebrate = settings.celebrate ?? loaded.settings.celebrate
    } else {
        guard options.prize != nil || options.text != nil else {
            throw ExitError(code: 2, message: "make needs --prize FILE, --text TEXT or --deck PATH")
        }
        let text = options.text.map { CardText(title: $0, subtitle: options.subtitle) }
        let id = options.prize.map(fileStem) ?? "card"
        deck = Deck(cards: [DeckCard(id: id.isEmpty ? "card" : id, prize: options.prize, cover: options.cover,
                                     text: text, coverText: options.coverText)])!
    }
    // What the window would check when it deals: every image and sound decodes.
    var checked = Set<String>()
    for card in deck.cards {
        for (file, kind) in card.files where checked.insert(file).inserted {
            switch kind {
            case .image: do { _ = try source.image(file) } catch { throw bad(error) }
            case .sound: do { _ = try source.sound(file) } catch { throw bad(error) }
            }
        }
    }
    let bytes: [UInt8]
    do {
        bytes = try CardFileWriter.archive(deck: deck, settings: settings, files: files, preview: try coverPreview(of: deck))
        _ = try CardFile.open(bytes: bytes, path: options.out)       // a card file make writes always opens
        try CardFileWriter.write(bytes, to: options.out, force: options.force)
    } catch { throw bad(error) }
    print(options.out)
}

/// The picture of the file's cover a thumbnailer shows when that cover is drawn (the
/// built-in foil, a ticket's printed cover): drawn here, so that the thumbnailer need not
/// load a text stack; nil when the cover is an image, which the thumbnailer decodes itself.
func coverPreview(of deck: Deck) throws(ImageError) -> [UInt8]? {
    let shown = CardFile.coverCard(of: deck)
    guard shown.cover == nil else { return nil }
    return try JPEGFile.encode(freshCover(of: shown, size: CardFile.previewSize), quality: 92)
}

/// `scratchcard info`: what the file holds, the prizes only with `showPrizes`.
func printInfo(path: String, showPrizes: Bool) throws(ExitError) {
    let card = try openCardFile(path)
    let cards = card.deck.cards
    let entries = card.entries
    func entry(_ file: String) -> String { JSONText.quoted(entries.entryName(of: file) ?? file) }
    print("\(path): a scratch card file, \(card.container.fileBytes) bytes, \(card.container.names.count) entries")
    print("cards: \(cards.count)")
    if let first = cards.first {
        if let cover = first.cover {
            do {
                let image = try CardSource(entries: entries).image(cover)
                print("card size: \(image.width)x\(image.height) (the first card's cover)")
            } catch { throw ExitError(code: 2, message: "\(error)") }
        } else {
            print("card size: \(CardArt.designSize.width)x\(CardArt.designSize.height) (the built-in card, scaled to the window)")
        }
        let prompts = Set(cards.map { $0.coverText ?? "" })
        if prompts.count == 1, let prompt = first.coverText { print("cover text: \(JSONText.quoted(prompt))") }
    }
    let settings = card.settings
    if let reveal = settings.revealAtPercent { print("reveal at: \(JSONText.number(reveal))%") }
    if let brush = settings.brushPoints { print("brush: \(JSONText.number(brush)) pt") }
    if let celebrate = settings.celebrate { print("celebrate: \(celebrate ? "on" : "off")") }
    for (index, card) in cards.enumerated() {
        var parts = ["card \(index + 1):"]
        if showPrizes { parts.append("id \(JSONText.quoted(card.id)),") }
        parts.append(card.cover.map { "cover \(entry($0))" } ?? "built-in foil")
        if let prompt = card.coverText { parts.append("with \(JSONText.quoted(prompt))") }
        parts[parts.count - 1] += ","
        parts.append("weight \(JSONText.number(card.weight))")
        if let stock = card.stock { parts.append("stock \(stock)") }
        if let zones = card.zoneCard {
            parts[parts.count - 1] += ","
            parts.append("\(zones.zones.count) zones" + (zones.pick.map { " (pick \($0))" } ?? ""))
        }
        if showPrizes {
            parts[parts.count - 1] += ";"
            if let prize = card.prize { parts.append("prize \(entry(prize))") }
            if let text = card.text {
                parts.append("text \(JSONText.quoted(text.title))")
                if let subtitle = text.subtitle { parts.append("subtitle \(JSONText.quoted(subtitle))") }
            }
            if case .file(let sound) = card.sound { parts.append("sound \(entry(sound))") }
            if let zones = card.zoneCard {
                func list(_ symbols: [ZoneSymbol]) -> String {
                    "[" + symbols.map { symbol in
                        switch symbol {
                        case .image(let file): entry(file)
                        case .text(let words, _): JSONText.quoted(words)
                        }
                    }.joined(separator: ", ") + "]"
                }
                parts.append("symbols \(list(zones.symbols))")
                if !zones.decoys.isEmpty { parts.append("decoys \(list(zones.decoys))") }
            }
            if card.claim { parts.append("with a claim code") }
        }
        print(parts.joined(separator: " "))
    }
    if !showPrizes { print("(prizes hidden: --show-prizes shows them)") }
}
