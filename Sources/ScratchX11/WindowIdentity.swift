@preconcurrency import Glibc
import CX11
import ScratchCore

// Who the window is, for the desktop: the process and machine behind it, its icon, and
// the launch it answers (startup notification, freedesktop.org's startup-notification spec).

extension X11Window {
    /// `_NET_WM_PID` (CARDINAL, this process) and `WM_CLIENT_MACHINE` (STRING, this host's
    /// name, `gethostname`): with both, a window manager can tell the process and kill it
    /// when it hangs. Set once, at creation.
    func setProcessIdentity() {
        let d = display.handle
        let pid = [UInt(getpid())]
        pid.withUnsafeBytes { bytes in
            _ = XChangeProperty(d, handle, display.atom("_NET_WM_PID"), Atom(XA_CARDINAL), 32, PropModeReplace,
                                bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), 1)
        }
        let host = Array(hostName().utf8)
        XChangeProperty(d, handle, Atom(XA_WM_CLIENT_MACHINE), Atom(XA_STRING), 8, PropModeReplace,
                        host, Int32(host.count))
    }

    /// Sets `_NET_WM_ICON` to `icons` (any sizes, each as it is: task bars and Alt+Tab
    /// pick the nearest): per icon its width, height, then one ARGB CARDINAL per pixel,
    /// not premultiplied, rows top to bottom.
    public func setIcons(_ icons: [RGBAImage]) {
        var values: [UInt] = []
        values.reserveCapacity(icons.reduce(0) { $0 + 2 + $1.size.pixelCount })
        for icon in icons {
            values.append(UInt(icon.width))
            values.append(UInt(icon.height))
            let b = icon.bytes
            for i in stride(from: 0, to: b.count, by: 4) {
                values.append(UInt(b[i + 3]) << 24 | UInt(b[i]) << 16 | UInt(b[i + 1]) << 8 | UInt(b[i + 2]))
            }
        }
        values.withUnsafeBytes { bytes in
            _ = XChangeProperty(display.handle, handle, display.atom("_NET_WM_ICON"), Atom(XA_CARDINAL), 32,
                                PropModeReplace, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                Int32(values.count))
        }
        display.flush()
    }

    /// Sets `_NET_STARTUP_ID` (UTF8_STRING) to the launch's id, from
    /// `StartupNotification.takeStartupID()`: call before `map()`, so that the window
    /// manager ties the window to the launch (focus, the workspace it was started on).
    public func setStartupID(_ id: String) {
        let bytes = Array(id.utf8)
        XChangeProperty(display.handle, handle, display.atom("_NET_STARTUP_ID"), display.atom("UTF8_STRING"), 8,
                        PropModeReplace, bytes, Int32(bytes.count))
        display.flush()
    }

    /// Tells the launcher that the launch `id` is complete (`remove: ID=…`), once the first
    /// frame is on screen: the busy cursor and the launch feedback end. Sent as client
    /// messages of 20 bytes each to the root window (PropertyChangeMask, where listeners
    /// wait), the first `_NET_STARTUP_INFO_BEGIN`, the others `_NET_STARTUP_INFO`, the
    /// message ending in its NUL.
    public func announceStartupComplete(id: String) {
        let d = display.handle
        let chunks = StartupNotification.chunks(of: StartupNotification.removeMessage(id: id))
        for (index, chunk) in chunks.enumerated() {
            var event = XEvent()
            event.xclient.type = ClientMessage
            event.xclient.send_event = 1
            event.xclient.window = handle
            event.xclient.message_type = display.atom(index == 0 ? "_NET_STARTUP_INFO_BEGIN" : "_NET_STARTUP_INFO")
            event.xclient.format = 8
            withUnsafeMutableBytes(of: &event.xclient.data) { raw in
                for (i, byte) in chunk.enumerated() { raw[i] = byte }
            }
            XSendEvent(d, display.rootWindow, 0, PropertyChangeMask, &event)
        }
        display.flush()
    }
}

/// The text side of startup notification: the launch's id from the environment, and
/// the `remove:` message cut into client messages.
public enum StartupNotification {
    /// `DESKTOP_STARTUP_ID` as the launcher set it, or nil when unset or empty. Unset
    /// afterwards (as the spec asks): a program this one starts must not answer the
    /// same launch.
    public static func takeStartupID() -> String? {
        guard let value = getenv("DESKTOP_STARTUP_ID") else { return nil }
        let id = String(cString: value)
        unsetenv("DESKTOP_STARTUP_ID")
        return id.isEmpty ? nil : id
    }

    /// `remove: ID="…"`, the value quoted with `\` before `"` and `\`.
    static func removeMessage(id: String) -> String {
        var quoted = ""
        for character in id {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return "remove: ID=\"\(quoted)\""
    }

    /// The message's UTF-8 bytes and its terminating NUL, in pieces of 20 bytes (the
    /// last padded with NULs): one client message each.
    static func chunks(of message: String) -> [[UInt8]] {
        let bytes = Array(message.utf8) + [0]
        return stride(from: 0, to: bytes.count, by: 20).map { start in
            let piece = Array(bytes[start..<min(start + 20, bytes.count)])
            return piece + [UInt8](repeating: 0, count: 20 - piece.count)
        }
    }
}
