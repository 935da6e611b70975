import CardRules
import Claims
import Foundation
@preconcurrency import Glibc
import ScratchCore
import ScratchStore
import Testing
import XvfbSupport
@testable import scratchcard

/// A zone ticket's picks as an operator finds them: two tickets played through XTest
/// with a store, a claim key and an outcome log, then the store's outcomes, `claims` and
/// `log-summary` read back (Xvfb; the rules and the store alone: ZonePickTests,
/// PicksStoreTests).
@Suite(.serialized) struct ZonePicksAppTests {
    /// The "pick 3 of 9" ticket of ZoneTicketAppTests, its symbols an image, words and an
    /// image, a claim on it.
    static func deck(in folder: URL) throws -> String {
        let colours = ZoneTicketAppTests.symbolColours
        _ = try App.solidPNG(colours[0], size: PixelSize(width: 20, height: 20), in: folder, name: "s0.png")
        _ = try App.solidPNG(colours[2], size: PixelSize(width: 20, height: 20), in: folder, name: "s2.png")
        _ = try App.solidPNG(ZoneTicketAppTests.decoyColour, size: PixelSize(width: 20, height: 20), in: folder, name: "decoy.png")
        let decoys = Array(repeating: "\"decoy.png\"", count: 6).joined(separator: ",")
        let text = """
            {"cover-text": "PICK 3", "cards": [{"id": "ticket", "grid": {"x": 40, "y": 110, "w": 560, "h": 270, "columns": 3, "rows": 3, "gap": 15},
             "pick": 3, "symbols": ["s0.png", {"text": "☕"}, "s2.png"], "decoys": [\(decoys)], "claim": true, "celebrate": false, "sound": null}]}
            """
        let path = folder.appendingPathComponent("deck.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A short stroke in the middle of `zone`: a pick.
    static func touch(_ zone: Int, on server: Xvfb, window: UInt) throws {
        let (x, y) = ZoneTicketAppTests.centre(zone)
        try server.drag(window: window, from: (x - 5, y), through: [(x + 5, y)])
    }

    /// The text of the first row's first column, read with the sqlite3 program (as an
    /// operator would): nil when there is no row.
    static func sqlite(_ path: String, _ query: String) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-readonly", path, query]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        return text.isEmpty ? nil : String(text.dropLast())
    }

    @Test("two tickets played with a store: the store's outcomes hold each one's picks with their symbols, in order; claims and log-summary show them, the store's and the log's summaries alike")
    func picksRecordedAndShown() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(in: folder)
        let store = folder.appendingPathComponent("kiosk.db").path, log = folder.appendingPathComponent("outcomes.jsonl").path
        let key = folder.appendingPathComponent("promo.key").path
        _ = try ClaimKey.createFile(at: key)
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        let app = try RunningApp(["--deck", deck, "--store", store, "--log", log, "--claim-key", key, "--kiosk-id", "hall-1"]
                                 + ZoneTicketAppTests.arguments, environment: server.environment)
        defer { if app.process.isRunning { kill(app.pid, SIGKILL) } }
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)")
        let first = try #require(app.cardShown?.deal)

        // The first ticket: zones 7, 2, 5 picked in that order, then scratched open.
        for (n, zone) in [7, 2, 5].enumerated() {
            try Self.touch(zone, on: server, window: window)
            #expect(waitUntil(timeout: 10) { app.eventNames.filter { $0 == "zone-start" }.count == n + 1 }, "zone \(zone)")
        }
        for zone in [7, 2, 5] { try ZoneTicketAppTests.scrub(zone, on: server, window: window) }
        #expect(waitUntil(timeout: 15) { app.eventNames.contains("revealed") })
        // The next ticket (r): one pick, then the program ends (its outcome: quit).
        try server.xdotool("mousemove", "--window", "\(window)", "5", "5")
        try server.xdotool("key", "r")
        #expect(waitUntil(timeout: 15) { app.cardShown?.deal != first })
        let second = try #require(app.cardShown?.deal)
        try Self.touch(4, on: server, window: window)
        #expect(waitUntil(timeout: 10) { app.eventNames.filter { $0 == "zone-start" }.count == 4 })
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")

        // The store's outcomes, in the order dealt.
        let reader = try KioskStore(path: store, access: .read)
        let (records, unreadable) = try reader.readOutcomes()
        let firstPicks = [ZonePick(zone: 7, symbol: "s0.png"), ZonePick(zone: 2, symbol: "☕"), ZonePick(zone: 5, symbol: "s2.png")]
        #expect(unreadable == 0)
        #expect(records.map(\.outcome) == [.revealed, .quit])
        #expect(records.map(\.picks) == [firstPicks, [ZonePick(zone: 4, symbol: "s0.png")]])
        let firstJSON = #"[{"zone":7,"symbol":"s0.png"},{"zone":2,"symbol":"☕"},{"zone":5,"symbol":"s2.png"}]"#
        #expect(try Self.sqlite(store, "SELECT picks FROM outcomes WHERE deal = '\(first)'") == firstJSON)
        // The outcome log has the same picks.
        let logged = try OutcomeLog.read(path: log)
        #expect(logged.damagedLines == 0 && logged.records.map(\.picks) == records.map(\.picks))

