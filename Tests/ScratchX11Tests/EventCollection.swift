import Foundation
import Testing
import ScratchCore
import ScratchX11
import XvfbSupport

extension X11Window {
    /// Reads events until `done` holds for the list so far, or `timeout` seconds pass.
    func collect(timeout: Double = 5, until done: ([WindowEvent]) -> Bool) -> [WindowEvent] {
        var events: [WindowEvent] = []
        let deadline = Date().addingTimeInterval(timeout)
        while !done(events), Date() < deadline {
            events += nextEvents(timeout: 0.1)
        }
        return events
    }
}

/// A window of `size` on `server`, mapped, its first events read.
func openWindow(on server: TestXServer, size: PixelSize = PixelSize(width: 100, height: 100)) throws -> (X11Display, X11Window) {
    let display = try X11Display(name: server.displayName)
    let window = try X11Window(display: display, size: size, title: "t")
    #expect(window.map())
    _ = window.nextEvents(timeout: 0)
    return (display, window)
}

/// A 100x100 window mapped on `server`, the pointer over it at (x, y) so that, with no
/// window manager, keys go to it (focus follows the pointer).
func mappedWindow(on server: Xvfb, pointerAt x: Int = 5, _ y: Int = 5) throws -> (X11Display, X11Window) {
    let (display, window) = try openWindow(on: server)
    try server.xdotool("mousemove", "--window", "\(window.windowID)", "\(x)", "\(y)")
    return (display, window)
}
