import Foundation
import Testing
import TestRequirementTrait
import ScratchCore
@testable import ScratchX11
import InputTest
import XvfbSupport

/// Real input devices through Xorg's inputtest driver (on the dummy screen): what the
/// window makes of XI 2.2 touches, an absolute pointer and a keyboard that the server
/// itself sends, where the synthetic `XIDeviceEvent`s of `touchEventsAreTranslatedWithoutTheHalfPixel`
/// only stand in for them.
@Suite(.serialized) struct RealInputTests {
    static let modeline = DummyXorg.modeline800x600at60

    /// The touches of the window's events, without the rest (exposures and so on).
    static func touches(_ events: [WindowEvent]) -> [WindowEvent] {
        events.filter {
            switch $0 {
            case .touchBegin, .touchUpdate, .touchEnd: true
            default: false
            }
        }
    }

    /// The pointer events (press, motion, release) among `events`.
    static func pointerEvents(_ events: [WindowEvent]) -> [WindowEvent] {
        events.filter {
            switch $0 {
            case .press, .motion, .release: true
            default: false
            }
        }
    }

    /// A fresh Xorg on the dummy screen with the inputtest `devices`, stopped when `body`
    /// returns or throws.
    static func onFreshServer(_ devices: [InputDeviceKind], _ body: (DummyXorg) throws -> Void) throws {
        let server = try DummyXorg(modeline: modeline, inputDevices: devices)
        defer { server.stop() }
        try body(server)
    }

    /// A window of `size` mapped on `server` that selects touch (expected to work) unless
    /// told not to, the events of its mapping drained so that what comes next is the input's.
    static func quietWindow(on server: DummyXorg, size: PixelSize, selectingTouch: Bool = true,
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> X11Window {
        let (_, window) = try openWindow(on: server, size: size)
        if selectingTouch { #expect(window.enableTouch(), sourceLocation: sourceLocation) }
        _ = window.nextEvents(timeout: 0.1)
        return window
    }

    @Test("no inputtest socket: the client gives up after its timeout, naming the path; a path too long is refused")
    func clientProblemsAreNamed() throws {
        let missing = "/nonexistent-\(getpid())/input.socket"
        let started = Date()
        #expect {
            _ = try InputTestDevice(socketPath: missing, screenWidth: 800, screenHeight: 600, timeout: 0.3)
        } throws: { error in
            "\(error)".hasPrefix("\(missing): no inputtest device within 0.3 s")
        }
        #expect(Date().timeIntervalSince(started) < 5)
        let long = "/tmp/" + String(repeating: "x", count: 200)
        #expect {
            _ = try InputTestDevice(socketPath: long, screenWidth: 800, screenHeight: 600, timeout: 0.3)
        } throws: { error in
            "\(error)".hasSuffix("longer than a Unix socket path can be")
        }
    }

    @Test("two real touches reach the window as touch events with their ids, at the sub-pixel points sent",
          .requires(DummyXorg.inputTestUnavailable))
    func realTouchesAreTranslated() throws {
        try Self.onFreshServer([.touch]) { server in
            let screen = try server.device(.touch)
            let window = try Self.quietWindow(on: server, size: PixelSize(width: 300, height: 200))
            try screen.touch(id: 1, .begin, x: 10.5, y: 20.5)
            try screen.touch(id: 2, .begin, x: 200.25, y: 150.75)
            try screen.touch(id: 1, .update, x: 30.5, y: 20.5)
            try screen.touch(id: 2, .update, x: 220.25, y: 150.75)
            try screen.touch(id: 1, .end, x: 30.5, y: 20.5)
            try screen.touch(id: 2, .end, x: 220.25, y: 150.75)
            try screen.sync()
            let events = Self.touches(window.collect { Self.touches($0).count >= 6 })
            #expect(events.count == 6, "\(events)")
            // The ids are the server's for its clients (it numbers touches itself, whatever
            // the driver called them): the same for one finger from begin to end, different
            // for two fingers down at once.
            guard events.count == 6, case .touchBegin(let first, let a) = events[0], case .touchBegin(let second, let b) = events[1]
            else { Issue.record("\(events)"); return }
            #expect(first != second)
            // The window is at the screen's origin (no window manager): screen points are
            // window points, to the driver's resolution (65536 steps over the width).
            let step = 800.0 / 65536
            func near(_ p: Point, _ x: Double, _ y: Double) -> Bool { abs(p.x - x) <= step && abs(p.y - y) <= step }
            #expect(near(a, 10.5, 20.5), "\(a)")
            #expect(near(b, 200.25, 150.75), "\(b)")
            guard case .touchUpdate(first, let a2) = events[2], case .touchUpdate(second, let b2) = events[3],
                  case .touchEnd(first, _) = events[4], case .touchEnd(second, _) = events[5]
            else { Issue.record("ids do not follow their fingers: \(events)"); return }
            #expect(near(a2, 30.5, 20.5), "\(a2)")
            #expect(near(b2, 220.25, 150.75), "\(b2)")
        }
    }