        // claims: each ticket's claim with its picks.
        let claims = try runCommand(["claims", "--store", store])
        #expect(claims.status == 0, "\(claims.err)")
        let lines = claims.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(claims.out)")
        #expect(lines.first?.hasSuffix(" open; picks zone 7 s0.png, zone 2 ☕, zone 5 s2.png") == true, "\(claims.out)")
        #expect(lines.last?.hasSuffix(" open; picks zone 4 s0.png") == true, "\(claims.out)")
        let json = try runCommand(["claims", "--store", store, "--json"])
        #expect(json.status == 0 && json.err.isEmpty, "\(json.err)")
        let objects = json.out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.map { $0["deal"] as? String } == [first, second])
        let picked = objects.first?["picks"] as? [[String: Any]]
        #expect(picked?.map { "\($0["zone"] ?? "?") \($0["symbol"] ?? "?")" } == ["7 s0.png", "2 ☕", "5 s2.png"], "\(json.out)")
        #expect(json.out.contains(#""picks":\#(firstJSON)}"#), "\(json.out)")

        // log-summary: the counts, from the store and from the log alike; --picks each ticket.
        let summary = try runCommand(["log-summary", store])
        #expect(summary.status == 0, "\(summary.err)")
        #expect(summary.out.hasSuffix("""
            picks (zone tickets, zones numbered from 0):
              ticket: 2 tickets, 4 picks
                by zone: 2 (1), 4 (1), 5 (1), 7 (1)
                by symbol: s0.png (2), s2.png (1), ☕ (1)

            """), "\(summary.out)")
        #expect(try runCommand(["log-summary", log]).out == summary.out)
        let each = try runCommand(["log-summary", "--picks", store])
        #expect(each.status == 0, "\(each.err)")
        let tickets = each.out.components(separatedBy: "picks by ticket:\n").last?.split(separator: "\n").map(String.init) ?? []
        #expect(tickets.count == 2, "\(each.out)")
        #expect(tickets.first?.hasSuffix(" ticket revealed: zone 7 s0.png, zone 2 ☕, zone 5 s2.png") == true, "\(each.out)")
        #expect(tickets.last?.hasSuffix(" ticket quit: zone 4 s0.png") == true, "\(each.out)")
        // The log's lists the same tickets (each shown at its own wall-clock time).
        let fromLog = try runCommand(["log-summary", log, "--picks"]).out.components(separatedBy: "picks by ticket:\n").last ?? ""
        func untimed(_ lines: [String]) -> [String] { lines.map { String($0.drop { $0 == " " }.drop { $0 != " " }) } }
        #expect(untimed(fromLog.split(separator: "\n").map(String.init)) == untimed(tickets), "\(fromLog)")
    }

    @Test("kill -9 after two picks: the restarted kiosk's outcome for the ticket holds all three picks, the two before the kill first, each with its symbol")
    func picksSurviveKill() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let deck = try Self.deck(in: folder)
        let store = folder.appendingPathComponent("kiosk.db").path, key = folder.appendingPathComponent("promo.key").path
        _ = try ClaimKey.createFile(at: key)
        let arguments = ["--deck", deck, "--store", store, "--claim-key", key] + ZoneTicketAppTests.arguments
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        let first = try RunningApp(arguments, environment: server.environment)
        defer { if first.process.isRunning { kill(first.pid, SIGKILL) } }
        var window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { first.eventNames.contains("ready") }, "\(first.standardError)")
        let deal = try #require(first.cardShown?.deal)
        for (n, zone) in [4, 0].enumerated() {
            try Self.touch(zone, on: server, window: window)
            #expect(waitUntil(timeout: 10) { first.eventNames.filter { $0 == "zone-start" }.count == n + 1 }, "zone \(zone)")
        }
        // The strokes reach the store within a second of the pen going up.
        usleep(1_500_000)
        kill(first.pid, SIGKILL)
        first.wait(timeout: 10)
        #expect(try KioskStore(path: store, access: .read).readOutcomes().records.isEmpty, "the ticket ended before it was played")

        let second = try RunningApp(arguments, environment: server.environment)
        defer { if second.process.isRunning { kill(second.pid, SIGKILL) } }
        window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { second.eventNames.contains("ready") }, "\(second.standardError)")
        #expect(second.cardShown?.deal == deal && second.cardShown?.resumed == true)
        try Self.touch(8, on: server, window: window)
        #expect(waitUntil(timeout: 10) { second.eventNames.contains("zone-start") })
        kill(second.pid, SIGTERM)
        #expect(second.wait(timeout: 20) == 0, "\(second.standardError)")
        let records = try KioskStore(path: store, access: .read).readOutcomes().records
        #expect(records.map(\.picks) == [[ZonePick(zone: 4, symbol: "s0.png"), ZonePick(zone: 0, symbol: "☕"), ZonePick(zone: 8, symbol: "s2.png")]])
        #expect(try Self.sqlite(store, "SELECT count(*) FROM outcomes WHERE deal = '\(deal)' AND picks IS NOT NULL") == "1")
        let claims = try runCommand(["claims", "--store", store])
        #expect(claims.out.hasSuffix("; picks zone 4 s0.png, zone 0 ☕, zone 8 s2.png\n"), "\(claims.out)")
    }

    @Test("log-summary's command line: --picks before or after the file; an unknown option or a second file refused")
    func logSummaryArguments() throws {
        #expect(try parseCommand(["log-summary", "--picks", "a.db"]) == .logSummary(path: "a.db", picks: true))
        #expect(try parseCommand(["log-summary", "a.jsonl", "--picks"]) == .logSummary(path: "a.jsonl", picks: true))
        #expect(try parseCommand(["log-summary", "a.jsonl"]) == .logSummary(path: "a.jsonl", picks: false))
        #expect(throws: UsageError.self) { try parseCommand(["log-summary", "--pick", "a.db"]) }
        #expect(throws: UsageError.self) { try parseCommand(["log-summary", "a.db", "b.db"]) }
        #expect(throws: UsageError.self) { try parseCommand(["log-summary", "--picks"]) }
    }
}
