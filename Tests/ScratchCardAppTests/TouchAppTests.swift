import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import ScratchCore
import InputTest
import XvfbSupport

/// The program under real touches and keys: Xorg on the dummy screen with inputtest
/// devices (a touchscreen, a keyboard), the fingers and keys sent through the server as
/// hardware's would be, what the window shows read back as pixels.
@Suite(.serialized) struct TouchAppTests {
    static let modeline = DummyXorg.modeline800x600at60
    static let cover = RGBA(r: 180, g: 180, b: 185)
    static let prize = RGBA(r: 240, g: 160, b: 20)
    static let size = PixelSize(width: 300, height: 200)

    /// A card of two solid colours at the window's size, shown at scale 1.
    static func card() throws -> SolidCard { try SolidCard(cover: cover, prize: prize, size: size) }

    /// A fresh card on a fresh Xorg (the dummy screen) with the inputtest `devices`; both
    /// go when `body` returns or throws, the server first.
    static func onFreshServer(_ devices: [InputDeviceKind], _ body: (SolidCard, DummyXorg) throws -> Void) throws {
        let card = try card(); defer { card.remove() }
        let server = try DummyXorg(modeline: modeline, inputDevices: devices)
        defer { server.stop() }
        try body(card, server)
    }

    /// Runs the card with `options` on `server`; once its window is there, waits for
    /// `firstFrame` (when given) to show in it and expects the "ready" event.
    static func launch(_ server: DummyXorg, _ card: SolidCard, _ options: [String],
                       firstFrame: ((RGBAImage) -> Bool)? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> (RunningApp, window: UInt) {
        let app = try RunningApp(card.arguments + options, environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        if let firstFrame { _ = try server.waitForPixels(window: window, timeout: 30, until: firstFrame) }
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)",
                sourceLocation: sourceLocation)
        return (app, window)
    }

