import Foundation
@testable import CardRules
import ScratchCore
import Testing

/// The rules' fuzzers' inputs (config, deck; strokes in StrokeLogTests), replayed by the
/// normal suite (FUZZING.md): every seed in `Fuzz/<target>/corpus` and every crashing, slow
/// or memory-hungry input kept in `Fuzz/<target>/regressions`. Each must be accepted or
/// refused with a message, never crash, and quickly. The checks are the fuzz targets' own (Fuzz/<target>/main.swift).
@Suite("Rules fuzz corpora and regressions replayed")
struct FuzzRegressionTests {
    /// The repository's Fuzz folder, found from this file's path.
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The files of `Fuzz/<target>/<kind>`, sorted; none when the folder is missing.
    static func inputs(_ target: String, _ kind: String) -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(target).appendingPathComponent(kind)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// The longest one input may take in a debug build; the fuzzers' timeout is 5 s.
    static let budget = Duration.seconds(2)

    static let configSchema: [String: ConfigValueKind] = [
        "cover": .path, "prize": .path, "brush": .number, "scale": .number, "size": .string,
        "no-shm": .flag, "title": .string, "display": .string, "record": .path, "stats": .flag,
        "verbose": .flag, "reveal-at": .number, "deck": .path, "snapshot-dir": .path, "events": .flag,
    ]

    @Test("configuration files: tokens or an error naming the file, quickly", arguments: ["corpus", "regressions"])
    func configs(kind: String) throws {
        for file in Self.inputs("config", kind) {
            let bytes = try Data(contentsOf: file)
            let elapsed = try ContinuousClock().measure {
                do {
                    let tokens = try ConfigFile.arguments(bytes: bytes, path: "/fuzz/config.json", schema: Self.configSchema)
                    var i = 0
                    while i < tokens.count {
                        let kind = try #require(Self.configSchema[String(tokens[i].dropFirst(2))])
                        i += kind == .flag ? 1 : 2
                    }
                    #expect(i == tokens.count)
                } catch let error as ConfigError {
                    #expect(error.path == "/fuzz/config.json" && !error.message.isEmpty)
                }
            }
            #expect(elapsed < Self.budget, "\(file.lastPathComponent) took \(elapsed)")
            // The file-reading path agrees with the bytes path.
            let viaFile = Result { () throws(ConfigError) in try ConfigFile.arguments(path: file.path, schema: Self.configSchema) }
            let viaBytes = Result { () throws(ConfigError) in
                try ConfigFile.arguments(bytes: bytes, path: file.path, schema: Self.configSchema)
            }
            #expect(viaFile == viaBytes, "\(file.lastPathComponent)")
        }
    }

    @Test("deck files: a deck or an error naming the file, quickly", arguments: ["corpus", "regressions"])
    func decks(kind: String) throws {
        // The images the fuzzer's decks name (scripts/fuzz.sh prepares the same).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-deck-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder.png"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = try Data(contentsOf: Self.fuzzFolder.appendingPathComponent("png/corpus/gray8-3x2.png"))
        for name in ["a.png", "b.png", "cover.png"] { try png.write(to: folder.appendingPathComponent(name)) }
        try Data(contentsOf: Self.fuzzFolder.appendingPathComponent("wav/corpus/u8-mono-8k.wav"))
            .write(to: folder.appendingPathComponent("fanfare.wav"))
        let deckPath = folder.appendingPathComponent("deck.json").path

        for file in Self.inputs("deck", kind) {
            let bytes = try Data(contentsOf: file)
            let elapsed = ContinuousClock().measure {
                do {
                    let deck = try Deck.parse(bytes: bytes, path: deckPath)
                    #expect(!deck.cards.isEmpty && deck.cards.count <= Deck.maximumCards)
                    #expect(deck.totalWeight > 0 && deck.totalWeight.isFinite)
                    #expect(Set(deck.cards.map(\.id)).count == deck.cards.count)
                    var rng = Constant(value: 0x8000_0000_0000_0000)
                    #expect(deck.draw(using: &rng).weight > 0)
                    // Written back (as `make` packs it), it reads the same.
                    let written = deck.json()
                    #expect((try? Deck.parse(bytes: Data(written.utf8), path: deckPath)) == deck, "\(file.lastPathComponent):\n\(written)")
                } catch let error as DeckError {
                    #expect(error.path == deckPath && !error.message.isEmpty)
                } catch {
                    Issue.record(error)
                }
            }
            #expect(elapsed < Self.budget, "\(file.lastPathComponent) took \(elapsed)")
        }
    }
}
