import Foundation
import Testing
import CX11
import ScratchCore
@testable import ScratchX11
import XvfbSupport

/// Kiosk mode's X11 pieces against real, private Xvfb servers: full screen with and
/// without a window manager (Openbox), the hidden cursor, the screen saver and DPMS
/// kept off, and touch events.
@Suite(.serialized) struct KioskTests {

    /// The window's absolute position and size, as `xwininfo` reports them.
    func placement(_ server: Xvfb, _ window: X11Window) throws -> (x: Int, y: Int, width: Int, height: Int) {
        let text = try server.run("xwininfo", ["-id", "\(window.windowID)"])
        func value(_ label: String) -> Int {
            for line in text.split(separator: "\n") where line.contains(label) {
                return Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) ?? -1
            }
            return -1
        }
        return (value("Absolute upper-left X"), value("Absolute upper-left Y"), value("Width"), value("Height"))
    }

    /// Polls until the window covers the screen at 0,0, or `timeout` passes.
    func waitForScreenCover(_ server: Xvfb, _ window: X11Window, _ screen: PixelSize,
                            timeout: Double = 5) throws -> (x: Int, y: Int, width: Int, height: Int) {
        let deadline = Date().addingTimeInterval(timeout)
        var place = try placement(server, window)
        while !(place.x == 0 && place.y == 0 && place.width == screen.width && place.height == screen.height),
              Date() < deadline {
            _ = window.nextEvents(timeout: 0.05)
            place = try placement(server, window)
        }
        return place
    }

    // MARK: full screen

    @Test func fullScreenWithoutAWindowManagerCoversTheScreenAndTakesTheFocus() throws {
        let server = try Xvfb(width: 640, height: 400)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        #expect(!display.windowManagerOffersFullScreen)
        let window = try X11Window(display: display, size: PixelSize(width: 200, height: 100), title: "kiosk")
        #expect(window.makeFullScreen() == .withoutWindowManager)
        #expect(window.map())
        let events = window.collect { $0.contains(.resized(display.screenSize)) }
        #expect(events.contains(.resized(PixelSize(width: 640, height: 400))), "\(events)")
        #expect(window.size == display.screenSize)
        let place = try placement(server, window)
        #expect(place == (0, 0, 640, 400), "\(place)")
        let focus = try server.xdotool("getwindowfocus")
        #expect(UInt(focus.trimmingCharacters(in: .whitespacesAndNewlines)) == window.windowID, "focus \(focus)")

        // Another client takes the focus: the window takes it back (FocusOut).
        let other = try X11Display(name: server.displayName)
        let thief = try X11Window(display: other, size: PixelSize(width: 10, height: 10), title: "thief")
        #expect(thief.map())
        try server.xdotool("windowfocus", "\(thief.windowID)")
        var back = false
        let deadline = Date().addingTimeInterval(5)
        while !back, Date() < deadline {
            _ = window.nextEvents(timeout: 0.1)
            let now = try server.xdotool("getwindowfocus").trimmingCharacters(in: .whitespacesAndNewlines)
            back = UInt(now) == window.windowID
        }
        #expect(back, "the kiosk window has the focus again")
    }

    @Test func createdAtScreenSizeWithoutAWindowManagerNeedsNoResize() throws {
        let server = try Xvfb(width: 320, height: 240)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: display.screenSize, title: "kiosk")
        #expect(window.makeFullScreen() == .withoutWindowManager)
        #expect(window.map())
        let events = window.nextEvents(timeout: 0.2)
        #expect(!events.contains { if case .resized = $0 { true } else { false } }, "\(events)")
        #expect(try placement(server, window) == (0, 0, 320, 240))
    }

    @Test func fullScreenUnderOpenboxBeforeMap() throws {
        let server = try Xvfb(width: 640, height: 400)
        defer { server.stop() }
        let manager = try WindowManager(server: server)
        defer { manager.stop() }
        let display = try X11Display(name: server.displayName)
        #expect(display.windowManagerOffersFullScreen)
        let window = try X11Window(display: display, size: display.screenSize, title: "kiosk")
        #expect(window.makeFullScreen() == .windowManager)
        #expect(window.map(timeout: 15), "openbox \(manager.isRunning ? "running" : "gone"): \(manager.log)")
        let place = try waitForScreenCover(server, window, display.screenSize)
        #expect(place == (0, 0, 640, 400), "\(place)")
        let state = try server.xprop(id: window.windowID, "_NET_WM_STATE")
        #expect(state.contains("_NET_WM_STATE_FULLSCREEN"), "\(state)")
        _ = window.nextEvents(timeout: 0.1)
        #expect(window.size == display.screenSize)
    }

    @Test func fullScreenUnderOpenboxAfterMap() throws {
        let server = try Xvfb(width: 640, height: 400)
        defer { server.stop() }
        let manager = try WindowManager(server: server)
        defer { manager.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 200, height: 100), title: "kiosk")
        #expect(window.map(timeout: 15), "openbox \(manager.isRunning ? "running" : "gone"): \(manager.log)")
        _ = window.nextEvents(timeout: 0.1)
        #expect(window.makeFullScreen() == .windowManager)
        let events = window.collect { $0.contains(.resized(display.screenSize)) }
        #expect(events.contains(.resized(PixelSize(width: 640, height: 400))), "\(events)")
        let place = try waitForScreenCover(server, window, display.screenSize)
        #expect(place == (0, 0, 640, 400), "\(place)")
        let state = try server.xprop(id: window.windowID, "_NET_WM_STATE")
        #expect(state.contains("_NET_WM_STATE_FULLSCREEN"), "\(state)")
    }

    /// Counts, on the fake manager's thread, what `map` is asked to wait on.
    final class RequestCount: @unchecked Sendable { var value = 0 }

    /// A manager still starting up drops a MapRequest (Openbox does, under load): the
    /// window asks again while it waits. The fake manager here holds SubstructureRedirect
    /// on the root, drops the first two requests and grants the third.
    @Test func aMapRequestTheManagerDropsIsAskedAgain() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let manager = try #require(XOpenDisplay(server.displayName))
        XSelectInput(manager, XDefaultRootWindow(manager), SubstructureRedirectMask)
        XSync(manager, 0)
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 50, height: 50), title: "kiosk")
        let requests = RequestCount()
        let granted = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let connection = manager
        DispatchQueue.global().async {
            var event = XEvent()
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                while XPending(connection) > 0 {
                    XNextEvent(connection, &event)
                    guard event.type == MapRequest else { continue }
                    requests.value += 1
                    if requests.value == 3 {
                        XMapWindow(connection, event.xmaprequest.window)
                        XFlush(connection)
                        granted.signal()
                        return
                    }
                }
                var poller = pollfd(fd: XConnectionNumber(connection), events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, 20)
            }
            granted.signal()
        }
        // Asked once, never again: the dropped request leaves the window unmapped.
        #expect(!window.map(timeout: 1.5, askAgainAfter: 60))
        // Asked again while waiting: the third request is granted.
        #expect(window.map(timeout: 10, askAgainAfter: 0.5))
        granted.wait()
        #expect(requests.value == 3)
        XCloseDisplay(manager)
    }

    @Test func aDeadWindowManagersPropertyIsNotTrusted() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let manager = try WindowManager(server: server)
        let display = try X11Display(name: server.displayName)
        #expect(display.windowManagerOffersFullScreen)
        manager.stop()
        // The root keeps _NET_SUPPORTING_WM_CHECK (and _NET_SUPPORTED) naming a window
        // that is gone, or Openbox removed them: either way, no manager.
        var gone = false
        let deadline = Date().addingTimeInterval(5)
        while !gone, Date() < deadline {
            gone = !display.windowManagerOffersFullScreen
            if !gone { usleep(50_000) }
        }
        #expect(gone)
        let window = try X11Window(display: display, size: PixelSize(width: 50, height: 50), title: "kiosk")
        #expect(window.makeFullScreen() == .withoutWindowManager)
    }

    /// A manager that died without cleaning up leaves _NET_SUPPORTING_WM_CHECK naming a
    /// window that is gone: reading that window's property raises BadWindow, trapped,
    /// and the answer is "no manager" (nothing reported on stderr).
    @Test func aStaleSupportingWMCheckIsNotAWindowManager() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let d = display.handle
        let check = XCreateSimpleWindow(d, display.rootWindow, 0, 0, 1, 1, 0, 0, 0)
        func setWindowProperty(_ window: Window, _ name: String, _ type: Atom, _ values: [UInt]) {
            values.withUnsafeBytes {
                _ = XChangeProperty(d, window, display.atom(name), type, 32, PropModeReplace,
                                    $0.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(values.count))
            }
        }
        let id = UInt(check)
        setWindowProperty(display.rootWindow, "_NET_SUPPORTING_WM_CHECK", Atom(XA_WINDOW), [id])
        setWindowProperty(display.rootWindow, "_NET_SUPPORTED", Atom(XA_ATOM),
                          [UInt(display.atom("_NET_WM_STATE")), UInt(display.atom("_NET_WM_STATE_FULLSCREEN"))])
        #expect(!display.windowManagerOffersFullScreen, "the check window does not name itself yet")
        setWindowProperty(Window(id), "_NET_SUPPORTING_WM_CHECK", Atom(XA_WINDOW), [id])
        display.sync()
        #expect(display.windowManagerOffersFullScreen)
        setWindowProperty(display.rootWindow, "_NET_SUPPORTED", Atom(XA_ATOM), [UInt(display.atom("_NET_WM_STATE"))])
        #expect(!display.windowManagerOffersFullScreen, "no fullscreen in _NET_SUPPORTED")
        setWindowProperty(display.rootWindow, "_NET_SUPPORTED", Atom(XA_ATOM), [UInt(display.atom("_NET_WM_STATE_FULLSCREEN"))])
        #expect(display.windowManagerOffersFullScreen)
        XDestroyWindow(d, Window(id))   // the "manager" dies; the root keeps its properties
        display.sync()
        #expect(!display.windowManagerOffersFullScreen)
    }

    // MARK: keyboard

    @Test("holdKeyboard: the grab is taken at map, no other client can take the keyboard, keys come wherever the pointer is; an unmap ends it, the next map takes it again")
    func heldKeyboard() throws {
        let server = try Xvfb(width: 320, height: 240)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 100, height: 100), title: "t")
        #expect(!window.holdKeyboard(), "nothing to grab before the window is mapped")
        #expect(window.map())
        _ = window.nextEvents(timeout: 0)
        #expect(window.holdsKeyboard)

        let other = try X11Display(name: server.displayName)
        func otherGrab() -> Int32 {
            defer { XUngrabKeyboard(other.handle, Time(CurrentTime)); other.sync() }
            return XGrabKeyboard(other.handle, other.rootWindow, 1, GrabModeAsync, GrabModeAsync, Time(CurrentTime))
        }
        #expect(otherGrab() == AlreadyGrabbed)

        // The pointer far outside the window: with no window manager the focus follows
        // it to the root, but the keys still come here.
        try server.xdotool("mousemove", "300", "200", "key", "k")
        let keys = window.collect { $0.contains { if case .key = $0 { true } else { false } } }
        #expect(keys.contains { if case .key(let key, _) = $0 { key == .other("k") } else { false } }, "\(keys)")

        window.unmap()
        _ = window.collect { _ in !window.holdsKeyboard }
        #expect(!window.holdsKeyboard)
        #expect(otherGrab() == GrabSuccess)
        #expect(window.map())
        _ = window.nextEvents(timeout: 0)
        #expect(window.holdsKeyboard, "taken again at the next map")
        #expect(otherGrab() == AlreadyGrabbed)
    }

    // MARK: cursor

    @Test func hiddenCursorIsInvisibleOverTheWindowAndComesBack() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let (display, window) = try mappedWindow(on: server, pointerAt: 50, 50)
        let before = try #require(server.currentCursorImage())
        #expect(!before.isInvisible, "the server's default cursor shows: \(before.width)x\(before.height)")

        window.hideCursor()
        display.sync()
        let hidden = try #require(server.currentCursorImage())
        #expect(hidden.isInvisible)
        #expect(hidden.width == 1 && hidden.height == 1)

        // Pointer events still arrive with the cursor hidden (a drag: motion is selected
        // only while button 1 is held).
        try server.xdotool("mousemove", "--window", "\(window.windowID)", "20", "30", "mousedown", "1",
                           "mousemove", "--window", "\(window.windowID)", "25", "35", "mouseup", "1")
        let moved = window.collect { $0.contains { if case .release = $0 { true } else { false } } }
        #expect(moved.contains { if case .motion = $0 { true } else { false } }, "\(moved)")

        window.showCursor()
        display.sync()
        let shown = try #require(server.currentCursorImage())
        #expect(shown == before)

        // Hiding again reuses the same cursor; outside the window the cursor shows.
        window.hideCursor()
        display.sync()
        #expect(server.currentCursorImage()?.isInvisible == true)
        try server.xdotool("mousemove", "300", "300")
        #expect(server.currentCursorImage()?.isInvisible == false)
    }

    // MARK: screen saver and DPMS

    /// The screen saver's timeout and cycle and the DPMS line of `xset q`.
    func xsetQuery(_ server: Xvfb) throws -> (timeout: Int, cycle: Int, dpms: String) {
        let text = try server.run("xset", ["q"])
        var timeout = -1, cycle = -1
        var dpms = "unknown"
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if let i = words.firstIndex(of: "timeout:"), i + 1 < words.count { timeout = Int(words[i + 1]) ?? -1 }
            if let i = words.firstIndex(of: "cycle:"), i + 1 < words.count { cycle = Int(words[i + 1]) ?? -1 }
            if line.contains("DPMS is Enabled") { dpms = "enabled" }
            if line.contains("DPMS is Disabled") { dpms = "disabled" }
            if line.contains("does not have the DPMS Extension") { dpms = "absent" }
        }
        return (timeout, cycle, dpms)
    }

    /// Xvfb (21.1 here) has the screen saver but no DPMS extension, whatever its
    /// options: the DPMS half is checked as "absent, left alone"; the DPMSDisable and
    /// DPMSEnable calls are only exercised against a server with DPMS (Xorg).
    @Test func inhibitorTurnsTheScreenSaverOffAndRestoresExactly() throws {
        let server = try Xvfb()
        defer { server.stop() }
        try server.run("xset", ["s", "300", "450"])
        #expect(try xsetQuery(server) == (300, 450, "absent"))
        let display = try X11Display(name: server.displayName)
        let inhibitor = ScreenBlankingInhibitor(display: display)
        #expect(inhibitor.saved.timeout == 300)
        #expect(inhibitor.saved.interval == 450)
        #expect(inhibitor.saved.dpmsEnabled == nil, "Xvfb has no DPMS")
        #expect(try xsetQuery(server) == (0, 450, "absent"), "off; the cycle is kept")
        #expect(ScreenBlankingSettings(of: display).timeout == 0)

        inhibitor.restore()
        #expect(try xsetQuery(server) == (300, 450, "absent"))
        #expect(ScreenBlankingSettings(of: display) == inhibitor.saved)
        try server.run("xset", ["s", "60"])
        inhibitor.restore()   // a second call changes nothing
        #expect(try xsetQuery(server).timeout == 60)
    }

    @Test func inhibitorRestoresWhenReleasedAndFromAnotherClientsView() throws {
        let server = try Xvfb()
        defer { server.stop() }
        try server.run("xset", ["s", "120", "s", "noblank"])
        let before = try server.run("xset", ["q"])
        do {
            let display = try X11Display(name: server.displayName)
            let inhibitor = ScreenBlankingInhibitor(display: display)
            #expect(try xsetQuery(server).timeout == 0)
            #expect(inhibitor.saved.preferBlanking == 0, "noblank")
        }   // inhibitor and display released
        #expect(try server.run("xset", ["q"]) == before, "exactly as it was")
    }

    // MARK: touch

    @Test func enableTouchSelectsXInput22OnXvfb() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 100, height: 100), title: "t")
        #expect(window.enableTouch(), "Xvfb 21 has XInput 2.2; the selection needs no touch device")
        #expect(window.enableTouch(), "a second call is harmless")
        #expect(window.map())
        // The mouse still works as before.
        try server.xdotool("mousemove", "--window", "\(window.windowID)", "10", "20")
        try server.xdotool("click", "1")
        let events = window.collect { $0.contains { if case .release = $0 { true } else { false } } }
        #expect(events.contains { if case .press(1, Point(x: 10.5, y: 20.5), _) = $0 { true } else { false } }, "\(events)")
    }

    /// Xvfb cannot run without XInput (it ignores -extension XInputExtension), so the
    /// false answer cannot be provoked; check instead that true means the server
    /// really holds our selection (`XIGetSelectedEvents`).
    @Test func enableTouchLeavesTheTouchSelectionOnTheServer() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 10, height: 10), title: "t")
        func selected() -> [Int32: [UInt8]] {
            var count: Int32 = 0
            guard let masks = XIGetSelectedEvents(display.handle, Window(window.windowID), &count) else { return [:] }
            defer { XFree(masks) }
            var result: [Int32: [UInt8]] = [:]
            for i in 0..<Int(count) {
                let m = masks[i]
                result[m.deviceid] = Array(UnsafeBufferPointer(start: m.mask, count: Int(m.mask_len)))
            }
            return result
        }
        #expect(selected().isEmpty)
        #expect(window.enableTouch())
        let masks = selected()
        let mask = try #require(masks[XIAllMasterDevices], "\(masks)")
        func isSet(_ event: Int32) -> Bool {
            Int(event) / 8 < mask.count && mask[Int(event) / 8] & UInt8(1 << (event % 8)) != 0
        }
        #expect(isSet(XI_TouchBegin) && isSet(XI_TouchUpdate) && isSet(XI_TouchEnd))
        #expect(!isSet(XI_Motion) && !isSet(XI_ButtonPress), "the pointer stays on core events")
    }

    /// Xvfb has no touch device and XTest cannot touch: the translation is tested here
    /// with synthetic XIDeviceEvents, as libXi hands them over after XGetEventData; real
    /// touches through a server are RealInputTests' (Xorg with the inputtest driver).
    @Test func touchEventsAreTranslatedWithoutTheHalfPixel() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 100, height: 100), title: "t")
        func touch(_ type: Int32, _ id: Int32, _ x: Double, _ y: Double, window target: UInt? = nil) -> XIDeviceEvent {
            var e = XIDeviceEvent()
            e.type = GenericEvent
            e.evtype = type
            e.detail = id
            e.event = Window(target ?? window.windowID)
            e.event_x = x
            e.event_y = y
            e.root_x = x + 100
            e.root_y = y + 200
            return e
        }
        #expect(window.translateTouch(touch(XI_TouchBegin, 7, 10.25, 20.75)) == .touchBegin(id: 7, at: Point(x: 10.25, y: 20.75)))
        #expect(window.translateTouch(touch(XI_TouchUpdate, 7, 11, 21.5)) == .touchUpdate(id: 7, at: Point(x: 11, y: 21.5)))
        #expect(window.translateTouch(touch(XI_TouchEnd, 7, 12.125, 22)) == .touchEnd(id: 7, at: Point(x: 12.125, y: 22)))
        // Touch ids are unsigned 32-bit in the protocol.
        #expect(window.translateTouch(touch(XI_TouchBegin, -1, 0, 0)) == .touchBegin(id: 0xFFFF_FFFF, at: Point(x: 0, y: 0)))
        // Another window's touch, and other XI2 events, are not ours.
        #expect(window.translateTouch(touch(XI_TouchBegin, 8, 1, 1, window: window.windowID + 1)) == nil)
        #expect(window.translateTouch(touch(XI_Motion, 8, 1, 1)) == nil)
        #expect(window.translateTouch(touch(XI_TouchOwnership, 8, 1, 1)) == nil)
    }
}
