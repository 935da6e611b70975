@preconcurrency import Glibc
import CX11
import ScratchCore

/// A connection to an X server (`XOpenDisplay`), closed when released (`XCloseDisplay`).
///
///     let display = try X11Display(name: nil)          // $DISPLAY
///     let scale = display.scale(option: nil)           // --scale, Xft.dpi, screen dpi, 1
///     guard let layout = display.pixelLayout else { … } // .bgrx on most visuals
///
/// Opening the first display installs the program's X error handlers: a lost connection
/// prints "scratchcard: lost the connection to the X server" and exits with status 1;
/// other X errors are reported on stderr and the program goes on.
/// Use one display from one thread at a time.
public final class X11Display {
    /// The Xlib `Display *`.
    let handle: OpaquePointer
    /// The name it was opened with, as `XDisplayString` gives it.
    public let name: String

    /// Opens a connection with `XOpenDisplay`.
    /// - Parameter name: ":0", "localhost:1"…; nil uses $DISPLAY.
    /// - Throws: `X11Error.cannotOpenDisplay` when Xlib cannot connect.
    public init(name: String?) throws(X11Error) {
        _ = installDefaultErrorHandlers
        let opened: OpaquePointer? = if let name { XOpenDisplay(name) } else { XOpenDisplay(nil) }
        guard let opened else {
            throw .cannotOpenDisplay(name ?? (getenv("DISPLAY").map { String(cString: $0) } ?? ""))
        }
        handle = opened
        self.name = String(cString: XDisplayString(opened))
    }

    deinit {
        XCloseDisplay(handle)
    }

    /// The connection's file descriptor (`ConnectionNumber`), for `poll()`.
    public var fileDescriptor: Int32 { cx11_connection_number(handle) }

    /// The default screen's size in pixels (`DisplayWidth`, `DisplayHeight`).
    public var screenSize: PixelSize {
        PixelSize(width: Int(cx11_display_width(handle)), height: Int(cx11_display_height(handle)))
    }

    /// The default screen's size in millimetres as the server reports it
    /// (`DisplayWidthMM`, `DisplayHeightMM`).
    public var screenSizeMillimetres: PixelSize {
        PixelSize(width: Int(cx11_display_width_mm(handle)), height: Int(cx11_display_height_mm(handle)))
    }

    /// The default visual (`DefaultVisual`) and depth (`DefaultDepth`); the program draws
    /// with `drawingVisual`, which may be another.
    var visual: UnsafeMutablePointer<Visual> { cx11_default_visual(handle) }
    var depth: Int32 { cx11_default_depth(handle) }
    var rootWindow: Window { cx11_root_window(handle) }

    /// The visual windows and images are made with (see `DrawingVisual`), found once.
    lazy var drawingVisual: DrawingVisual? = findDrawingVisual()

    /// Why the screen cannot be drawn into, or nil when it can: it offers no 24- or
    /// 32-bit TrueColor visual. Names the default visual's depth and what is needed.
    public var visualProblem: String? {
        guard drawingVisual == nil else { return nil }
        return "the screen's default visual is \(defaultVisualDescription) and the screen offers no other "
            + "visual to draw with: ScratchCard needs \(DrawingVisual.requirement) (run the X server at depth 24)"
    }

    /// Where red, green and blue sit in a 32-bit pixel of the visual drawn with (the
    /// default one, or a 24/32-bit TrueColor one the screen offers), from its masks and
    /// `ImageByteOrder`; nil when the screen offers no such visual (`visualProblem`).
    public var pixelLayout: PixelLayout? { drawingVisual?.layout }

    /// The depth of the visual drawn with (24 or 32), or nil; and whether it is the
    /// screen's default visual.
    public var drawingDepth: Int? { drawingVisual.map { Int($0.depth) } }
    public var drawsWithDefaultVisual: Bool { drawingVisual?.isDefault ?? false }

    /// True when the server offers MIT-SHM (`XShmQueryExtension`). Even then an attach
    /// may fail (a remote server answers BadAccess): WindowSurface falls back.
    public var hasSharedMemory: Bool { XShmQueryExtension(handle) != 0 }

    /// The value of an X resource such as "Xft.dpi", looked up with Xrm
    /// (`XrmGetStringDatabase`, `XrmGetResource`) in the root window's RESOURCE_MANAGER
    /// property as it is now (so `xrdb -merge` after opening counts), or in
    /// `XResourceManagerString` when the property cannot be read; nil when unset.
    public func resource(_ name: String) -> String? {
        guard let text = resourceManagerString() else { return nil }
        XrmInitialize()
        guard let database = text.withCString({ XrmGetStringDatabase($0) }) else { return nil }
        defer { XrmDestroyDatabase(database) }
        var type: UnsafeMutablePointer<CChar>? = nil
        var value = XrmValue()
        // The class is the name too: the lookup then matches "Xft.dpi" and "*dpi" alike.
        guard XrmGetResource(database, name, name, &type, &value) != 0, let address = value.addr else { return nil }
        let bytes = UnsafeRawBufferPointer(start: address, count: Int(value.size))
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The RESOURCE_MANAGER property of the root window (`XGetWindowProperty`).
    private func resourceManagerString() -> String? {
        var actualType: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0, remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>? = nil
        let status = XGetWindowProperty(handle, rootWindow, Atom(XA_RESOURCE_MANAGER), 0, 1 << 24, 0,
                                        Atom(XA_STRING), &actualType, &format, &count, &remaining, &data)
        if status == Success, let data {
            defer { XFree(data) }
            if format == 8 { return String(decoding: UnsafeBufferPointer(start: data, count: Int(count)), as: UTF8.self) }
            return nil
        }
        return XResourceManagerString(handle).map { String(cString: $0) }
    }

    /// The scale for this display (see `DisplayScale.resolve`): `option`, else the
    /// Xft.dpi resource, else the screen's physical dpi, else 1.
    public func scale(option: Double?) -> DisplayScale {
        DisplayScale.resolve(option: option, xftDPI: resource("Xft.dpi"),
                             screenPixels: screenSize, screenMillimetres: screenSizeMillimetres)
    }

    /// Sends queued requests (`XFlush`).
    public func flush() { XFlush(handle) }

    /// Sends queued requests and waits until the server has handled them (`XSync`).
    public func sync() { XSync(handle, 0) }

    /// Interns an atom (`XInternAtom`).
    func atom(_ name: String) -> Atom { XInternAtom(handle, name, 0) }
}

extension X11Display {
    /// Sends what a window manager sends when the user closes a window: a WM_PROTOCOLS
    /// ClientMessage carrying WM_DELETE_WINDOW (`XSendEvent`). Internal, for tests.
    func sendDeleteWindowRequest(to windowID: UInt) {
        var event = XEvent()
        event.xclient.type = ClientMessage
        event.xclient.window = Window(windowID)
        event.xclient.message_type = atom("WM_PROTOCOLS")
        event.xclient.format = 32
        event.xclient.data.l.0 = Int(atom("WM_DELETE_WINDOW"))
        event.xclient.data.l.1 = Int(CurrentTime)
        XSendEvent(handle, Window(windowID), 0, NoEventMask, &event)
        flush()
    }
}
