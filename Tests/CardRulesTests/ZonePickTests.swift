@testable import CardRules
import Foundation
import ScratchCore
import Testing

/// A zone ticket's picks as every record keeps them: the zones in the order started,
/// each with its symbol named; one JSON form, read back, old logs' zones-only form read
/// too, damaged values refused; `log-summary`'s counts.
struct ZonePickTests {
    static let symbols: [ZoneSymbol] = [.text("☕", colour: nil), .image("/srv/promo/lemon.png"), .text("FREE\nCOFFEE", colour: RGBA(r: 1, g: 2, b: 3))]

    static func ticket(_ card: String, _ outcome: CardOutcome, at shown: Double, _ picks: [ZonePick]?) -> OutcomeRecord {
        var record = OutcomeRecord(shownAt: shown, cardID: card, prize: card, outcome: outcome, how: outcome == .revealed ? .threshold : nil,
                                   fraction: 0.5, revealMilliseconds: nil, durationMilliseconds: 1000)
        record.picks = picks
        return record
    }

    @Test("with pick: the i-th zone started carries symbols[i], named by its text or its image's file name; without: zone i carries symbols[i]")
    func picksFromTheTicket() {
        var picked = ZoneTicket(zoneCount: 9, pick: 3)
        for zone in [4, 0, 8, 5] { _ = picked.start(zone) }       // the fourth is locked
        #expect(picked.picks(symbols: Self.symbols) == [ZonePick(zone: 4, symbol: "☕"), ZonePick(zone: 0, symbol: "lemon.png"),
                                                        ZonePick(zone: 8, symbol: "FREE\nCOFFEE")])
        var every = ZoneTicket(zoneCount: 3, pick: nil)
        for zone in [2, 0] { _ = every.start(zone) }
        #expect(every.picks(symbols: Self.symbols) == [ZonePick(zone: 2, symbol: "FREE\nCOFFEE"), ZonePick(zone: 0, symbol: "☕")])
        #expect(ZoneTicket(zoneCount: 9, pick: 3).picks(symbols: Self.symbols) == [])
        // A resumed ticket: the same picks, the same symbols.
        let resumed = ZoneTicket(resuming: [4, 0], open: [4], zoneCount: 9, pick: 3)
        #expect(resumed.picks(symbols: Self.symbols) == Array(picked.picks(symbols: Self.symbols).prefix(2)))
    }

    @Test("one JSON form, escaped, read back as written")
    func jsonForm() {
        let picks = [ZonePick(zone: 4, symbol: "☕"), ZonePick(zone: 0, symbol: #"say "hi"\"#), ZonePick(zone: 99, symbol: "FREE\nCOFFEE")]
        let text = ZonePick.json(picks)
        #expect(text == #"[{"zone":4,"symbol":"☕"},{"zone":0,"symbol":"say \"hi\"\\"},{"zone":99,"symbol":"FREE\nCOFFEE"}]"#)
        #expect(ZonePick.list(json: text) == picks)
        #expect(ZonePick.json([]) == "[]" && ZonePick.list(json: "[]") == [])
        // PostgreSQL's jsonb spacing and key order read the same.
        #expect(ZonePick.list(json: #"[{"symbol": "☕", "zone": 4}]"#) == [ZonePick(zone: 4, symbol: "☕")])
        #expect(ZonePick.text(picks) == #"zone 4 ☕, zone 0 say "hi"\, zone 99 FREE COFFEE"#)
    }

    @Test("an old log's zones-only picks read as zones without symbols", arguments: [
        (#"[4,0,8]"#, [ZonePick(zone: 4, symbol: nil), ZonePick(zone: 0, symbol: nil), ZonePick(zone: 8, symbol: nil)]),
        (#"[{"zone":3}]"#, [ZonePick(zone: 3, symbol: nil)]),
    ])
    func oldForm(text: String, picks: [ZonePick]) {
        #expect(ZonePick.list(json: text) == picks)
        #expect(ZonePick.text(picks).hasPrefix("zone "))
    }

    @Test("damaged values are refused, never half read", arguments: [
        "", "x", "{}", "null", #"["4"]"#, "[1.5]", "[-1]", "[100]", "[1,1]", #"[{"zone":1},{"zone":1,"symbol":"a"}]"#,
        #"[{"symbol":"a"}]"#, #"[{"zone":"1"}]"#, #"[{"zone":1,"symbol":7}]"#, #"[{"zone":1,"symbol":"a"}"#,
    ])
    func damaged(text: String) {
        #expect(ZonePick.list(json: text) == nil, "\(text)")
    }

    @Test("the outcome log: a ticket's line with its picks and symbols reads back; an old line's picks as zones; a line whose picks are damaged is skipped and counted")
    func logLines() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("picks-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("outcomes.jsonl").path
        let new = Self.ticket("lucky", .revealed, at: 1_800_000_000, [ZonePick(zone: 4, symbol: "☕"), ZonePick(zone: 0, symbol: "lemon.png")])
        try OutcomeLog(path: path).append(new)
        let old = #"{"shown":"2026-11-29T18:37:00.000Z","card":"lucky","prize":"lucky","outcome":"abandoned","fraction":0.1,"duration_ms":20,"picks":[7,2]}"#
        let bad = #"{"shown":"2026-11-29T18:38:00.000Z","card":"lucky","prize":"lucky","outcome":"abandoned","fraction":0.1,"duration_ms":20,"picks":[7,7]}"#
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((old + "\n" + bad + "\n").utf8))
        try handle.close()
        let (records, damaged) = try OutcomeLog.read(path: path)
        #expect(damaged == 1)
        #expect(records.map(\.picks) == [new.picks, [ZonePick(zone: 7, symbol: nil), ZonePick(zone: 2, symbol: nil)]])
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix(#"{"shown":"2027-01-15T08:00:00.000Z","card":"lucky""#))
        #expect(new.json.hasSuffix(#","picks":[{"zone":4,"symbol":"☕"},{"zone":0,"symbol":"lemon.png"}]}"#))
    }

    @Test("the summary: per zone card, how often each zone and each symbol was picked; --picks lists each ticket; unreadable picks said")
    func summary() {
        let records = [
            Self.ticket("lucky", .revealed, at: 1_800_000_000, [ZonePick(zone: 4, symbol: "☕"), ZonePick(zone: 0, symbol: "☕"), ZonePick(zone: 8, symbol: "🍋")]),
            Self.ticket("coffee", .revealed, at: 1_800_000_060, nil),
            Self.ticket("lucky", .abandoned, at: 1_800_000_120, [ZonePick(zone: 4, symbol: "☕")]),
            Self.ticket("lucky", .quit, at: 1_800_000_180, []),
            Self.ticket("old", .revealed, at: 1_800_000_240, [ZonePick(zone: 1, symbol: nil)]),
        ]
        let summary = OutcomeLog.summary(of: records, damagedLines: 0)
        #expect(summary == """
            cards: 5
            by outcome: revealed 3 abandoned 1 quit 1
            by prize:
              coffee: 1 (revealed 1)
              lucky: 3 (revealed 1, abandoned 1, quit 1)
              old: 1 (revealed 1)
            picks (zone tickets, zones numbered from 0):
              lucky: 3 tickets, 4 picks
                by zone: 0 (1), 4 (2), 8 (1)
                by symbol: ☕ (3), 🍋 (1)
              old: 1 ticket, 1 pick
                by zone: 1 (1)
                by symbol: (not recorded) (1)

            """)
        let each = OutcomeLog.summary(of: records, damagedLines: 2, unreadablePicks: 1, eachTicket: true)
        #expect(each.hasPrefix("cards: 5 (2 damaged lines skipped; the picks of 1 card unreadable, left out)\n"))
        #expect(each.hasSuffix("""
            picks by ticket:
              2027-01-15T08:00:00.000Z lucky revealed: zone 4 ☕, zone 0 ☕, zone 8 🍋
              2027-01-15T08:02:00.000Z lucky abandoned: zone 4 ☕
              2027-01-15T08:03:00.000Z lucky quit: none
              2027-01-15T08:04:00.000Z old revealed: zone 1

            """))
        // No zone tickets: the summary as it always was.
        #expect(!OutcomeLog.summary(of: [records[1]], damagedLines: 0, eachTicket: true).contains("picks"))
    }
}
