import Foundation
import Testing
import ScratchCore
@testable import ScratchX11
import XvfbSupport

/// The CLIPBOARD against xclip, the desktop's own command-line client: what we copy
/// comes out of `xclip -o` byte for byte (in pieces, INCR, when larger than the server's
/// maximum request), and what xclip offers comes in through a paste.
@Suite(.serialized) struct ClipboardTests {
    /// Bytes that are no run of one value: a pattern an off-by-a-piece would break.
    static func pattern(_ count: Int, seed: UInt32 = 7) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// Reads the window's events while `client` runs (it talks to the window), at most
    /// `timeout` seconds; the events read.
    @discardableResult
    func pump(_ window: X11Window, while client: ClientProcess, timeout: Double = 20) -> [WindowEvent] {
        var events: [WindowEvent] = []
        let deadline = Date().addingTimeInterval(timeout)
        while client.isRunning, Date() < deadline { events += window.nextEvents(timeout: 0.02) }
        return events
    }

    /// `xclip -selection clipboard -t TYPE -o`, run while the window serves it.
    func xclipOut(_ server: Xvfb, _ window: X11Window, type: String) throws -> (Data, ClientProcess) {
        let client = try ClientProcess("xclip", ["-selection", "clipboard", "-t", type, "-o"], environment: server.environment)
        pump(window, while: client)
        #expect(client.status == 0, "xclip: \(client.errorText)")
        return (client.output, client)
    }

    /// `xclip -selection clipboard -t TYPE -i FILE`: xclip forks and owns the CLIPBOARD
    /// until another client takes it. Waits (reading the window's events: it may own the
    /// CLIPBOARD until xclip takes it) until xclip answers TARGETS with `type`.
    func xclipIn(_ server: Xvfb, _ window: X11Window, type: String, bytes: [UInt8]) throws {
        let path = NSTemporaryDirectory() + "clip-\(getpid())-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let loader = try ClientProcess("xclip", ["-selection", "clipboard", "-t", type, "-i", path], environment: server.environment)
        let deadline = Date().addingTimeInterval(10)
        // It exits once its child owns the CLIPBOARD; stopped before, it never would.
        while loader.isRunning, Date() < deadline { _ = window.nextEvents(timeout: 0.02) }
        var offered = ""
        while Date() < deadline {
            let targets = try ClientProcess("xclip", ["-selection", "clipboard", "-t", "TARGETS", "-o"], environment: server.environment)
            pump(window, while: targets, timeout: 2)
            targets.stop()
            offered = targets.outputText
            if offered.contains(type) { break }
            usleep(20_000)
        }
        #expect(offered.contains(type), "xclip offers \(offered)")
    }

    /// The paste's outcome in a few words (a failed comparison must not print megabytes).
    func brief(_ event: WindowEvent?) -> String {
        switch event {
        case .pasted(.picture(let bytes, let type))?: "\(type), \(bytes.count) bytes"
        case let other?: "\(other)"
        case nil: "nothing"
        }
    }

    /// Whether the paste gave `expected`, saying what it gave when not.
    func expectPaste(_ window: X11Window, _ expected: WindowEvent, sourceLocation: SourceLocation = #_sourceLocation) {
        let got = pasted(window)
        let same = got == expected
        #expect(same, "pasted \(brief(got)), expected \(brief(expected))", sourceLocation: sourceLocation)
    }

    func pasted(_ window: X11Window) -> WindowEvent? {
        window.pasteFromClipboard()
        let events = window.collect(timeout: 20) { $0.contains { if case .pasted = $0 { true } else if case .pasteFailed = $0 { true } else { false } } }
        return events.first { if case .pasted = $0 { true } else if case .pasteFailed = $0 { true } else { false } }
    }

