@preconcurrency import Glibc
import CX11
import ScratchCore

/// A top-level window on the default screen (`XCreateWindow` with the display's drawing
/// visual: the default one, or a 24/32-bit TrueColor one with a colormap of its own on a
/// screen whose default is not), destroyed when released (`XDestroyWindow`).
///
///     let window = try X11Window(display: display, size: PixelSize(width: 800, height: 600),
///                                title: "Scratch card")
///     window.map()
///     while running {
///         for event in window.nextEvents(timeout: nil) { … }   // a whole burst
///         // draw once
///     }
///
/// `nextEvents` reads the display's whole queue and keeps only this window's events:
/// use one window per display connection.
///
/// It has no background (`background_pixmap` None), so the server never clears it
/// before an Expose: what was shown stays until we repaint, without flicker.
public final class X11Window {
    public let display: X11Display
    let handle: Window
    /// The window's id, as xdotool and xprop take it.
    public var windowID: UInt { UInt(handle) }
    /// The window's size, following ConfigureNotify events.
    public private(set) var size: PixelSize

    /// The window's own colormap when it is not of the default visual (`XCreateColormap`), or 0.
    private let colormap: Colormap
    private let wmProtocols: Atom
    private let wmDeleteWindow: Atom
    private let shmEventBase: Int32?
    /// Events read while waiting in `map()`, returned first by `nextEvents`.
    private var backlog: [WindowEvent] = []
    /// Set by the first MapNotify.
    var sawMapNotify = false
    /// Surfaces drawing into this window, told about their MIT-SHM completions.
    private var surfaces: [WeakSurface] = []
    /// Between `map()` and `unmap()`.
    var mapRequested = false
    /// Full screen without a window manager: take the input focus when mapped and
    /// whenever the pointer enters or the focus leaves (see `makeFullScreen`).
    var keepsFocus = false
    /// Kiosk mode: hold the keyboard (an active grab) whenever the window is mapped (see
    /// `holdKeyboard`).
    var keepsKeyboard = false
    /// True while this window's keyboard grab is in force.
    public internal(set) var holdsKeyboard = false
    /// The blank cursor while `hideCursor()` is in force (`XCreatePixmapCursor`), or 0.
    var blankCursor: Cursor = 0
    /// The XInputExtension's major opcode once `enableTouch()` has selected touch events.
    var xiOpcode: Int32? = nil
    /// The server time of the last touch that began emulating the pointer
    /// (`XITouchEmulatingPointer`), until `nextEvents` has looked at it.
    var pointerEmulatingTouchTime: UInt? = nil
    /// Whether a touch device was there when touch was selected, or a touch came since.
    var touchDevicePresent = false
    /// How long `nextEvents` waits for a pointer-emulating touch after a motion that may
    /// be its jump (`mayPrecedeEmulatingTouch`), in nanoseconds: the jump comes just before
    /// the touch, but a read of the connection can fall between them.
    static let emulatingTouchWait: Int64 = 2_000_000
    /// RandR's first event code once `followMonitorChanges()` has selected its events.
    var randrEventBase: Int32? = nil
    /// Where the last ConfigureNotify put the window (relative to its parent, or to the
    /// root in a window manager's synthetic one), to tell a move from a resize.
    private var lastPosition: (x: Int32, y: Int32) = (0, 0)     // where XCreateWindow put it
    /// The server time of the latest key, button or property event: what a selection's
    /// ownership and requests are dated with (ICCCM: never CurrentTime).
    public internal(set) var lastEventTime: UInt = 0
    /// Drops, the clipboard and their transfers (DesktopExchange.swift), made when first used.
    var exchangeStorage: DesktopExchange? = nil
    /// Full screen as asked through `setFullScreen` or `makeFullScreen`, and where the
    /// window was before, to go back to without a window manager (FullScreen.swift).
    var fullScreenWanted = false
    var windowedPlacement: PixelRect? = nil

