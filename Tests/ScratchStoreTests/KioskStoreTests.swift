import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
@testable import ScratchStore

/// A fresh folder for one test's stores, removed at the end.
final class StoreFolder {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("scratchstore-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var store: String { path + "/kiosk.db" }
}

func record(_ outcome: CardOutcome, card: String = "a") -> OutcomeRecord {
    OutcomeRecord(shownAt: 1_800_000_000, cardID: card, prize: "/p/\(card).png", outcome: outcome,
                  how: outcome == .revealed ? .threshold : nil, fraction: 0.5,
                  revealMilliseconds: outcome == .revealed ? 1200 : nil, durationMilliseconds: 3000)
}

func storeError(_ body: () throws(StoreError) -> Void) -> StoreError? {
    do { try body(); return nil } catch { return error }
}

@Suite struct KioskStoreTests {
    let limited = DeckCard(id: "bike", prize: "/p/bike.png", stock: 2)
    let unlimited = DeckCard(id: "sorry", prize: "/p/sorry.png")

    @Test("a new store: WAL journal, synchronous FULL, schema 1, our application id")
    func newStore() throws {
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let connection = try SQLiteConnection(path: folder.store, readOnly: true)
        #expect(try connection.prepare("PRAGMA journal_mode").step())
        let mode = try connection.prepare("PRAGMA journal_mode")
        _ = try mode.step()
        #expect(mode.text(0) == "wal")
        #expect(try connection.integer("PRAGMA user_version") == KioskStore.schemaVersion)
        #expect(try connection.integer("PRAGMA application_id") == KioskStore.applicationID)
        // synchronous is per connection: the kiosk's own says FULL (2).
        #expect(try store.connection.integer("PRAGMA synchronous") == 2)
        // Private to the user, like the outcome log; the WAL beside it too.
        for file in [folder.store, folder.store + "-wal", folder.store + ".lock"] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(file)")
        }
    }

    @Test("strokes are committed without waiting for the disk and synced just after; deals stay FULL, after a failed batch too")
    func strokesAreSyncedOffTheWritersThread() throws {
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let journal = try #require(store.journal)
        let deal = try #require(try store.deal(unlimited, shownAt: 1, ending: nil))
        let before = journal.syncs
        try store.saveStrokes(deal, lines: "c 160 120 16\nd 0 10.5 10.5\n", lastTouch: 2)
        #expect(try store.connection.integer("PRAGMA synchronous") == 2, "back to FULL for what comes next")
        // Committed: another connection sees it at once.
        let reader = try KioskStore(path: folder.store, access: .read)
        #expect(try reader.pendingDeal()?.strokes == "c 160 120 16\nd 0 10.5 10.5\n")
        journal.waitForSyncs()
        #expect(journal.syncs > before, "the WAL synced after the batch")

        // A batch that cannot be committed (another writer holds the lock) leaves FULL on too.
        let other = try SQLiteConnection(path: folder.store)
        try other.execute("BEGIN IMMEDIATE")
        try store.connection.execute("PRAGMA busy_timeout = 50")
        #expect(storeError { () throws(StoreError) in try store.saveStrokes(deal, lines: "m 0 11.5 11.5\n", lastTouch: 3) } != nil)
        try other.execute("ROLLBACK")
        #expect(try store.connection.integer("PRAGMA synchronous") == 2)
        #expect(try reader.pendingDeal()?.strokes == "c 160 120 16\nd 0 10.5 10.5\n")
    }

    @Test("a store released just after a batch of strokes, its sync still queued: the sync runs without it")
    func storeReleasedWhileItsSyncIsQueued() throws {
        let folder = try StoreFolder()
        for round in 0..<100 {
            let store = try KioskStore(path: folder.store, access: .kiosk)
            let deal = try #require(try store.deal(unlimited, shownAt: Double(round), ending: nil))
            try store.saveStrokes(deal, lines: "c 160 120 16\nd 0 10.5 10.5\n", lastTouch: Double(round))
            // Released here, the WAL's sync likely still queued.
        }
        let store = try KioskStore(path: folder.store, access: .read)
        #expect(try store.pendingDeals().count == 100)
    }

