// The X11 room: the display connection, the window, its framebuffer (MIT-SHM or plain),
// input translation and DPI. C types and pointers stay inside this module; what it
// exports are Swift classes and value types. Start reading at X11Display, then
// X11Window (the event pump), then WindowSurface (the framebuffer on screen).

/// What can go wrong in the X11 room.
public enum X11Error: Error, Equatable, CustomStringConvertible {
    /// `XOpenDisplay` returned NULL for this name ("" when $DISPLAY was unset).
    case cannotOpenDisplay(String)
    /// The default visual is not 24- or 32-bit TrueColor with 8-bit channels.
    case unsupportedVisual(String)
    /// `XCreateWindow` failed; the string is the X error.
    case windowCreationFailed(String)
    /// `XCreateImage` / `XShmCreateImage` or its memory failed.
    case imageCreationFailed(String)
    /// `XGetImage` failed (the window is not viewable, or the area is off screen).
    case readFailed(String)

    public var description: String {
        switch self {
        case .cannotOpenDisplay(let name):
            "cannot open display \(name.isEmpty ? "(DISPLAY is not set)" : "\"\(name)\"")"
        case .unsupportedVisual(let why): "unsupported visual: \(why)"
        case .windowCreationFailed(let why): "cannot create the window: \(why)"
        case .imageCreationFailed(let why): "cannot create the window's image: \(why)"
        case .readFailed(let why): "cannot read the window's pixels: \(why)"
        }
    }
}
