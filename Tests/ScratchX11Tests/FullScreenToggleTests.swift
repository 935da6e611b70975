import Foundation
import Testing
import ScratchCore
@testable import ScratchX11
import XvfbSupport

/// Full screen in and out (F11 on a desktop), through Openbox's _NET_WM_STATE_FULLSCREEN
/// and without a window manager.
@Suite(.serialized) struct FullScreenToggleTests {
    func state(_ server: Xvfb, _ window: X11Window) throws -> String {
        try server.xprop(id: window.windowID, "_NET_WM_STATE")
    }

    /// Reads events until the window has `size` (and `check` holds), at most 10 s.
    func waitFor(_ window: X11Window, size: PixelSize, _ check: () throws -> Bool = { true }) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            _ = window.nextEvents(timeout: 0.05)
            if window.size == size, try check() { return true }
        }
        return false
    }

    @Test func openboxTakesTheWindowToFullScreenAndBack() throws {
        let server = try Xvfb(width: 800, height: 600)
        defer { server.stop() }
        let manager = try WindowManager(server: server)
        defer { manager.stop() }
        let display = try X11Display(name: server.displayName)
        let size = PixelSize(width: 300, height: 200)
        let window = try X11Window(display: display, size: size, title: "card")
        #expect(window.map(timeout: 15), "openbox: \(manager.log)")
        _ = window.nextEvents(timeout: 0.3)
        #expect(!window.isFullScreen)
        #expect(window.setFullScreen(true) == .windowManager)
        #expect(window.isFullScreen)
        let full = try waitFor(window, size: display.screenSize) { try state(server, window).contains("_NET_WM_STATE_FULLSCREEN") }
        #expect(full, "size \(window.size)")
        #expect(window.setFullScreen(false) == .windowManager)
        #expect(!window.isFullScreen)
        let back = try waitFor(window, size: size) { !(try state(server, window).contains("_NET_WM_STATE_FULLSCREEN")) }
        #expect(back, "size \(window.size)")
    }

    @Test func withoutAWindowManagerTheWindowCoversTheScreenAndComesBack() throws {
        let server = try Xvfb(width: 640, height: 400)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let size = PixelSize(width: 200, height: 120)
        let window = try X11Window(display: display, size: size, title: "card")
        #expect(window.map())
        try server.xdotool("windowmove", "\(window.windowID)", "30", "40")
        _ = window.collect(timeout: 2) { $0.contains(.moved) }
        #expect(window.setFullScreen(true) == .withoutWindowManager)
        #expect(try waitFor(window, size: display.screenSize))
        #expect(window.placement() == PixelRect(x: 0, y: 0, width: 640, height: 400))
        #expect(window.setFullScreen(false) == .withoutWindowManager)
        #expect(try waitFor(window, size: size))
        #expect(window.placement() == PixelRect(x: 30, y: 40, width: 200, height: 120))
        #expect(!window.keepsFocus)
    }
}
