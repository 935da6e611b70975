import CardRules
import Foundation
import ScratchCore
@testable import ScratchStore
import Testing

/// The store fuzzer's seeds and kept inputs (Fuzz/store: SQLite files), replayed as the
/// fuzz target does (Fuzz/store/main.swift): each opened by a reader and by the kiosk,
/// refused with a message naming the file, or read back consistently.
@Suite("Store fuzz corpus and regressions replayed")
struct StoreFuzzRegressionTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/store")

    static func inputs(_ kind: String) -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(kind)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test("the seeds: valid stores of each kind, and stores the kiosk must refuse")
    func seedsAreWhatTheySay() throws {
        let names = Self.inputs("corpus").map(\.lastPathComponent)
        #expect(names.count >= 6, "\(names)")
        #expect(Self.inputs("regressions").count >= 1)
        // A schema-5 store with a ticket's picks read, one with none, one damaged.
        let picks = try KioskStore(path: Self.fuzzFolder.appendingPathComponent("corpus/picks-v5.db").path, access: .read)
        let (records, unreadable) = try picks.readOutcomes()
        #expect(records.map(\.picks) == [[ZonePick(zone: 4, symbol: "☕"), ZonePick(zone: 0, symbol: "lemon.png"), ZonePick(zone: 8, symbol: "☕")],
                                          [ZonePick(zone: 2, symbol: "☕")], nil, nil])
        #expect(unreadable == 1)
        #expect(try picks.pendingDeals() == [DealID("t4")])
    }

    @Test("each file: refused naming it, or read back consistently", arguments: ["corpus", "regressions"])
    func replayed(kind: String) throws {
        var opened: [String] = [], refused: [String] = []
        for file in Self.inputs(kind) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-fuzz-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("kiosk.db").path
            try FileManager.default.copyItem(atPath: file.path, toPath: path)
            do {
                let store = try KioskStore(path: path, access: .kiosk)
                let counts = try store.dealtCounts()
                let deals = try store.dealsWithOutcomeCounts()
                var perCard: [String: Int] = [:]
                for deal in deals { perCard[deal.card, default: 0] += 1 }
                #expect(perCard == counts, "\(file.lastPathComponent): counted \(counts), listed \(perCard)")
                #expect(try store.stockReport(deck: nil).reduce(0) { $0 + $1.dealt } == deals.count)
                let pending = try store.pendingDeals()
                #expect((try store.pendingDeal() == nil) == pending.isEmpty)
                opened.append(file.lastPathComponent)
            } catch {
                #expect(error.path == path && !error.message.isEmpty, "\(file.lastPathComponent): \(error)")
                refused.append(file.lastPathComponent)
            }
        }
        if kind == "corpus" {
            #expect(opened.sorted() == ["dealt-v1.db", "empty-v1.db", "picks-v5.db", "wrong-types-v1.db"], "opened \(opened), refused \(refused)")
        } else {
            // A page damaged so that an index disagrees with its table: quick_check passes
            // it, the kiosk's integrity_check must not.
            #expect(refused.contains("index-disagrees-with-table.db"), "opened \(opened)")
            // A CHECK on the outcomes altered (a damaged sqlite_master): every outcome
            // written would be ignored; the schema check refuses it.
            #expect(refused.contains("outcome-check-altered.db"), "opened \(opened)")
            // A header whose schema version is negative (0x80000005): the kiosk's
            // migration indexed its steps with it and trapped; now refused as damaged.
            #expect(refused.contains("negative-version.db"), "opened \(opened)")
        }
    }
}