    @Test("a deal takes one of the stock in its transaction; none left: refused, nothing written; dealt + left == stock")
    func stockIsNeverOversold() throws {
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let first = try #require(try store.deal(limited, shownAt: 1, ending: nil))
        let second = try #require(try store.deal(limited, shownAt: 2, ending: (first, record(.revealed, card: "bike"))))
        // The third is refused, and the ending it carried is not written either.
        #expect(try store.deal(limited, shownAt: 3, ending: (second, record(.abandoned, card: "bike"))) == nil)
        #expect(try store.pendingDeal()?.deal == second)
        let line = try #require(try store.stockReport(deck: Deck(cards: [limited, unlimited])).first)
        #expect(line.dealt == 2 && line.left == 0 && line.stock == 2 && line.revealed == 1 && line.pending == 1)
        // Raising the deck's number adds prizes with no reset.
        let raised = DeckCard(id: "bike", prize: "/p/bike.png", stock: 3)
        #expect(try store.deal(raised, shownAt: 4, ending: (second, record(.abandoned, card: "bike"))) != nil)
        #expect(try store.dealtCounts() == ["bike": 3])
    }

    @Test("an outcome is written once, keyed by the deal: a second finish changes nothing")
    func exactlyOnce() throws {
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let deal = try #require(try store.deal(unlimited, shownAt: 1, ending: nil))
        #expect(try store.finish(deal, outcome: record(.revealed)))
        #expect(try !store.finish(deal, outcome: record(.quit)))
        let rows = try store.dealsWithOutcomeCounts()
        #expect(rows.count == 1 && rows[0].outcomes == 1)
        #expect(try store.outcomeRecords().map(\.outcome) == [.revealed])
        #expect(try store.pendingDeal() == nil)
    }

    @Test("the card on show: strokes appended in batches, the reveal, all read back; ending the deal drops its strokes")
    func cardOnShow() throws {
        let folder = try StoreFolder()
        let store = try KioskStore(path: folder.store, access: .kiosk)
        let deal = try #require(try store.deal(unlimited, shownAt: 100, ending: nil))
        try store.saveStrokes(deal, lines: "c 10 10 2\nd 0 1 1\n", lastTouch: 101)
        try store.saveStrokes(deal, lines: "c 10 10 2\nm 0 5 5\nu 0\n", lastTouch: 102.5)
        try store.saveReveal(deal, how: .keyboard, afterMilliseconds: 2500, fraction: 0.25)
        let held = try #require(try store.pendingDeal())
        #expect(held.strokes == "c 10 10 2\nd 0 1 1\nc 10 10 2\nm 0 5 5\nu 0\n")
        #expect(held.lastTouch == 102.5 && held.shownAt == 100 && held.cardID == "sorry")
        #expect(held.reveal?.how == .keyboard && held.reveal?.afterMilliseconds == 2500 && held.reveal?.fraction == 0.25)
        // Another connection (a restarted kiosk) reads the same.
        let reader = try KioskStore(path: folder.store, access: .read)
        #expect(try reader.pendingDeal() == held)
        try store.finish(deal, outcome: record(.revealed))
        let connection = try SQLiteConnection(path: folder.store, readOnly: true)
        #expect(try connection.integer("SELECT count(*) FROM strokes") == 0)
    }

    @Test("a second kiosk on the same store is refused at once, naming the holder's pid; free again once closed")
    func lockedByAnotherKiosk() throws {
        let folder = try StoreFolder()
        var first: KioskStore? = try KioskStore(path: folder.store, access: .kiosk)
        let started = Date()
        let error = storeError { () throws(StoreError) in _ = try KioskStore(path: folder.store, access: .kiosk) }
        #expect(error?.kind == .locked)
        #expect(error?.message.contains("pid \(getpid())") == true, "\(String(describing: error))")
        #expect(Date().timeIntervalSince(started) < 1, "it waited")
        // Readers need no lock.
        #expect(try KioskStore(path: folder.store, access: .read).dealtCounts() == [:])
        _ = first
        first = nil
        #expect(try KioskStore(path: folder.store, access: .kiosk).dealtCounts() == [:])
    }

