import Foundation
import Testing
@testable import ScratchCore

struct TraceTests {
    static let valid = """
        scratch-trace 1
        # a comment

        canvas 64 48
        brush 4.5
        down 10 10
        move 20.25 12.5
        move -5 300
        up
        move 1 1
        brush 2
        down 30 30
        up
        """

    @Test func parsesTheFormat() throws {
        let trace = try Trace(parsing: Self.valid, name: "t.trace")
        #expect(trace.canvas == PixelSize(width: 64, height: 48))
        #expect(trace.records == [.brush(4.5), .down(Point(x: 10, y: 10)), .move(Point(x: 20.25, y: 12.5)),
                                  .move(Point(x: -5, y: 300)), .up, .move(Point(x: 1, y: 1)), .brush(2),
                                  .down(Point(x: 30, y: 30)), .up])
        #expect(trace.eventCount == 4)      // the move after `up` is not an event
        #expect(trace.initialBrush.radius == 4.5)
    }

    @Test func roundTripsThroughText() throws {
        let trace = try Trace(parsing: Self.valid, name: "t.trace")
        #expect(try Trace(parsing: trace.serialized(comment: "again\nand again"), name: "u.trace") == trace)
    }

    @Test func windowsLineEndingsAreAccepted() throws {
        let text = Self.valid.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try Trace(parsing: text, name: "t.trace").eventCount == 4)
    }

    /// Each malformed line, the line number the error must name, and a word of the problem.
    static let malformed: [(String, Int, String)] = [
        ("", 1, "empty"),
        ("# only a comment\n", 1, "empty"),
        ("scratch-trace 2\ncanvas 4 4\n", 1, "version"),
        ("scratch-trace\ncanvas 4 4\n", 1, "scratch-trace 1"),
        ("canvas 4 4\nscratch-trace 1\n", 1, "not a scratch trace"),
        ("scratch-trace 1\n", 1, "no `canvas`"),
        ("scratch-trace 1\ncanvas 0 4\n", 2, "canvas sides"),
        ("scratch-trace 1\ncanvas 16385 4\n", 2, "canvas sides"),
        ("scratch-trace 1\ncanvas 4.5 4\n", 2, "canvas sides"),
        ("scratch-trace 1\ncanvas -4 4\n", 2, "canvas sides"),
        ("scratch-trace 1\ncanvas 4\n", 2, "canvas W H"),
        ("scratch-trace 1\ncanvas 4 4 4\n", 2, "canvas W H"),
        ("scratch-trace 1\ncanvas 4 4\ncanvas 8 8\n", 3, "second `canvas`"),
        ("scratch-trace 1\ncanvas  4 4\n", 2, "single spaces"),
        ("scratch-trace 1\ncanvas 4 4 \n", 2, "single spaces"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 0\n", 3, "greater than 0"),
        ("scratch-trace 1\ncanvas 4 4\nbrush -3\n", 3, "greater than 0"),
        ("scratch-trace 1\ncanvas 4 4\nbrush nan\n", 3, "finite decimal"),
        ("scratch-trace 1\ncanvas 4 4\nbrush inf\n", 3, "finite decimal"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 1e999\n", 3, "finite decimal"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 0x10\n", 3, "finite decimal"),
        ("scratch-trace 1\ncanvas 4 4\nbrush\n", 3, "brush R"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 2\ndown 1\n", 4, "down X Y"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 2\ndown 1 2 3\n", 4, "down X Y"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 2\ndown 1 NaN\n", 4, "finite decimal"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 2\ndown 1 2\nmove x 2\n", 5, "finite decimal"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 2\ndown 1 2\nmove 1 -infinity\n", 5, "finite decimal"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 2\ndown 1 2\nup now\n", 5, "`up`"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 2\nscratch 1 2\n", 4, "unknown record"),
        ("scratch-trace 1\ncanvas 4 4\nbrush 2\nDOWN 1 2\n", 4, "unknown record"),
        ("scratch-trace 1\ncanvas 4 4\ndown 1 2\n", 3, "before any `brush`"),
        ("scratch-trace 1\nbrush 2\ndown 1 2\ncanvas 4 4\n", 3, "before the `canvas`"),
        ("scratch-trace 1\ncanvas 4 4\nscratch-trace 1\n", 3, "second `scratch-trace`"),
    ]

    @Test("every kind of malformed line is an error naming its line", arguments: malformed.indices)
    func malformedLine(index: Int) {
        let (text, line, words) = Self.malformed[index]
        do {
            _ = try Trace(parsing: text, name: "bad.trace")
            Issue.record("accepted: \(text.debugDescription)")
        } catch {
            #expect(error.line == line, "\(text.debugDescription): \(error)")
            #expect(error.description.hasPrefix("bad.trace:\(line): "))
            #expect(error.problem.contains(words), "\(error)")
        }
    }

    @Test func fileProblemsNameTheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trace-tests-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.trace").path
        #expect(throws: TraceError(file: missing, line: nil, problem: "cannot read the file (missing or not accessible)")) {
            try Trace.load(path: missing)
        }
        let binary = folder.appendingPathComponent("binary.trace")
        try Data([0x73, 0xFF, 0xFE, 0x00]).write(to: binary)
        #expect(throws: TraceError(file: binary.path, line: nil, problem: "not UTF-8 text")) { try Trace.load(path: binary.path) }
        #expect(throws: TraceError.self) { try Trace.load(path: folder.path) }
    }

    /// The benchmark's traces (Bench/traces) parse, with the event counts docs/traces.md
    /// states, and replay to about a third of the card revealed.
    @Test func benchmarkTraces() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Bench/traces").standardized
        for (name, events) in [("card-1080p.trace", 1085), ("card-4k.trace", 1085), ("mouse-1000hz.trace", 7209)] {
            let path = folder.appendingPathComponent(name).path
            try #require(FileManager.default.fileExists(atPath: path), "missing \(path)")
            let trace = try Trace.load(path: path)
            #expect(trace.eventCount == events, "\(name)")
        }
        let trace = try Trace.load(path: folder.appendingPathComponent("card-1080p.trace").path)
        let image = RGBAImage(size: trace.canvas, filledWith: .white)
        let canvas = try ScratchCanvas(cover: image, prize: image, layout: .bgrx, brush: trace.initialBrush)
        var events = 0
        trace.replay(on: canvas) { _ in events += 1 }
        #expect(events == 1085)
        #expect(canvas.revealedFraction > 0.25 && canvas.revealedFraction < 0.4)
    }
}
