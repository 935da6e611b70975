@preconcurrency import Glibc
import CX11
import ScratchCore

// What kiosk mode asks of the window: the whole screen, the keyboard, no cursor, multi-touch.
// The screen saver and DPMS are the display's business: see ScreenBlankingInhibitor.

/// How `X11Window.makeFullScreen()` went about it.
public enum FullScreenMethod: Equatable, Sendable {
    /// An EWMH window manager runs and offers full screen: the window asked it for
    /// `_NET_WM_STATE_FULLSCREEN`, and the manager places and sizes it.
    case windowManager
    /// No such window manager: the window moved itself to 0,0 at the screen's size
    /// (`XMoveResizeWindow`) and keeps the input focus (`XSetInputFocus`).
    case withoutWindowManager
}

extension X11Window {
    /// Makes the window cover the screen, with or without a window manager.
    ///
    ///     let window = try X11Window(display: display, size: display.screenSize, title: "Scratch card")
    ///     window.makeFullScreen()   // before map: the window appears full screen at once
    ///     window.map()
    ///
    /// Created at `display.screenSize`, the window is already the screen's size at 0,0
    /// before this call; it may also be called after `map()`.
    ///
    /// - With an EWMH window manager (`X11Display.windowManagerOffersFullScreen`): before
    ///   the window is mapped, sets its `_NET_WM_STATE` property to
    ///   `[_NET_WM_STATE_FULLSCREEN]`, which the manager reads when it maps the window;
    ///   once mapped, sends the manager the `_NET_WM_STATE` ClientMessage (add
    ///   fullscreen) on the root window. The manager then resizes the window: expect a
    ///   `.resized` event.
    /// - Without one: moves and resizes the window to 0,0 and the screen's size
    ///   (`XMoveResizeWindow`, nothing else would place it), raises it, and from then on
    ///   gives it the input focus (`XSetInputFocus`) when it is mapped, when the pointer
    ///   enters it and when another client takes the focus away. Override-redirect is
    ///   not used, so a window manager started later still manages the window.
    @discardableResult
    public func makeFullScreen() -> FullScreenMethod {
        let d = display.handle
        fullScreenWanted = true
        if display.windowManagerOffersFullScreen {
            askWindowManager(fullScreen: true)
            return .windowManager
        }
        let screen = display.screenSize
        XMoveResizeWindow(d, handle, 0, 0, UInt32(screen.width), UInt32(screen.height))
        XRaiseWindow(d, handle)
        if !keepsFocus {
            keepsFocus = true
            XSelectInput(d, handle, Self.eventMask | EnterWindowMask | FocusChangeMask)
        }
        if mapRequested && sawMapNotify { takeFocus() }
        display.flush()
        return .withoutWindowManager
    }

    /// Asks the window manager to add or remove `_NET_WM_STATE_FULLSCREEN`: once the
    /// window is mapped, the `_NET_WM_STATE` ClientMessage on the root window; before,
    /// the window's own `_NET_WM_STATE` property, which the manager reads when it maps it.
    func askWindowManager(fullScreen: Bool) {
        let d = display.handle
        let state = display.atom("_NET_WM_STATE")
        let fullScreenAtom = display.atom("_NET_WM_STATE_FULLSCREEN")
        if mapRequested {
            var event = XEvent()
            event.xclient.type = ClientMessage
            event.xclient.send_event = 1
            event.xclient.window = handle
            event.xclient.message_type = state
            event.xclient.format = 32
            event.xclient.data.l.0 = fullScreen ? 1 : 0   // _NET_WM_STATE_ADD, _REMOVE
            event.xclient.data.l.1 = Int(fullScreenAtom)
            event.xclient.data.l.2 = 0
            event.xclient.data.l.3 = 1   // source: an ordinary application
            XSendEvent(d, display.rootWindow, 0, SubstructureRedirectMask | SubstructureNotifyMask, &event)
        } else {
            let atoms: [Atom] = fullScreen ? [fullScreenAtom] : []
            atoms.withUnsafeBytes { bytes in
                _ = XChangeProperty(d, handle, state, Atom(XA_ATOM), 32, PropModeReplace,
                                    bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? nil,
                                    Int32(atoms.count))
            }
        }
        display.flush()
    }

    /// Gives this window the input focus (`XSetInputFocus`, reverting to the pointer
    /// root). Trapped: the window may have been unmapped meanwhile (BadMatch), which
    /// is no error here.
    func takeFocus() {
        let d = display.handle
        _ = trapErrors(d) { XSetInputFocus(d, handle, Int32(RevertToPointerRoot), Time(CurrentTime)) }
    }