    /// The events the window listens to. Motion only while button 1 is held
    /// (`Button1MotionMask`, not `PointerMotionMask`): only a drag scratches or draws,
    /// and a pointer hovering over the window would cost the X server an event to
    /// deliver (and the program a wake-up) for each move, for nothing.
    /// PropertyChangeMask: the pieces of a selection sent in increments (INCR) come as
    /// property changes on this window.
    static let eventMask: Int = ExposureMask | ButtonPressMask | ButtonReleaseMask | Button1MotionMask
        | KeyPressMask | StructureNotifyMask | PropertyChangeMask

    /// Creates the window (`XCreateWindow`), names it (WM_NAME through `XStoreName`,
    /// _NET_WM_NAME as UTF8_STRING through `XChangeProperty`), sets WM_CLASS to
    /// `className` for both instance and class (`XSetClassHint`), and asks for
    /// WM_DELETE_WINDOW (`XSetWMProtocols`). It is not mapped yet: see `map()`.
    /// - Throws: `X11Error.unsupportedVisual` when the screen offers no visual to draw
    ///   with (a depth-8 screen); `.windowCreationFailed` when the server refuses.
    public init(display: X11Display, size: PixelSize, title: String,
                className: String = "scratchcard") throws(X11Error) {
        guard size.width > 0, size.height > 0, size.width <= 32767, size.height <= 32767 else {
            throw .windowCreationFailed("size \(size) is out of range")
        }
        guard let drawing = display.drawingVisual else { throw .unsupportedVisual(display.visualProblem ?? "") }
        self.display = display
        self.size = size
        let d = display.handle
        var attributes = XSetWindowAttributes()
        attributes.background_pixmap = Pixmap(None)
        attributes.bit_gravity = NorthWestGravity
        attributes.event_mask = Self.eventMask
        var mask = UInt(CWBackPixmap | CWBorderPixel | CWBitGravity | CWEventMask)
        if drawing.isDefault {
            attributes.border_pixel = cx11_black_pixel(d)
            colormap = 0
        } else {
            // A window of another visual than its parent's needs a colormap of that
            // visual and a border pixel of its depth, or XCreateWindow fails (BadMatch).
            colormap = XCreateColormap(d, display.rootWindow, drawing.visual, AllocNone)
            attributes.colormap = colormap
            attributes.border_pixel = 0
            mask |= UInt(CWColormap)
        }
        let (window, error) = trapErrors(d) {
            XCreateWindow(d, display.rootWindow, 0, 0, UInt32(size.width), UInt32(size.height), 0,
                          drawing.depth, UInt32(InputOutput), drawing.visual, mask, &attributes)
        }
        guard window != 0, error == 0 else {
            if colormap != 0 { XFreeColormap(d, colormap) }
            throw .windowCreationFailed(error == 0 ? "XCreateWindow returned 0" : errorText(d, code: error))
        }
        handle = window

        XStoreName(d, window, title)
        let utf8 = Array(title.utf8)
        XChangeProperty(d, window, display.atom("_NET_WM_NAME"), display.atom("UTF8_STRING"), 8,
                        PropModeReplace, utf8, Int32(utf8.count))
        className.withCString { name in
            let copy = strdup(name)
            defer { free(copy) }
            var hint = XClassHint(res_name: copy, res_class: copy)
            XSetClassHint(d, window, &hint)
        }
        wmProtocols = display.atom("WM_PROTOCOLS")
        wmDeleteWindow = display.atom("WM_DELETE_WINDOW")
        var protocols = [wmDeleteWindow]
        XSetWMProtocols(d, window, &protocols, 1)
        shmEventBase = display.hasSharedMemory ? XShmGetEventBase(d) : nil
        setProcessIdentity()
        display.flush()
    }

    deinit {
        if blankCursor != 0 { XFreeCursor(display.handle, blankCursor) }
        XDestroyWindow(display.handle, handle)
        if colormap != 0 { XFreeColormap(display.handle, colormap) }
        display.flush()
    }