    /// The driver's axes run over 0...65535 and the server scales them by width / 65536:
    /// the last value is just short of the screen's far edge, the middle one its middle.
    @Test("the inputtest axes map to the screen as value × size / 65536",
          .requires(DummyXorg.inputTestUnavailable))
    func valuatorsMapToTheScreen() throws {
        try Self.onFreshServer([.touch]) { server in
            let screen = try server.device(.touch)
            let window = try Self.quietWindow(on: server, size: PixelSize(width: 800, height: 600))
            try screen.touch(id: 1, .begin, x: 400, y: 300)
            try screen.touch(id: 1, .update, x: 800, y: 600)       // clamped to the axis: 65535
            try screen.touch(id: 1, .end, x: 0, y: 0)
            try screen.sync()
            let events = Self.touches(window.collect { Self.touches($0).count >= 3 })
            guard events.count == 3, case .touchBegin(_, let middle) = events[0], case .touchUpdate(_, let last) = events[1]
            else { Issue.record("\(events)"); return }
            #expect(middle == Point(x: 400, y: 300), "32768 × 800 / 65536")
            #expect(abs(last.x - 65535 * 800 / 65536.0) < 1e-3 && abs(last.y - 65535 * 600 / 65536.0) < 1e-3, "\(last)")
        }
    }

