@testable import CardRules
import Foundation
import ScratchCore
import Testing

struct OutcomeLogTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("outcome-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    let sample = OutcomeRecord(shownAt: 1_795_977_420.25, cardID: "coffee \"large\"", prize: "/srv/coffee.png",
                               outcome: .revealed, how: .threshold, fraction: 0.60123, revealMilliseconds: 5230,
                               durationMilliseconds: 20_250)

    @Test func recordsRoundTrip() throws {
        #expect(sample.json.hasPrefix(#"{"shown":"2026-11-29T18:37:00.250Z","card":"coffee \"large\"","#))
        #expect(sample.json.contains(#""fraction":0.6012"#))
        var expected = sample
        expected.fraction = 0.6012
        #expect(OutcomeRecord(line: Substring(sample.json)) == expected)
        let quit = OutcomeRecord(shownAt: 0, cardID: "a", prize: "built-in", outcome: .quit, how: nil, fraction: 0,
                                 revealMilliseconds: nil, durationMilliseconds: 1)
        #expect(OutcomeRecord(line: Substring(quit.json)) == quit)
        #expect(OutcomeRecord(line: Substring(sample.json.dropLast(5))) == nil)
    }

    @Test("appends are whole lines in a 0600 file; a torn last line is skipped and does not swallow the next record")
    func tornLine() throws {
        let dir = try folder(); defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("cards.log").path
        do {
            let log = try OutcomeLog(path: path)
            try log.append(sample)
            try log.append(sample)
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // A crash in the middle of a write: half a record at the end.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(sample.json.prefix(30).utf8))
        try handle.close()
        #expect(try OutcomeLog.read(path: path).records.count == 2)
        #expect(try OutcomeLog.read(path: path).damagedLines == 1)
        // The next run appends after it, on a line of its own.
        try OutcomeLog(path: path).append(sample)
        let (records, damaged) = try OutcomeLog.read(path: path)
        #expect(records.count == 3 && damaged == 1)
        let summary = OutcomeLog.summary(of: records, damagedLines: damaged)
        #expect(summary.contains("cards: 3 (1 damaged line skipped)"))
        #expect(summary.contains("revealed 3 abandoned 0 quit 0"))
    }

    @Test func sessionOutcomes() {
        var session = CardSession(cardID: "c", revealAt: 0.5, now: 100)
        #expect(session.outcome(prize: "p", shownAtWallClock: 5, fraction: 0.1, now: 101, endedBy: true).outcome == .quit)
        #expect(session.outcome(prize: "p", shownAtWallClock: 5, fraction: 0.1, now: 101, endedBy: false).outcome == .abandoned)
        _ = session.scratched(fraction: 0.55, now: 102)
        let record = session.outcome(prize: "p", shownAtWallClock: 5, fraction: 0.9, now: 110, endedBy: true)
        #expect(record.outcome == .revealed && record.how == .threshold && record.fraction == 0.55)
        #expect(record.revealMilliseconds == 2000 && record.durationMilliseconds == 10_000)
    }
}