    /// Maps the window (`XMapWindow`) and waits, at most `timeout` seconds, until the
    /// server has shown it (the first Expose, or MapNotify). The events read meanwhile
    /// are kept and come first from `nextEvents`. Returns false on timeout.
    ///
    /// While no MapNotify has come, the request is sent again every `askAgainAfter`
    /// seconds: under a window manager, XMapWindow only asks it to map the window, and a
    /// manager that is still starting up (a kiosk session starts both at once) can drop
    /// the request; Openbox does, under load. Mapping again is harmless otherwise.
    @discardableResult
    public func map(timeout: Double = 10, askAgainAfter: Double = 1) -> Bool {
        XMapWindow(display.handle, handle)
        mapRequested = true
        display.flush()
        let deadline = monotonicSeconds() + timeout
        var askAgainAt = monotonicSeconds() + askAgainAfter
        while true {
            let now = monotonicSeconds()
            if !sawMapNotify, now >= askAgainAt {
                XMapWindow(display.handle, handle)
                display.flush()
                askAgainAt = now + askAgainAfter
            }
            let events = nextEvents(timeout: max(0, min(deadline, askAgainAt) - monotonicSeconds()))
            backlog.append(contentsOf: events)
            if events.contains(where: { if case .expose = $0 { true } else { false } }) { return true }
            if monotonicSeconds() >= deadline { return sawMapNotify }
        }
    }

    /// Unmaps the window (`XUnmapWindow`).
    public func unmap() {
        XUnmapWindow(display.handle, handle)
        mapRequested = false
        sawMapNotify = false
        display.flush()
    }

    /// Waits for events and returns every one that has arrived, translated, in order.
    ///
    /// When none is pending, `ppoll()`s the connection for up to `timeout` seconds (nil:
    /// forever; 0: not at all); then drains the queue (`XPending`, `XNextEvent`), so a
    /// burst of motion becomes one call and one repaint. Returns [] on timeout.
    /// MIT-SHM completions also reach the surface that sent the put (`handleCompletion`).
    /// `alsoWaitingOn` are other descriptors whose input ends the wait too (a signal
    /// pipe, a worker's wake-up pipe); reading them is the caller's business.
    ///
    /// `readingDisplay: false` leaves the connection alone: it waits only on `others`
    /// for up to `timeout` and returns what was kept from `map`, if anything. The frame
    /// pacer uses it while a put is held back: events wait in the socket until the slot,
    /// instead of waking the program one by one.
    public func nextEvents(timeout: Double?, readingDisplay: Bool = true, alsoWaitingOn others: Int32...) -> [WindowEvent] {
        nextEvents(timeout: timeout, readingDisplay: readingDisplay, alsoWaitingOn: others)
    }

    /// Reads and translates every event the connection has, onto `events`; drops a
    /// pointer-emulating touch's jump (`dropEmulatedMotion`).
    private func readPending(into events: inout [WindowEvent]) {
        let d = display.handle
        var event = XEvent()
        while XPending(d) > 0 {
            XNextEvent(d, &event)
            guard let translated = translate(&event) else { continue }
            if case .touchBegin(_, let at) = translated { dropEmulatedMotion(before: at, from: &events) }
            events.append(translated)
        }
    }

