import Foundation
import Testing
import ScratchCore
@testable import ScratchX11
import XvfbSupport

/// The window as an XDND target, with a GTK 3 drag source (python3-gi) dragged onto it
/// with XTest, with and without a window manager.
@Suite(.serialized) struct DropTargetTests {
    /// A picture file (its bytes matter not here: the test decides what it can use).
    func file(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "drop-\(getpid())-\(name)"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Drags from `source` onto the window's middle while reading the window's events,
    /// until the drag ends (or 30 s); the events read.
    func drag(_ source: GTKDragSource, onto window: X11Window, _ server: Xvfb, hold: Double = 0.5) throws -> [WindowEvent] {
        var origin = window.placement()
        origin.x += window.size.width / 2; origin.y += window.size.height / 2
        let hand = try source.drag(server: server, toX: origin.x, toY: origin.y, hold: hold)
        var events: [WindowEvent] = []
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            events += window.nextEvents(timeout: 0.02)
            let said = source.client.outputText
            if !hand.isRunning, said.contains("drag-end") { break }
        }
        // The last messages (XdndFinished) reach the source.
        for _ in 0..<10 { events += window.nextEvents(timeout: 0.02) }
        return events
    }

    func dropped(_ events: [WindowEvent]) -> [[String]] {
        events.compactMap { if case .dropped(let paths) = $0 { paths } else { nil } }
    }

    @Test func aPictureDraggedFromGTKIsDropped() throws {
        let server = try Xvfb(width: 640, height: 400)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 240, height: 200), title: "target")
        var asked: [[String]] = []
        window.acceptDrops { paths in asked.append(paths); return paths.contains { $0.hasSuffix(".png") } }
        #expect(try server.xprop(id: window.windowID, "XdndAware").contains("XdndAware(ATOM) = "))
        #expect(window.map())
        let photo = try file("My photo.png")
        let source = try GTKDragSource(server: server, x: 400, y: 100, uris: [URL(fileURLWithPath: photo).absoluteString])
        let events = try drag(source, onto: window, server)
        #expect(dropped(events) == [[photo]], "events \(events), source said \(source.client.outputText)")
        #expect(!asked.isEmpty && asked.allSatisfy { $0 == [photo] })
        #expect(source.client.outputText.contains("data-get"))
        #expect(!source.client.outputText.contains("drag-failed"), "\(source.client.outputText)")
    }

    @Test func aFileItCannotUseIsRefusedAndNothingDrops() throws {
        let server = try Xvfb(width: 640, height: 400)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 240, height: 200), title: "target")
        var asked = 0
        window.acceptDrops { paths in asked += 1; return paths.contains { $0.hasSuffix(".png") } }
        #expect(window.map())
        let notes = try file("notes.txt")
        let source = try GTKDragSource(server: server, x: 400, y: 100, uris: [URL(fileURLWithPath: notes).absoluteString])
        let events = try drag(source, onto: window, server)
        #expect(dropped(events).isEmpty, "\(events)")
        #expect(asked >= 1, "the list was fetched and tested")
        // Every position refused: GTK ends the drag as failed (no target took it).
        #expect(source.client.outputText.contains("drag-failed"), "\(source.client.outputText)")
    }

    @Test func aWindowThatTakesNoDropsIsNoTarget() throws {
        let server = try Xvfb(width: 640, height: 400)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 240, height: 200), title: "kiosk")
        #expect(window.map())
        #expect(!(try server.xprop(id: window.windowID, "XdndAware").contains("XdndAware(ATOM)")))
        let source = try GTKDragSource(server: server, x: 400, y: 100, uris: [URL(fileURLWithPath: file("a.png")).absoluteString])
        let events = try drag(source, onto: window, server)
        #expect(dropped(events).isEmpty)
        #expect(source.client.outputText.contains("drag-failed"), "\(source.client.outputText)")
    }

    @Test func aLongListComesInPiecesAndTheFirstUsableFileCounts() throws {
        let server = try Xvfb(width: 640, height: 400)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 240, height: 200), title: "target")
        window.acceptDrops { paths in paths.contains { $0.hasSuffix(".png") } }
        #expect(window.map())
        // 4,000 names of 100 bytes: 400 kB, more than GTK sends in one piece.
        let padding = String(repeating: "x", count: 80)
        var uris = (0..<4000).map { "file:///tmp/\(padding)-\($0).txt" }
        let photo = try file("late.png")
        uris.append(URL(fileURLWithPath: photo).absoluteString)
        let source = try GTKDragSource(server: server, x: 400, y: 100, uris: uris)
        // Over the target long enough for the 400 kB list to come in pieces before the
        // release (its status waits for it), even on a loaded machine.
        let events = try drag(source, onto: window, server, hold: 3)
        let got = dropped(events)
        #expect(got.count == 1 && got.first?.count == 4001 && got.first?.last == photo,
                "\(got.count) drops, \(got.first?.count ?? 0) paths; source said \(source.client.outputText)")
        #expect(window.exchange.reader.incrementalTransfers >= 1)
    }

    @Test func aDropUnderOpenboxToo() throws {
        let server = try Xvfb(width: 640, height: 400)
        defer { server.stop() }
        let manager = try WindowManager(server: server)
        defer { manager.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 240, height: 200), title: "target")
        window.acceptDrops { paths in paths.contains { $0.hasSuffix(".png") } }
        #expect(window.map(timeout: 15), "openbox: \(manager.log)")
        _ = window.nextEvents(timeout: 0.3)
        let photo = try file("wm.png")
        // Openbox places the source where it likes: find its window and drag from its middle.
        let source = try GTKDragSource(server: server, x: 380, y: 100, uris: [URL(fileURLWithPath: photo).absoluteString])
        let events = try drag(source, onto: window, server)
        #expect(dropped(events) == [[photo]], "events \(events), source said \(source.client.outputText)")
    }
}