    @Test func xclipGetsTheCopyAndItsTargets() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server)
        try server.xdotool("key", "a")          // a key event's time for the ownership
        _ = window.collect(timeout: 2) { $0.contains { if case .key = $0 { true } else { false } } }
        #expect(window.lastEventTime != 0)
        let png = Self.pattern(100_000)
        #expect(window.copyToClipboard(png: png))
        let (targets, _) = try xclipOut(server, window, type: "TARGETS")
        let names = String(decoding: targets, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(Set(names) == ["TARGETS", "TIMESTAMP", "image/png"], "\(names)")
        let (out, _) = try xclipOut(server, window, type: "image/png")
        let same = out == Data(png)
        #expect(same, "\(out.count) bytes out of \(png.count)")
        #expect(window.clipboardIncrementalTransfers == 0)
        // A type not offered is refused, and xclip says so.
        let refused = try ClientProcess("xclip", ["-selection", "clipboard", "-t", "image/jpeg", "-o"], environment: server.environment)
        pump(window, while: refused)
        #expect(refused.status != 0 && refused.output.isEmpty)
    }

    @Test func aCopyLargerThanTheMaximumRequestGoesInPieces() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server)
        // As large as a 4K card's PNG: many times the server's maximum request.
        let png = Self.pattern(9_000_000, seed: 99)
        #expect(png.count > window.exchange.clipboard.largestPiece * 4)
        #expect(window.copyToClipboard(png: png))
        let (out, _) = try xclipOut(server, window, type: "image/png")
        #expect(out.count == png.count)
        let same = out == Data(png)
        #expect(same)
        #expect(window.clipboardIncrementalTransfers == 1)
    }

    @Test func anotherOwnerEndsTheOffer() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server)
        #expect(window.copyToClipboard(png: Self.pattern(10)))
        #expect(window.exchange.clipboard.owns)
        try xclipIn(server, window, type: "text/plain", bytes: Array("hello".utf8))
        _ = window.nextEvents(timeout: 0.2)
        #expect(!window.exchange.clipboard.owns)
        #expect(window.handClipboardToManager(timeout: 0.5) == .nothingToHand)
    }

    @Test func pastesAPNGOrAJPEGThatXclipOffers() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server)
        let small = Self.pattern(50_000, seed: 3)
        try xclipIn(server, window, type: "image/png", bytes: small)
        expectPaste(window, .pasted(.picture(bytes: small, type: "image/png")))
        #expect(window.exchange.reader.incrementalTransfers == 0)
        // xclip sends what exceeds its chunk as INCR: taken in pieces.
        let large = Self.pattern(3_000_000, seed: 4)
        try xclipIn(server, window, type: "image/jpeg", bytes: large)
        expectPaste(window, .pasted(.picture(bytes: large, type: "image/jpeg")))
        #expect(window.exchange.reader.incrementalTransfers == 1)
    }

    @Test func pastesAFileListAndRefusesText() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server)
        try xclipIn(server, window, type: "text/uri-list", bytes: Array("file:///tmp/My%20card.png\r\n".utf8))
        expectPaste(window, .pasted(.files(["/tmp/My card.png"])))
        try xclipIn(server, window, type: "UTF8_STRING", bytes: Array("just words".utf8))
        let failed = pasted(window)
        guard case .pasteFailed(let why)? = failed else { Issue.record("\(String(describing: failed))"); return }
        #expect(why.contains("no picture"), "\(why)")
    }

    @Test func anEmptyClipboardSaysSo() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server)
        expectPaste(window, .pasteFailed("the clipboard is empty"))
        #expect(window.handClipboardToManager(timeout: 0.5) == .nothingToHand)
        #expect(window.copyToClipboard(png: [1, 2, 3]))
        #expect(window.handClipboardToManager(timeout: 0.5) == .noManager)
    }

    @Test func aCopyPastesIntoTheSameWindow() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let (_, window) = try mappedWindow(on: server)
        let png = Self.pattern(1_000_000, seed: 5)
        #expect(window.copyToClipboard(png: png))
        expectPaste(window, .pasted(.picture(bytes: png, type: "image/png")))
        #expect(window.clipboardIncrementalTransfers == 1 && window.exchange.reader.incrementalTransfers == 1)
    }
}