    /// `nextEvents` with the other descriptors as an array.
    public func nextEvents(timeout: Double?, readingDisplay: Bool = true, alsoWaitingOn others: [Int32]) -> [WindowEvent] {
        let d = display.handle
        var events = backlog
        backlog = []
        if !readingDisplay {
            guard events.isEmpty else { return events }
            var descriptors = others.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let nanoseconds: Int64 = if let timeout { Int64(min(max(0, timeout), 86_400) * 1e9) } else { -1 }
            _ = cx11_poll_nanoseconds(&descriptors, nfds_t(descriptors.count), nanoseconds)
            return []
        }
        if events.isEmpty && XPending(d) == 0 {
            var descriptors = [pollfd(fd: display.fileDescriptor, events: Int16(POLLIN), revents: 0)]
                + others.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            // ppoll, not poll: the frame pacer's slots fall between milliseconds, and
            // poll's whole milliseconds would make every paced put up to 1 ms late.
            // A negative fd is ignored. EINTR or timeout: whatever is pending.
            let nanoseconds: Int64 = if let timeout { Int64(min(max(0, timeout), 86_400) * 1e9) } else { -1 }
            _ = cx11_poll_nanoseconds(&descriptors, nfds_t(descriptors.count), nanoseconds)
        }
        readPending(into: &events)
        if mayPrecedeEmulatingTouch(events) {
            var descriptor = pollfd(fd: display.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if cx11_poll_nanoseconds(&descriptor, 1, Self.emulatingTouchWait) > 0 { readPending(into: &events) }
        }
        // A burst of sizes (a window dragged larger) comes out as its last one: each
        // re-lays out a card (~90 ms with 4K images) and only the last counts.
        if let last = events.lastIndex(where: \.isResize) {
            events = events.enumerated().filter { !$0.element.isResize || $0.offset == last }.map(\.element)
        }
        // Moves and the screen's changes only ask for the refresh rate to be read again:
        // one of each is enough.
        for kind in [WindowEvent.moved, .screenChanged] {
            if let last = events.lastIndex(of: kind) {
                events = events.enumerated().filter { $0.element != kind || $0.offset == last }.map(\.element)
            }
        }
        return events
    }

    /// One Xlib event as a WindowEvent, or nil for events of no interest.
    private func translate(_ event: inout XEvent) -> WindowEvent? {
        let type = event.type
        if let base = shmEventBase, type == base + ShmCompletion {
            let segment = withUnsafePointer(to: &event) {
                $0.withMemoryRebound(to: XShmCompletionEvent.self, capacity: 1) { $0.pointee.shmseg }
            }
            surfaces.removeAll { $0.surface == nil }
            for entry in surfaces { entry.surface?.handleCompletion(segment: segment) }
            return .putCompleted
        }
        if let base = randrEventBase, type == base + RRScreenChangeNotify || type == base + RRNotify {
            // Xlib keeps the screen's size itself: it must see the screen's changes.
            if type == base + RRScreenChangeNotify { XRRUpdateConfiguration(&event) }
            return .screenChanged
        }
        switch type {
        case ButtonPress, ButtonRelease:
            let b = event.xbutton
            guard b.window == handle else { return nil }
            lastEventTime = UInt(b.time)
            let at = Point(x: Double(b.x) + 0.5, y: Double(b.y) + 0.5)
            return type == ButtonPress ? .press(button: Int(b.button), at: at, time: UInt(b.time))
                : .release(button: Int(b.button), at: at, time: UInt(b.time))
        case MotionNotify:
            let m = event.xmotion
            guard m.window == handle else { return nil }
            return .motion(at: Point(x: Double(m.x) + 0.5, y: Double(m.y) + 0.5), time: UInt(m.time))
        case Expose:
            let e = event.xexpose
            guard e.window == handle else { return nil }
            return .expose(PixelRect(x: Int(e.x), y: Int(e.y), width: Int(e.width), height: Int(e.height)))
        case ConfigureNotify:
            let c = event.xconfigure
            guard c.window == handle else { return nil }
            let moved = lastPosition.x != c.x || lastPosition.y != c.y
            lastPosition = (c.x, c.y)
            let new = PixelSize(width: Int(c.width), height: Int(c.height))
            guard new != size else { return moved ? .moved : nil }
            size = new
            return .resized(new)
        case MapNotify:
            guard event.xmap.window == handle else { return nil }
            sawMapNotify = true
            if keepsFocus { takeFocus() }
            if keepsKeyboard { grabKeyboard() }
            return nil
        case UnmapNotify:
            // The server ends a grab whose window is no longer viewable.
            if event.xunmap.window == handle { holdsKeyboard = false }
            return nil
        case EnterNotify:
            if keepsFocus, event.xcrossing.window == handle { takeFocus() }
            return nil
        case FocusOut:
            // Focus went elsewhere (another client's XSetInputFocus): take it back.
            // Grabs (mode NotifyGrab) and focus moving into our own subwindows are not losses.
            let f = event.xfocus
            if keepsFocus, f.window == handle, f.mode == NotifyNormal, f.detail != NotifyInferior { takeFocus() }
            return nil
        case GenericEvent:
            return translateGeneric(&event)
        case KeyPress:
            guard event.xkey.window == handle else { return nil }
            lastEventTime = UInt(event.xkey.time)
            let keysym = XLookupKeysym(&event.xkey, 0)
            let key = Key(keysym: keysym)
            let modifiers = KeyModifiers(state: event.xkey.state)
            // Ctrl held: keys without a name of their own come as .control (Ctrl+Z).
            if modifiers.contains(.control), case .other(let name) = key {
                return .key(.control(name), modifiers: modifiers)
            }
            return .key(key, modifiers: modifiers)
        case ClientMessage:
            let c = event.xclient
            guard c.window == handle else { return nil }
            guard c.message_type == wmProtocols else { return exchangeStorage?.handleClientMessage(c) }
            guard c.format == 32, Atom(c.data.l.0) == wmDeleteWindow else { return nil }
            return .closeRequested
        case SelectionRequest, SelectionNotify, SelectionClear, PropertyNotify:
            if type == PropertyNotify, event.xproperty.window == handle { lastEventTime = UInt(event.xproperty.time) }
            return exchangeStorage?.handleSelectionEvent(&event)
        default:
            return nil
        }
    }

    func register(_ surface: WindowSurface) {
        surfaces.removeAll { $0.surface == nil }
        surfaces.append(WeakSurface(surface: surface))
    }

    /// The window's pixels inside `rect` as the server has them (`XGetImage`), for tests.
    /// - Throws: `X11Error.readFailed` when the window is not viewable or `rect` is not
    ///   inside it (the BadMatch is trapped, not reported).
    public func readPixels(_ rect: PixelRect) throws(X11Error) -> RGBAImage {
        let d = display.handle
        guard !rect.isEmpty else { throw .readFailed("empty rectangle \(rect)") }
        let (read, error) = trapErrors(d) {
            XGetImage(d, handle, Int32(rect.x), Int32(rect.y), UInt32(rect.width), UInt32(rect.height),
                      ~0, ZPixmap)
        }
        guard let image = read else {
            throw .readFailed(error == 0 ? "XGetImage returned NULL" : errorText(d, code: error))
        }
        defer { _ = cx11_destroy_image(image) }
        let masks = [image.pointee.red_mask, image.pointee.green_mask, image.pointee.blue_mask]
        let shifts = masks.map { UInt($0.trailingZeroBitCount) }
        let maxima = zip(masks, shifts).map { Double(($0 >> $1)) }
        var bytes = [UInt8](repeating: 255, count: rect.width * rect.height * 4)
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let pixel = cx11_get_pixel(image, Int32(x), Int32(y))
                let o = (y * rect.width + x) * 4
                for c in 0..<3 {
                    let raw = Double((pixel & masks[c]) >> shifts[c])
                    bytes[o + c] = maxima[c] == 255 ? UInt8(raw) : UInt8((raw * 255 / max(1, maxima[c])).rounded())
                }
            }
        }
        return RGBAImage(size: rect.size, bytes: bytes)!
    }
}

