import Foundation
import Testing
@testable import CardFile
import CardRules
import ScratchCore

/// The card file fuzzer's seeds and regressions (Fuzz/cardfile), replayed as the target
/// reads them: as they are, and as a recipe for a well-formed container (FUZZING.md).
/// Each opens or is refused naming the file, quickly; what opens keeps the container's
/// promises; the seeds made by `scratchcard make` open.
@Suite("Card file fuzz corpus and regressions replayed")
struct CardFileFuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/cardfile")

    static func inputs(_ kind: String) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(kind).path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent(kind).appendingPathComponent($0) }
    }

    /// The target's recipe: NUL-separated names and contents after `mimetype` ("-" first: none).
    static func recipe(_ bytes: [UInt8]) -> [UInt8]? {
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
        let skipMimetype = parts.first == Array("-".utf8)
        var items = skipMimetype ? [] : [ZipItem(name: "mimetype", bytes: Array(CardContainer.mediaType.utf8), deflate: false)]
        var index = skipMimetype ? 1 : 0
        while index + 1 < parts.count, items.count < 64 {
            items.append(ZipItem(name: String(decoding: parts[index], as: UTF8.self), bytes: parts[index + 1],
                                 deflate: parts[index + 1].first == UInt8(ascii: "~")))
            index += 2
        }
        return try? ZipWriter.archive(items)
    }

    /// Opens or refuses; returns whether it opened.
    @discardableResult
    static func check(_ bytes: [UInt8]) -> Bool {
        do {
            let card = try CardFile.open(bytes: bytes, path: "fuzz.scratchcard")
            let names = card.container.names
            #expect(names.first == "mimetype" && Set(names).count == names.count && names.count <= CardContainer.maximumEntries)
            #expect(names.allSatisfy { CardContainer.nameProblem(Array($0.utf8)) == nil })
            for deckCard in card.deck.cards {
                for file in deckCard.files.map(\.file) {
                    #expect(card.entries.entryName(of: file).map(card.container.contains) == true)
                }
            }
            return true
        } catch {
            #expect(error.path.hasPrefix("fuzz.scratchcard") && !error.message.isEmpty)
            return false
        }
    }

    @Test("seeds: the made card files open, the recipes build containers", arguments: ["corpus", "regressions"])
    func replay(kind: String) throws {
        let inputs = Self.inputs(kind)
        #expect(kind == "regressions" || inputs.count >= 5)
        for input in inputs {
            let bytes = Array(try Data(contentsOf: input))
            let started = ContinuousClock.now
            let opened = Self.check(bytes)
            if input.pathExtension == "scratchcard" { #expect(opened, "\(input.lastPathComponent) does not open") }
            if let recipe = Self.recipe(bytes) { Self.check(recipe) }
            #expect(ContinuousClock.now - started < .seconds(2), "\(input.lastPathComponent) is slow")
        }
    }
}