    @Test("a store from a newer schema is refused with a clear message and left as it is")
    func newerSchema() throws {
        let folder = try StoreFolder()
        _ = try KioskStore(path: folder.store, access: .kiosk)
        try SQLiteConnection(path: folder.store).execute("PRAGMA user_version = 7")
        let before = try Data(contentsOf: URL(fileURLWithPath: folder.store))
        let error = storeError { () throws(StoreError) in _ = try KioskStore(path: folder.store, access: .kiosk) }
        #expect(error?.kind == .newerSchema)
        #expect(error?.message.contains("newer scratchcard (schema 7; this one knows up to \(KioskStore.schemaVersion))") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.store)) == before)
    }

    @Test("an older schema (version 0 with our tables missing) is migrated forward on open")
    func migratesForward() throws {
        let folder = try StoreFolder()
        // An empty SQLite file: version 0.
        try SQLiteConnection(path: folder.store).execute("PRAGMA user_version = 0")
        let store = try KioskStore(path: folder.store, access: .kiosk)
        #expect(try store.dealtCounts() == [:])
        #expect(try SQLiteConnection(path: folder.store).integer("PRAGMA user_version") == KioskStore.schemaVersion)
    }

    @Test("another program's SQLite database is refused, not moved aside or changed")
    func foreignDatabase() throws {
        let folder = try StoreFolder()
        try SQLiteConnection(path: folder.store).execute("CREATE TABLE photos(id INTEGER)")
        let error = storeError { () throws(StoreError) in _ = try KioskStore(path: folder.store, access: .kiosk) }
        #expect(error?.kind == .other && error?.message.contains("not a scratchcard store") == true)
    }

    @Test("garbage, a truncated store and a store with a damaged page are each .corrupt; moveAside renames with its WAL",
          arguments: ["garbage", "truncated", "damaged"])
    func corruptStores(kind: String) throws {
        let folder = try StoreFolder()
        if kind == "garbage" {
            try Data(repeating: 0x5A, count: 10_000).write(to: URL(fileURLWithPath: folder.store))
        } else {
            do {
                let store = try KioskStore(path: folder.store, access: .kiosk)
                var previous: DealID?
                for n in 0..<300 {
                    previous = try store.deal(unlimited, shownAt: Double(n), ending: previous.map { ($0, record(.revealed)) })
                }
                _ = try SQLiteConnection(path: folder.store).execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            let url = URL(fileURLWithPath: folder.store)
            var bytes = try Data(contentsOf: url)
            if kind == "truncated" {
                bytes = bytes.prefix(bytes.count / 2 + 100)
            } else {
                for i in stride(from: 4096 * 2 + 100, to: 4096 * 3, by: 7) { bytes[i] = 0xFF }
            }
            try bytes.write(to: url)
            try? FileManager.default.removeItem(atPath: folder.store + "-wal")
        }
        let error = storeError { () throws(StoreError) in _ = try KioskStore(path: folder.store, access: .kiosk) }
        #expect(error?.kind == .corrupt, "\(String(describing: error))")
        #expect(error?.message.contains("damaged") == true)
        let aside = try KioskStore.moveAside(folder.store)
        #expect(aside.hasPrefix(folder.store + ".corrupt-"))
        #expect(FileManager.default.fileExists(atPath: aside) && !FileManager.default.fileExists(atPath: folder.store))
        #expect(try KioskStore(path: folder.store, access: .kiosk).dealtCounts() == [:])
    }

    @Test("simulate's store: a copy in memory, the real one untouched")
    func copyInMemory() throws {
        let folder = try StoreFolder()
        do {
            let store = try KioskStore(path: folder.store, access: .kiosk)
            _ = try store.deal(limited, shownAt: 1, ending: nil)
        }
        let before = try KioskStore(path: folder.store, access: .read).dealtCounts()
        let copy = try KioskStore(copyOf: folder.store)
        #expect(try copy.dealtCounts() == ["bike": 1])
        _ = try copy.deal(limited, shownAt: 2, ending: nil)
        #expect(try copy.dealtCounts() == ["bike": 2])
        #expect(try KioskStore(path: folder.store, access: .read).dealtCounts() == before)
    }
}
