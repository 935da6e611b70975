// A startup-notification listener, as a launcher or a task bar is one: a connection of
// its own that selects PropertyChangeMask on the root window and puts the
// _NET_STARTUP_INFO_BEGIN / _NET_STARTUP_INFO client messages of each sender back together.
internal import CXFixes
@preconcurrency import Glibc
import Foundation

/// Listens on a server's root window for startup-notification messages.
///
///     let listener = try StartupListener(server: server)
///     … launch …
///     let messages = listener.messages(timeout: 10) { $0.contains { $0.hasPrefix("remove:") } }
public final class StartupListener {
    private let display: OpaquePointer
    private let begin: UInt, info: UInt
    /// Messages being put together, by the window that sends them.
    private var partial: [UInt: [UInt8]] = [:]
    /// Whole messages so far, in order.
    public private(set) var received: [String] = []

    public init(server: TestXServer) throws {
        guard let opened = XOpenDisplay(server.displayName) else { throw XvfbError("cannot open \(server.displayName)") }
        display = opened
        begin = UInt(XInternAtom(opened, "_NET_STARTUP_INFO_BEGIN", 0))
        info = UInt(XInternAtom(opened, "_NET_STARTUP_INFO", 0))
        XSelectInput(opened, XDefaultRootWindow(opened), PropertyChangeMask)
        XSync(opened, 0)
    }

    deinit { XCloseDisplay(display) }

    /// Reads messages until `done` holds for all received so far, or `timeout` passes;
    /// returns them all.
    public func messages(timeout: Double, until done: ([String]) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while !done(received), Date() < deadline {
            while XPending(display) > 0 {
                var event = XEvent()
                XNextEvent(display, &event)
                guard event.type == ClientMessage, event.xclient.format == 8 else { continue }
                let type = UInt(event.xclient.message_type)
                guard type == begin || type == info else { continue }
                let sender = UInt(event.xclient.window)
                let bytes = withUnsafeBytes(of: event.xclient.data) { Array($0.prefix(20)) }
                var message = type == begin ? [] : partial[sender] ?? []
                if let end = bytes.firstIndex(of: 0) {
                    message += bytes[..<end]
                    received.append(String(decoding: message, as: UTF8.self))
                    partial[sender] = nil
                } else {
                    message += bytes
                    partial[sender] = message
                }
            }
            usleep(10_000)
        }
        return received
    }
}
