// The cursor the server shows now, read through XFixes on a connection of our own:
// a real check that a window's cursor is invisible. Test-only; libXfixes is not
// linked into the program.
internal import CXFixes
@preconcurrency import Glibc

/// The server's current cursor image (`XFixesGetCursorImage`): size and ARGB pixels.
public struct CursorImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Premultiplied ARGB, row by row.
    public let pixels: [UInt32]

    /// True when no pixel of the cursor shows (every alpha is 0).
    public var isInvisible: Bool { pixels.allSatisfy { $0 >> 24 == 0 } }
}

extension Xvfb {
    /// The cursor the server shows where the pointer is now, or nil when XFixes is
    /// missing or the image cannot be read.
    public func currentCursorImage() -> CursorImage? {
        guard let display = XOpenDisplay(displayName) else { return nil }
        defer { XCloseDisplay(display) }
        var event: Int32 = 0, error: Int32 = 0
        guard XFixesQueryExtension(display, &event, &error) != 0 else { return nil }
        var major: Int32 = 6, minor: Int32 = 0
        XFixesQueryVersion(display, &major, &minor)
        guard let image = XFixesGetCursorImage(display) else { return nil }
        defer { XFree(image) }
        let width = Int(image.pointee.width), height = Int(image.pointee.height)
        // The pixels are C longs holding 32-bit ARGB each.
        let pixels = (0..<(width * height)).map { UInt32(truncatingIfNeeded: image.pointee.pixels[$0]) }
        return CursorImage(width: width, height: height, pixels: pixels)
    }
}