    /// Holds the keyboard for this window from now on: an active grab (`XGrabKeyboard`,
    /// owner events, asynchronous), taken now if the window is mapped, else when its
    /// MapNotify comes. Every key then comes to this window, and a window manager's own
    /// key bindings (passive grabs) do not fire: a visitor cannot switch away from a kiosk
    /// with Alt+Tab. Returns `holdsKeyboard`: false while the window is not mapped yet or
    /// another client holds the keyboard; call again later (the server refuses, it does
    /// not queue). The server ends the grab if the window is unmapped.
    @discardableResult
    public func holdKeyboard() -> Bool {
        keepsKeyboard = true
        if mapRequested && sawMapNotify { grabKeyboard() }
        return holdsKeyboard
    }

    func grabKeyboard() {
        guard !holdsKeyboard else { return }
        let status = XGrabKeyboard(display.handle, handle, 1, GrabModeAsync, GrabModeAsync, Time(CurrentTime))
        holdsKeyboard = status == GrabSuccess
    }

    /// Hides the pointer over this window: defines an invisible cursor, made once from
    /// a 1x1 bitmap whose mask is empty (`XCreateBitmapFromData`, `XCreatePixmapCursor`,
    /// `XDefineCursor`). The pointer still moves and clicks as before.
    public func hideCursor() {
        let d = display.handle
        if blankCursor == 0 {
            var bits: [CChar] = [0]
            let bitmap = XCreateBitmapFromData(d, handle, &bits, 1, 1)
            // The colours do not matter: the empty mask shows none of the cursor.
            var foreground = XColor(), background = XColor()
            blankCursor = XCreatePixmapCursor(d, bitmap, bitmap, &foreground, &background, 0, 0)
            XFreePixmap(d, bitmap)
        }
        XDefineCursor(d, handle, blankCursor)
        display.flush()
    }

    /// Shows the pointer again: the window goes back to its parent's cursor
    /// (`XUndefineCursor`).
    public func showCursor() {
        XUndefineCursor(display.handle, handle)
        display.flush()
    }

    /// Asks for multi-touch events (`.touchBegin`, `.touchUpdate`, `.touchEnd`) from
    /// every touch device, through XInput 2.2: `XIQueryVersion` (2.2 or later needed),
    /// then `XISelectEvents` of XI_TouchBegin, XI_TouchUpdate and XI_TouchEnd on this
    /// window for all master devices. Returns false when the server lacks XInput 2.2 or
    /// refuses the selection (the error is trapped); the pointer events go on as before.
    ///
    /// Once touch is selected, the server no longer emulates the pointer for touches
    /// on this window (a touch is not also a press, motion and release), while real
    /// mice still give `.press`, `.motion` and `.release`. A server without touch
    /// devices (Xvfb) accepts the selection all the same: it returns true there.
    @discardableResult
    public func enableTouch() -> Bool {
        if xiOpcode != nil { return true }
        let d = display.handle
        var opcode: Int32 = 0, firstEvent: Int32 = 0, firstError: Int32 = 0
        guard XQueryExtension(d, "XInputExtension", &opcode, &firstEvent, &firstError) != 0 else { return false }
        var major: Int32 = 2, minor: Int32 = 2
        // Reports the server's version, at most the one asked for. Trapped: a server
        // answers BadValue when this connection already announced another XI2 version.
        let (version, versionError) = trapErrors(d) { XIQueryVersion(d, &major, &minor) }
        guard version == Success, versionError == 0, major > 2 || (major == 2 && minor >= 2) else {
            return false
        }
        var maskBytes = [UInt8](repeating: 0, count: Int(cx11_xi_touch_mask_length))
        let (status, error) = maskBytes.withUnsafeMutableBufferPointer { bytes in
            cx11_xi_set_touch_mask(bytes.baseAddress)
            var mask = XIEventMask(deviceid: XIAllMasterDevices, mask_len: Int32(bytes.count), mask: bytes.baseAddress)
            return trapErrors(d) { XISelectEvents(d, handle, &mask, 1) }
        }
        guard status == Success, error == 0 else { return false }
        xiOpcode = opcode
        touchDevicePresent = cx11_xi_has_touch_device(d) != 0
        return true
    }

    /// An XInput 2 event (a GenericEvent cookie): its data is fetched
    /// (`XGetEventData`), translated and freed (`XFreeEventData`).
    func translateGeneric(_ event: inout XEvent) -> WindowEvent? {
        guard let opcode = xiOpcode, event.xcookie.extension == opcode else { return nil }
        let d = display.handle
        guard XGetEventData(d, &event.xcookie) != 0 else { return nil }
        defer { XFreeEventData(d, &event.xcookie) }
        guard let data = event.xcookie.data else { return nil }
        let type = event.xcookie.evtype
        guard type == XI_TouchBegin || type == XI_TouchUpdate || type == XI_TouchEnd else { return nil }
        let touch = data.assumingMemoryBound(to: XIDeviceEvent.self).pointee
        touchDevicePresent = true
        if type == XI_TouchBegin, touch.flags & XITouchEmulatingPointer != 0 { pointerEmulatingTouchTime = UInt(touch.time) }
        return translateTouch(touch)
    }