private struct WeakSurface {
    weak var surface: WindowSurface?
}

/// What happened to a window, in device pixels.
public enum WindowEvent: Equatable, Sendable {
    /// A button went down (`ButtonPress`) at the centre of the pixel under the pointer.
    case press(button: Int, at: Point, time: UInt)
    /// A button came up (`ButtonRelease`).
    case release(button: Int, at: Point, time: UInt)
    /// The pointer moved (`MotionNotify`).
    case motion(at: Point, time: UInt)
    /// This area must be repainted (`Expose`).
    case expose(PixelRect)
    /// The window has a new size (`ConfigureNotify`); `X11Window.size` already has it.
    /// One call of `nextEvents` returns at most one, the latest. It may have moved too.
    case resized(PixelSize)
    /// The window moved, keeping its size (`ConfigureNotify`, real or a window manager's
    /// synthetic one): it may now lie on another monitor. At most one a call.
    case moved
    /// The screen's monitors changed: a mode, a CRTC, an output (RandR's
    /// `RRScreenChangeNotify` or `RRNotify`, after `followMonitorChanges()`). At most
    /// one a call.
    case screenChanged
    /// A key was pressed (`KeyPress`), with the modifiers held at the time (the
    /// event's `state`: Shift, Control, Mod1 as Alt, Mod4 as Super; Caps Lock and Num
    /// Lock are left out). Pressing a modifier key itself comes as a key too
    /// (`.other("Control_L")`), with the modifiers held before it.
    case key(Key, modifiers: KeyModifiers)
    /// The window manager asks us to close (WM_DELETE_WINDOW).
    case closeRequested
    /// Files were dropped on the window (XDND, after `acceptDrops`): their local paths,
    /// in the order given, at least one of which the drop's test accepted.
    case dropped(paths: [String])
    /// What `pasteFromClipboard()` got: a picture's file bytes or a list of files.
    case pasted(ClipboardContent)
    /// `pasteFromClipboard()` got nothing usable: why, in words.
    case pasteFailed(String)
    /// The server has finished reading an MIT-SHM image (`ShmCompletion`).
    case putCompleted
    /// A finger touched the window (XInput 2.2 `XI_TouchBegin`, after `enableTouch()`).
    /// `id` tells this touch from others down at the same time, until its `touchEnd`.
    /// Touch points are the server's sub-pixel window coordinates as they are: no +0.5,
    /// unlike the pointer events, whose integer coordinates name a pixel whose centre
    /// we report.
    case touchBegin(id: Int, at: Point)
    /// A touching finger moved (`XI_TouchUpdate`).
    case touchUpdate(id: Int, at: Point)
    /// A finger left the surface (`XI_TouchEnd`); `at` is where it was last.
    case touchEnd(id: Int, at: Point)
}