    /// The card in a plain 300x200 window at scale 1, a brush of radius 8; its window and
    /// where it is on the screen, once the cover shows.
    static func start(_ server: DummyXorg, _ card: SolidCard, _ extra: [String] = [],
                      sourceLocation: SourceLocation = #_sourceLocation)
        throws -> (RunningApp, window: UInt, origin: (x: Double, y: Double)) {
        let (app, window) = try launch(server, card, ["--scale", "1", "--brush", "8", "--size", "300x200", "--events", "--stats"] + extra,
                                       firstFrame: { $0[150, 100] == cover }, sourceLocation: sourceLocation)
        let g = try server.geometry(window: window)
        return (app, window, (Double(g.x), Double(g.y)))
    }

    /// Expects `app` to end with exit code 0 and, when `events` is given, its stats to have
    /// counted that many input events; `why` explains the count in the message.
    static func expectEnded(_ app: RunningApp, events: Int? = nil, _ why: String = "",
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)", sourceLocation: sourceLocation)
        if let events {
            #expect(app.stats["events"] == "\(events)", "\(why.isEmpty ? "" : why + ": ")\(app.standardError)",
                    sourceLocation: sourceLocation)
        }
    }

    /// Ends `app` with SIGTERM, then as `expectEnded`.
    static func terminate(_ app: RunningApp, events: Int? = nil, _ why: String = "",
                          sourceLocation: SourceLocation = #_sourceLocation) {
        kill(app.pid, SIGTERM)
        expectEnded(app, events: events, why, sourceLocation: sourceLocation)
    }

    /// X keycodes on the server's default (evdev) keymap.
    static let control = 37, alt = 64, shift = 50, q = 24

    /// Holds `modifiers` down on `keyboard`, taps `key`, lets go of them.
    static func type(_ key: Int, holding modifiers: [Int] = [], on keyboard: InputTestDevice) throws {
        for m in modifiers { try keyboard.key(m, pressed: true) }
        try keyboard.key(key, pressed: true)
        try keyboard.key(key, pressed: false)
        for m in modifiers.reversed() { try keyboard.key(m, pressed: false) }
    }

    /// Touches on `screen` given in the points of a window at `origin` on it.
    static func touches(on screen: InputTestDevice, windowAt origin: (x: Double, y: Double))
        -> (UInt32, TouchPhase, Double, Double) throws -> Void {
        { id, phase, x, y in try screen.touch(id: id, phase, x: origin.x + x, y: origin.y + y) }
    }

    /// The prize pixels of row `y` (the whole width).
    static func revealedInRow(_ image: RGBAImage, _ y: Int) -> Int {
        (0..<image.size.width).filter { image[$0, y] == prize }.count
    }

    @Test("two real fingers scratch two paths at once, each its own stroke; a third beyond --max-fingers scratches nothing, even once one lifts",
          .requires(DummyXorg.inputTestUnavailable))
    func twoFingersAtOnce() throws {
        try Self.onFreshServer([.touch]) { card, server in
            let screen = try server.device(.touch)
            let (app, window, origin) = try Self.start(server, card)
            let touch = Self.touches(on: screen, windowAt: origin)
            // Finger 1 along y = 50 left to right, finger 2 along y = 150 right to left, their
            // moves interleaved: both are down all the while. Finger 3 comes down between
            // them (the default --max-fingers is 2) and moves along x = 150.
            let steps = Array(stride(from: 40.5, through: 260.5, by: 10))
            try touch(11, .begin, 30.5, 50.5)
            try touch(12, .begin, 270.5, 150.5)
            try touch(13, .begin, 150.5, 85.5)
            for (i, x) in steps.enumerated() {
                try touch(11, .update, x, 50.5)
                try touch(12, .update, 300 - x, 150.5)
                try touch(13, .update, 150.5, 85.5 + Double(i + 1))
            }
            try screen.sync()
            let shown = try server.waitForPixels(window: window, timeout: 20) { $0[265, 50] == Self.prize && $0[35, 150] == Self.prize }
            for x in [35, 100, 150, 200, 265] {
                #expect(shown[x, 50] == Self.prize, "finger 1's path at \(x),50")
                #expect(shown[x, 150] == Self.prize, "finger 2's path at \(x),150")
            }
            // Nothing between the paths: the third finger's path, and no line from one
            // finger's points to the other's (which one pen for both would draw).
            for y in [75, 90, 100, 110, 125] {
                #expect(Self.revealedInRow(shown, y) == 0, "row \(y) is still covered")
            }
            #expect(shown[150, 100] == Self.cover && shown[5, 5] == Self.cover && shown[295, 195] == Self.cover)
            // Finger 1 lifts: the third finger, still down, stays ignored (it came down one
            // too many); a new finger now gets the free pen and scratches along y = 180.
            try touch(11, .end, 260.5, 50.5)
            for y in stride(from: 110.5, through: 120.5, by: 2) { try touch(13, .update, 150.5, y) }
            let fresh = Array(stride(from: 170.5, through: 230.5, by: 10))
            try touch(14, .begin, 160.5, 180.5)
            for x in fresh { try touch(14, .update, x, 180.5) }
            try screen.sync()
            let later = try server.waitForPixels(window: window, timeout: 20) { $0[230, 180] == Self.prize }
            #expect(later[160, 180] == Self.prize && later[200, 180] == Self.prize && later[230, 180] == Self.prize,
                    "the new finger's path")
            for y in [75, 90, 100, 110, 115, 120, 125] {
                #expect(Self.revealedInRow(later, y) == 0, "row \(y) is still covered")
            }
            for id: UInt32 in [12, 13, 14] { try touch(id, .end, 150.5, 100.5) }
            try screen.sync()
            // Two fingers' begins and moves, then the new finger's, each one event; the third
            // finger's none, and no emulated pointer event counted on top (a touch is not
            // also a press and motions).
            Self.terminate(app, events: 2 + 2 * steps.count + 1 + fresh.count)
            #expect(app.eventNames.prefix(2) == ["ready", "scratch-start"], "\(app.eventNames)")
            #expect(app.eventNames.contains("progress"), "\(app.eventNames)")
        }
    }

    @Test("a real mouse and a finger scratch at once, each its own stroke: touch selected, the pointer still works",
          .requires(DummyXorg.inputTestUnavailable))
    func mouseAndFingerAtOnce() throws {
        try Self.onFreshServer([.touch, .pointerAbsolute]) { card, server in
            let screen = try server.device(.touch), mouse = try server.device(.pointerAbsolute)
            let (app, window, origin) = try Self.start(server, card)
            let steps = Array(stride(from: 40.5, through: 260.5, by: 10))
            // Two devices are two sockets, which the server reads each in bulk: a sync after
            // each event keeps their events interleaved as sent.
            try mouse.move(toX: origin.x + 30.5, y: origin.y + 50.5)
            try mouse.button(1, pressed: true)
            try mouse.sync()
            try screen.touch(id: 1, .begin, x: origin.x + 270.5, y: origin.y + 150.5)
            try screen.sync()
            for x in steps {
                try mouse.move(toX: origin.x + x, y: origin.y + 50.5)
                try mouse.sync()
                try screen.touch(id: 1, .update, x: origin.x + 300 - x, y: origin.y + 150.5)
                try screen.sync()
            }
            try mouse.button(1, pressed: false)
            try screen.touch(id: 1, .end, x: origin.x + 39.5, y: origin.y + 150.5)
            try mouse.sync()
            try screen.sync()
            let shown = try server.waitForPixels(window: window, timeout: 20) { $0[265, 50] == Self.prize && $0[35, 150] == Self.prize }
            for x in [35, 150, 265] {
                #expect(shown[x, 50] == Self.prize, "the mouse's path at \(x),50")
                #expect(shown[x, 150] == Self.prize, "the finger's path at \(x),150")
            }
            let crossed = (62...138).filter { Self.revealedInRow(shown, $0) > 0 }
            #expect(crossed.isEmpty, "rows between the paths with foil taken: \(crossed)")
            Self.terminate(app, events: 2 + 2 * steps.count, "the press, the touch's begin, each move")
        }
    }

    @Test("a finger dragged off the window keeps its stroke to the edge, and back in goes on; the card takes new touches after",
          .requires(DummyXorg.inputTestUnavailable))
    func fingerLeavesTheWindow() throws {
        try Self.onFreshServer([.touch]) { card, server in
            let screen = try server.device(.touch)
            let (app, window, origin) = try Self.start(server, card)
            let touch = Self.touches(on: screen, windowAt: origin)
            // Out past the right edge (the window is 300 wide) and below the bottom, then back.
            try touch(1, .begin, 200.5, 50.5)
            try touch(1, .update, 500.5, 50.5)
            try touch(1, .update, 500.5, 450.5)
            try touch(1, .update, 250.5, 150.5)
            try touch(1, .end, 250.5, 150.5)
            try touch(2, .begin, 30.5, 150.5)
            try touch(2, .update, 60.5, 150.5)
            try touch(2, .end, 60.5, 150.5)
            try screen.sync()
            let shown = try server.waitForPixels(window: window, timeout: 20) { $0[60, 150] == Self.prize && $0[250, 150] == Self.prize }
            #expect(shown[200, 50] == Self.prize && shown[295, 50] == Self.prize, "to the right edge")
            #expect(shown[250, 150] == Self.prize && shown[60, 150] == Self.prize, "back in, and a new touch")
            #expect(shown[100, 50] == Self.cover && shown[100, 100] == Self.cover, "nothing else")
            #expect(app.process.isRunning)
            Self.terminate(app, events: 6)
        }
    }

    @Test("after a finger lifts (TouchEnd) the next touch starts a new stroke: nothing joins the two paths",
          .requires(DummyXorg.inputTestUnavailable))
    func touchEndEndsTheStroke() throws {
        try Self.onFreshServer([.touch]) { card, server in
            let screen = try server.device(.touch)
            // One finger at most: were the first touch's end lost, the second could not begin.
            let (app, window, origin) = try Self.start(server, card, ["--max-fingers", "1"])
            let touchAnyID = Self.touches(on: screen, windowAt: origin)
            func touch(_ phase: TouchPhase, _ x: Double, _ y: Double) throws {
                // One driver id for both touches: the second is the same finger coming back.
                try touchAnyID(5, phase, x, y)
            }
            try touch(.begin, 30.5, 40.5)
            for x in stride(from: 50.5, through: 110.5, by: 20) { try touch(.update, x, 40.5) }
            try touch(.end, 110.5, 40.5)
            try screen.sync()
            _ = try server.waitForPixels(window: window, timeout: 20) { $0[110, 40] == Self.prize }
            try touch(.begin, 190.5, 160.5)
            for x in stride(from: 210.5, through: 270.5, by: 20) { try touch(.update, x, 160.5) }
            try touch(.end, 270.5, 160.5)
            try screen.sync()
            let shown = try server.waitForPixels(window: window, timeout: 20) { $0[270, 160] == Self.prize }
            #expect(shown[30, 40] == Self.prize && shown[110, 40] == Self.prize, "the first path")
            #expect(shown[190, 160] == Self.prize && shown[270, 160] == Self.prize, "the second path")
            // The line the second touch would draw from the first's last point (110, 40) to
            // its own first (190, 160), were it the same stroke: all still covered.
            for t in stride(from: 0.2, through: 0.8, by: 0.1) {
                let x = Int(110 + 80 * t), y = Int(40 + 120 * t)
                #expect(shown[x, y] == Self.cover, "between the strokes at \(x),\(y)")
            }
            let uncovered = (60...140).filter { Self.revealedInRow(shown, $0) > 0 }
            #expect(uncovered.isEmpty, "rows between the paths with foil taken: \(uncovered)")
            Self.terminate(app, events: 10, "two begins and eight moves")
        }
    }

    @Test("kiosk: a finger held still past --abandon-reset keeps the card and costs no CPU; lifted, the card is abandoned",
          .requires(DummyXorg.inputTestUnavailable))
    func heldFingerIsNotAbandoned() throws {
        try Self.onFreshServer([.touch]) { card, server in
            let screen = try server.device(.touch)
            let logPath = card.folder.appendingPathComponent("cards.log").path
            let (app, window) = try Self.launch(server, card, ["--kiosk", "--events", "--abandon-reset", "0.3", "--log", logPath])
            let g = try server.geometry(window: window)
            #expect(g.width == 800 && g.height == 600, "the kiosk fills the screen: \(g)")
            try screen.touch(id: 3, .begin, x: 400.5, y: 300.5)
            try screen.touch(id: 3, .update, x: 420.5, y: 300.5)
            try screen.sync()
            #expect(waitUntil(timeout: 20) { app.eventNames.contains("scratch-start") }, "\(app.eventNames)")
            let shown = try server.waitForPixels(window: window, timeout: 20) { $0[410, 300] == Self.prize }
            #expect(shown[410, 300] == Self.prize && shown[100, 100] == Self.cover, "the finger scratched where it is")
            // Held still 1.5 s, 5 times the abandon time: the card stays, the loop sleeps.
            let before = try cpuTicks(app.pid)
            usleep(1_500_000)
            let spent = try cpuTicks(app.pid) - before
            #expect(spent <= 5, "\(spent) ticks while the finger was held")
            #expect(!app.eventNames.contains("new-card"), "a card under a finger is not abandoned: \(app.eventNames)")
            try screen.touch(id: 3, .end, x: 420.5, y: 300.5)
            try screen.sync()
            #expect(waitUntil(timeout: 20) { app.eventNames.contains("new-card") }, "\(app.eventNames)")
            Self.terminate(app)
            let (records, _) = try OutcomeLog.read(path: logPath)
            #expect(records.map(\.outcome) == [.abandoned, .quit], "\(records)")
        }
    }

    /// contrib/xinitrc runs the kiosk under openbox: its click to focus (a passive grab
    /// of button 1 on the windows it manages, which a finger's emulated press would
    /// trigger) must not keep the fingers from the card, nor its keys the chord.
    @Test("kiosk under openbox: two real fingers scratch the full-screen card; the chord on a real keyboard ends it",
          .requires(DummyXorg.inputTestUnavailable))
    func kioskUnderAWindowManager() throws {
        try Self.onFreshServer([.touch, .keyboard]) { card, server in
            let manager = try WindowManager(server: server, clickToFocus: true)
            defer { manager.stop() }
            let screen = try server.device(.touch), keyboard = try server.device(.keyboard)
            let (app, window) = try Self.launch(server, card, ["--kiosk", "--events", "--stats", "--verbose", "--scale", "1", "--brush", "8"])
            #expect(app.standardError.contains("kiosk: full screen through the window manager"), "\(app.standardError)")
            var g = try server.geometry(window: window)
            _ = waitUntil(timeout: 10) {
                g = (try? server.geometry(window: window)) ?? g
                return g.x == 0 && g.y == 0 && g.width == 800 && g.height == 600
            }
            #expect(g.x == 0 && g.y == 0 && g.width == 800 && g.height == 600, "full screen: \(g)")
            _ = try server.waitForPixels(window: window, timeout: 20) { $0[400, 300] == Self.cover }
            let steps = Array(stride(from: 120.5, through: 680.5, by: 20))
            try screen.touch(id: 1, .begin, x: 100.5, y: 200.5)
            try screen.touch(id: 2, .begin, x: 700.5, y: 400.5)
            for x in steps {
                try screen.touch(id: 1, .update, x: x, y: 200.5)
                try screen.touch(id: 2, .update, x: 800 - x, y: 400.5)
            }
            try screen.touch(id: 1, .end, x: 680.5, y: 200.5)
            try screen.touch(id: 2, .end, x: 119.5, y: 400.5)
            try screen.sync()
            let shown = try server.waitForPixels(window: window, timeout: 20) { $0[680, 200] == Self.prize && $0[120, 400] == Self.prize }
            for x in [100, 400, 680] {
                #expect(shown[x, 200] == Self.prize, "finger 1 at \(x),200")
                #expect(shown[800 - x, 400] == Self.prize, "finger 2 at \(800 - x),400")
            }
            let crossed = (215...385).filter { Self.revealedInRow(shown, $0) > 0 }
            #expect(crossed.isEmpty, "rows between the paths with foil taken: \(crossed)")
            try Self.type(Self.q, holding: [Self.control, Self.alt, Self.shift], on: keyboard)
            try keyboard.sync()
            Self.expectEnded(app, events: 2 + 2 * steps.count)
            #expect(app.eventNames.last == "quit", "\(app.eventNames)")
        }
    }

    @Test("kiosk: the operator's chord typed on a real keyboard leaves kiosk mode; other keys and near chords do not",
          .requires(DummyXorg.inputTestUnavailable))
    func chordOnARealKeyboard() throws {
        try Self.onFreshServer([.keyboard]) { card, server in
            let keyboard = try server.device(.keyboard)
            let (app, _) = try Self.launch(server, card, ["--kiosk", "--events"])
            let (control, alt, shift, q) = (Self.control, Self.alt, Self.shift, Self.q)
            let escape = 9, space = 65, returnKey = 36, f4 = 70
            func type(_ key: Int, holding modifiers: [Int] = []) throws { try Self.type(key, holding: modifiers, on: keyboard) }
            try type(q)
            try type(escape)
            try type(space)
            try type(returnKey)
            try type(f4, holding: [alt])
            try type(q, holding: [control, alt])
            try type(q, holding: [control, shift])
            try type(q, holding: [alt, shift])
            try keyboard.sync()
            usleep(500_000)
            #expect(app.process.isRunning, "keys other than the chord must not end kiosk mode")
            #expect(app.eventNames == ["ready"], "nor reveal or deal: \(app.eventNames)")
            try type(q, holding: [control, alt, shift])
            try keyboard.sync()
            Self.expectEnded(app)
            #expect(app.eventNames.last == "quit", "\(app.eventNames)")
        }
    }
}