    @Test("a window that selects touch gets no emulated pointer events for a touch; one that does not, gets them",
          .requires(DummyXorg.inputTestUnavailable))
    func touchIsNotAlsoThePointer() throws {
        try Self.onFreshServer([.touch]) { server in
            let screen = try server.device(.touch)
            func drag(id: UInt32) throws {
                try screen.touch(id: id, .begin, x: 50.5, y: 50.5)
                for x in stride(from: 60.5, through: 90.5, by: 10) { try screen.touch(id: id, .update, x: x, y: 50.5) }
                try screen.touch(id: id, .end, x: 90.5, y: 50.5)
                try screen.sync()
            }
            do {
                let window = try Self.quietWindow(on: server, size: PixelSize(width: 200, height: 200), selectingTouch: false)
                try drag(id: 1)
                let events = window.collect { $0.contains { if case .release = $0 { true } else { false } } }
                let pointer = Self.pointerEvents(events)
                #expect(pointer.first == .press(button: 1, at: Point(x: 50.5, y: 50.5), time: Self.time(of: pointer.first)),
                        "without the touch selection a touch is an emulated press: \(events)")
                #expect(Self.touches(events).isEmpty)
            }
            do {
                let window = try Self.quietWindow(on: server, size: PixelSize(width: 200, height: 200))
                try drag(id: 2)
                let events = window.collect(timeout: 3) { Self.touches($0).count >= 6 }
                usleep(200_000)
                let late = window.nextEvents(timeout: 0.1)
                #expect(Self.touches(events).count == 6, "begin, 4 updates, end: \(events)")
                #expect(Self.pointerEvents(events + late).isEmpty, "the touch came only as touches: \(events + late)")
            }
        }
    }

    /// While a mouse holds button 1, a finger that comes down makes the server move the
    /// master pointer to it, as a core motion just before the touch (the pointer
    /// emulation's; its press is not sent): that motion is dropped, the mouse's own stay.
    @Test("a finger touching while the mouse drags: the server's jump of the pointer to the finger is not a motion",
          .requires(DummyXorg.inputTestUnavailable))
    func emulatedMotionIsDropped() throws {
        try Self.onFreshServer([.touch, .pointerAbsolute]) { server in
            let screen = try server.device(.touch), mouse = try server.device(.pointerAbsolute)
            let window = try Self.quietWindow(on: server, size: PixelSize(width: 300, height: 200))
            try mouse.move(toX: 30.5, y: 50.5)
            try mouse.button(1, pressed: true)
            try mouse.sync()
            try screen.touch(id: 1, .begin, x: 270.5, y: 150.5)
            try screen.sync()
            try mouse.move(toX: 40.5, y: 50.5)
            try mouse.sync()
            try screen.touch(id: 1, .update, x: 260.5, y: 150.5)
            try screen.sync()
            try mouse.button(1, pressed: false)
            try mouse.sync()
            try screen.touch(id: 1, .end, x: 260.5, y: 150.5)
            try screen.sync()
            let events = window.collect { Self.touches($0).count >= 3 }
            let motions = events.compactMap { if case .motion(let at, _) = $0 { at } else { nil } }
            #expect(motions == [Point(x: 40.5, y: 50.5)], "the mouse's one motion, not the jump to the finger: \(events)")
            #expect(Self.touches(events).count == 3, "\(events)")
        }
    }

    static func time(of event: WindowEvent?) -> UInt {
        if case .press(_, _, let time) = event { return time }
        return 0
    }

    @Test("a real absolute pointer: motions to pixel centres and button 1 come as press, motion, release at those pixels",
          .requires(DummyXorg.inputTestUnavailable))
    func realAbsolutePointer() throws {
        try Self.onFreshServer([.pointerAbsolute]) { server in
            let pointer = try server.device(.pointerAbsolute)
            let window = try Self.quietWindow(on: server, size: PixelSize(width: 200, height: 200), selectingTouch: false)
            try pointer.move(toX: 20.5, y: 30.5)
            try pointer.button(1, pressed: true)
            try pointer.move(toX: 41.5, y: 30.5)
            try pointer.move(toX: 41.5, y: 77.5)
            try pointer.button(1, pressed: false)
            try pointer.sync()
            let events = Self.pointerEvents(window.collect { $0.contains { if case .release = $0 { true } else { false } } })
            let points: [Point] = events.map {
                switch $0 {
                case .press(_, let p, _), .motion(let p, _), .release(_, let p, _): p
                default: Point(x: -1, y: -1)
                }
            }
            #expect(points == [Point(x: 20.5, y: 30.5), Point(x: 41.5, y: 30.5), Point(x: 41.5, y: 77.5), Point(x: 41.5, y: 77.5)],
                    "\(events)")
            guard events.count == 4, case .press(1, _, _) = events[0], case .release(1, _, _) = events[3]
            else { Issue.record("\(events)"); return }
        }
    }

    @Test("a real keyboard: the driver takes X keycodes (evdev + 8); Ctrl held comes as the modifier",
          .requires(DummyXorg.inputTestUnavailable))
    func realKeyboard() throws {
        try Self.onFreshServer([.keyboard, .pointerAbsolute]) { server in
            let keyboard = try server.device(.keyboard), pointer = try server.device(.pointerAbsolute)
            let (_, window) = try openWindow(on: server, size: PixelSize(width: 200, height: 200))
            // No window manager: the focus follows the pointer.
            try pointer.move(toX: 100, y: 100)
            try pointer.sync()
            _ = window.nextEvents(timeout: 0.2)
            let q = 16, leftControl = 29      // linux/input-event-codes.h: KEY_Q, KEY_LEFTCTRL
            try keyboard.key(evdev: q, pressed: true)
            try keyboard.key(evdev: q, pressed: false)
            try keyboard.key(evdev: leftControl, pressed: true)
            try keyboard.key(24, pressed: true)         // X keycode 24: q again
            try keyboard.key(24, pressed: false)
            try keyboard.key(evdev: leftControl, pressed: false)
            try keyboard.sync()
            let keys = window.collect { $0.filter { if case .key = $0 { true } else { false } }.count >= 3 }
                .filter { if case .key = $0 { true } else { false } }
            #expect(keys == [.key(.q, modifiers: []), .key(.other("Control_L"), modifiers: []), .key(.q, modifiers: [.control])],
                    "\(keys)")
        }
    }
}