extension WindowEvent {
    var isResize: Bool { if case .resized = self { true } else { false } }
}

/// The keys the card responds to; `other` carries the keysym's name (`XKeysymToString`).
public enum Key: Equatable, Sendable {
    case escape, q, space, enter, r, s
    case other(String)
    /// A key pressed with Ctrl held, by its keysym's name (`.control("z")` for Ctrl+Z);
    /// only for keys that would otherwise be `.other`: the named keys stay as they are.
    case control(String)

    /// The keysym's name as `XKeysymToString` spells it, for the unshifted keysym:
    /// "Escape", "q", "space", "Return", "r", "s", or the name carried by `.other` and
    /// `.control`. `KeyChord` matches keys by this name.
    public var keysymName: String {
        switch self {
        case .escape: "Escape"
        case .q: "q"
        case .space: "space"
        case .enter: "Return"
        case .r: "r"
        case .s: "s"
        case .other(let name), .control(let name): name
        }
    }

    /// The key for an X keysym (from `XLookupKeysym`).
    init(keysym: KeySym) {
        switch Int32(truncatingIfNeeded: keysym) {
        case XK_Escape: self = .escape
        case XK_q, XK_Q: self = .q
        case XK_space: self = .space
        case XK_Return, XK_KP_Enter: self = .enter
        case XK_r, XK_R: self = .r
        case XK_s, XK_S: self = .s
        default:
            self = .other(XKeysymToString(keysym).map { String(cString: $0) } ?? "0x\(String(keysym, radix: 16))")
        }
    }
}