    /// Drops the core motion the server sends just before a touch that emulates the
    /// pointer: the master pointer jumps to the finger, and while a mouse holds button 1
    /// that jump comes as a `MotionNotify` (the emulated press that would follow is not
    /// sent: the window selects touch). Left in, it would stroke the mouse's pen from
    /// its point to the finger's and back, a line across the card. It is known by being
    /// the event just before the touch, at the touch's server time and in its pixel.
    /// The two can come in separate reads of the connection: `nextEvents` then waits a
    /// little for the touch before it hands the motion out (`mayPrecedeEmulatingTouch`).
    /// (Selecting XI_Motion instead, whose emulated events are flagged, would wake the
    /// program on every hover motion.) TouchAppTests.mouseAndFingerAtOnce shows it.
    func dropEmulatedMotion(before touch: Point, from events: inout [WindowEvent]) {
        guard let time = pointerEmulatingTouchTime else { return }
        pointerEmulatingTouchTime = nil
        guard case .motion(let at, let motionTime)? = events.last, motionTime == time,
              at == Point(x: touch.x.rounded(.down) + 0.5, y: touch.y.rounded(.down) + 0.5) else { return }
        events.removeLast()
    }

    /// Whether `events` ends in a motion that a pointer-emulating touch may follow: touch
    /// is selected and a touch device is there. (The window selects Button1MotionMask
    /// alone, so any motion it gets is the mouse holding button 1, the only time the
    /// master pointer's jump to a finger reaches it.)
    func mayPrecedeEmulatingTouch(_ events: [WindowEvent]) -> Bool {
        guard xiOpcode != nil, touchDevicePresent, case .motion? = events.last else { return false }
        return true
    }

    /// One XInput 2.2 touch event as a WindowEvent, or nil when it is not a touch event
    /// or not for this window. `detail` is the touch id; `event_x`, `event_y` are
    /// window coordinates that are already sub-pixel positions, kept as they are (no
    /// +0.5, see `WindowEvent.touchBegin`).
    ///
    /// Internal so that tests can feed it synthetic `XIDeviceEvent`s (odd ids, another
    /// window's touch). Real touches through `translateGeneric` are tested on Xorg with
    /// the inputtest driver's touch device (RealInputTests, TouchAppTests): Xvfb has
    /// none, and XTest cannot touch.
    func translateTouch(_ e: XIDeviceEvent) -> WindowEvent? {
        guard e.event == handle else { return nil }
        let id = Int(UInt32(bitPattern: e.detail))
        let at = Point(x: e.event_x, y: e.event_y)
        switch e.evtype {
        case XI_TouchBegin: return .touchBegin(id: id, at: at)
        case XI_TouchUpdate: return .touchUpdate(id: id, at: at)
        case XI_TouchEnd: return .touchEnd(id: id, at: at)
        default: return nil
        }
    }
}

extension X11Display {
    /// True when an EWMH window manager runs and offers full screen: the root window's
    /// `_NET_SUPPORTING_WM_CHECK` names a window that exists and names itself the same
    /// way (a stale property left by a manager that died fails this), and the root's
    /// `_NET_SUPPORTED` lists `_NET_WM_STATE_FULLSCREEN`.
    public var windowManagerOffersFullScreen: Bool {
        let check = atom("_NET_SUPPORTING_WM_CHECK")
        guard let child = windowProperty32(rootWindow, check, type: Atom(XA_WINDOW))?.first, child != 0 else {
            return false
        }
        // The child may be gone (BadWindow): trapped, it just means no manager.
        let (own, error) = trapErrors(handle) { windowProperty32(Window(child), check, type: Atom(XA_WINDOW)) }
        guard error == 0, own?.first == child else { return false }
        let supported = windowProperty32(rootWindow, atom("_NET_SUPPORTED"), type: Atom(XA_ATOM)) ?? []
        return supported.contains(UInt(atom("_NET_WM_STATE_FULLSCREEN")))
    }

    /// A window's property of format 32 (`XGetWindowProperty`), or nil when it is
    /// missing or of another type or format. Format-32 items come as C longs.
    func windowProperty32(_ window: Window, _ property: Atom, type: Atom) -> [UInt]? {
        var actualType: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0, remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>? = nil
        let status = XGetWindowProperty(handle, window, property, 0, 1 << 16, 0, type,
                                        &actualType, &format, &count, &remaining, &data)
        guard status == Success, let data else { return nil }
        defer { XFree(data) }
        guard actualType == type, format == 32 else { return nil }
        return data.withMemoryRebound(to: UInt.self, capacity: Int(count)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(count)))
        }
    }
}
