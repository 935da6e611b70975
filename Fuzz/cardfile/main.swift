// libFuzzer target: card files (CardFile.open(bytes:path:)), with the deck parser and the
// image decoders behind it. Built by scripts/fuzz.sh cardfile; see FUZZING.md. Compiled
// into one module with Sources/CardFile and Sources/ScratchImage, so internal names are
// visible.
//
// libzip is not instrumented and most blind mutations of a zip die at a CRC or an
// offset, so each input is tried twice: as it is (the container's checks on whatever
// libzip accepts), and as a recipe for a well-formed container (ZipWriter): the input
// split at NUL bytes into name, content, name, content... with `mimetype` first, so
// mutations reach the entry checks, card.json and the entries it names.
import CardRules
import ScratchCore

let cardPath = "fuzz.scratchcard"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCardFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    check(bytes)
    if let recipe = containerRecipe(bytes) { check(recipe) }
    return 0
}

/// A container made from the input: `mimetype` (unless the input's first name is
/// "-", to test its absence), then the input's NUL-separated name and content pairs; a
/// content starting with "~" is deflated.
func containerRecipe(_ bytes: [UInt8]) -> [UInt8]? {
    let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
    var items: [ZipItem] = []
    if parts.first != Array("-".utf8) {
        items.append(ZipItem(name: "mimetype", bytes: Array(CardContainer.mediaType.utf8), deflate: false))
    }
    var index = parts.first == Array("-".utf8) ? 1 : 0
    while index + 1 < parts.count, items.count < 64 {
        let name = String(decoding: parts[index], as: UTF8.self), content = parts[index + 1]
        items.append(ZipItem(name: name, bytes: content, deflate: content.first == UInt8(ascii: "~")))
        index += 2
    }
    return try? ZipWriter.archive(items)
}

func check(_ bytes: [UInt8]) {
    let card: CardFile
    do {
        card = try CardFile.open(bytes: bytes, path: cardPath)
    } catch {
        precondition(error.path.hasPrefix(cardPath) && !error.message.isEmpty, "a refusal that names nothing")
        return
    }
    // What callers rely on: a container within its limits, plain unique names, the
    // signature first, a deck whose every file is an entry.
    let names = card.container.names
    precondition(names.count <= CardContainer.maximumEntries && names.first == "mimetype")
    precondition(Set(names).count == names.count, "duplicate entries accepted")
    for name in names { precondition(CardContainer.nameProblem(Array(name.utf8)) == nil, "a bad name accepted: \(name)") }
    precondition(card.container.contains(CardContainer.deckEntry))
    let deck = card.deck
    precondition(!deck.cards.isEmpty && deck.totalWeight > 0 && deck.totalWeight.isFinite)
    precondition(Set(deck.cards.map(\.id)).count == deck.cards.count, "duplicate ids")
    var decoded = 0
    for deckCard in deck.cards {
        // Every file it names: prize, cover, sound, zone symbols and decoys.
        for file in deckCard.files.map(\.file) {
            let entry = card.entries.entryName(of: file)
            precondition(entry.map(card.container.contains) == true, "a deck file outside the container: \(file)")
            // The entries behind it: read (bounded by what is there), a few decoded as images.
            guard decoded < 4, let content = try? card.entries.bytes(of: file, limit: 1 << 20) else { continue }
            precondition(content.count == card.container.size(of: entry!))
            decoded += 1
            decodeImage(content, name: file)
        }
    }
    // The built-in foil's stored picture, as the thumbnailer reads it (at a reduced scale).
    if let preview = try? card.container.bytes(of: CardFile.previewEntry, limit: 1 << 20) {
        precondition(preview.count == card.container.size(of: CardFile.previewEntry))
        decodeImage(preview, name: CardFile.previewEntry)
    }
}

/// The image decoders a dealt card meets, with the pixel limit lowered to stay fast.
func decodeImage(_ bytes: [UInt8], name: String) {
    do {
        let image: RGBAImage
        switch ImageFormat(signatureOf: bytes) {
        case .png: image = try PNGFile.decode(bytes, name: name)
        case .jpeg: image = try JPEGFile.decode(bytes, name: name, maxPixels: 1 << 22, reducedTo: bytes.count % 2 == 0 ? 64 : nil)
        case .webp: image = try WebPFile.decode(bytes, name: name, maxPixels: 1 << 22)
        case nil: return
        }
        precondition(image.width >= 1 && image.height >= 1 && image.bytes.count == image.width * image.height * 4)
    } catch {
        precondition(error.path == name && !error.problem.isEmpty)
    }
}
