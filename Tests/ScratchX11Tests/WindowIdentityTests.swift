import Foundation
import Testing
import ScratchCore
@testable import ScratchX11
import XvfbSupport

/// The window's identity for the desktop, read back by xprop and by a startup-notification
/// listener on the root window, as a task bar and a launcher read them.
@Suite(.serialized) struct WindowIdentityTests {
    static let iconSizes = [16, 24, 32, 48, 64, 128]

    @Test func pidAndClientMachineAreOnTheWindowFromItsCreation() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 50, height: 40), title: "t")
        let text = try server.xprop(id: window.windowID, "_NET_WM_PID", "WM_CLIENT_MACHINE")
        #expect(text.contains("_NET_WM_PID(CARDINAL) = \(getpid())\n"), "\(text)")
        #expect(text.contains("WM_CLIENT_MACHINE(STRING) = \"\(hostName())\"\n"), "\(text)")
        #expect(!hostName().isEmpty)
    }

    @Test func iconsOfSixSizesWithTheirPixels() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 50, height: 40), title: "t")
        // Each size its own colour, its first pixel another: the values must land in place.
        let icons = Self.iconSizes.map { n -> RGBAImage in
            var image = RGBAImage(size: PixelSize(width: n, height: n), filledWith: RGBA(r: UInt8(n), g: 0x20, b: 0x30, a: 0xff))
            image.bytes[0] = 0x11; image.bytes[1] = 0x22; image.bytes[2] = 0x33; image.bytes[3] = 0x80
            return image
        }
        window.setIcons(icons)
        let text = try server.xprop(id: window.windowID, "_NET_WM_ICON")
        for n in Self.iconSizes { #expect(text.contains("Icon (\(n) x \(n)):"), "size \(n)") }
        #expect(text.components(separatedBy: "Icon (").count - 1 == 6)
        // The raw values: width, height, then ARGB.
        let raw = try server.run("xprop", ["-id", "\(window.windowID)", "-f", "_NET_WM_ICON", "32x", "_NET_WM_ICON"])
        let values = raw.split(separator: "=").last!.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(Array(values.prefix(4)) == ["0x10", "0x10", "0x80112233", "0xff102030"], "\(values.prefix(4))")
        #expect(values.count == Self.iconSizes.reduce(0) { $0 + 2 + $1 * $1 })
    }

    @Test func startupIDIsSetBeforeMapAndRemoveReachesTheRoot() throws {
        let server = try Xvfb()
        defer { server.stop() }
        let listener = try StartupListener(server: server)
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 50, height: 40), title: "t")
        // Longer than one message, with a space, a quote and a backslash to escape.
        let id = "gtk-launch-4242-host-scratchcard-0_TIME1234 \"a\\b\""
        window.setStartupID(id)
        let property = try server.xprop(id: window.windowID, "_NET_STARTUP_ID")
        #expect(property.contains("_NET_STARTUP_ID(UTF8_STRING) = \"gtk-launch-4242-host-scratchcard-0_TIME1234"), "\(property)")
        #expect(window.map())
        window.announceStartupComplete(id: id)
        let messages = listener.messages(timeout: 5) { !$0.isEmpty }
        #expect(messages == ["remove: ID=\"gtk-launch-4242-host-scratchcard-0_TIME1234 \\\"a\\\\b\\\"\""], "\(messages)")
    }

    @Test func messagesEndInTheirNulEvenOnABoundary() {
        // 19 bytes and its NUL fill one message; 20 bytes need a second for the NUL.
        #expect(StartupNotification.chunks(of: String(repeating: "a", count: 19)).count == 1)
        let two = StartupNotification.chunks(of: String(repeating: "a", count: 20))
        #expect(two.count == 2 && two[1] == [UInt8](repeating: 0, count: 20))
        #expect(StartupNotification.chunks(of: "remove: ID=x").allSatisfy { $0.count == 20 })
    }

    @Test func theStartupIDIsTakenFromTheEnvironmentOnce() {
        setenv("DESKTOP_STARTUP_ID", "launch-7_TIME9", 1)
        #expect(StartupNotification.takeStartupID() == "launch-7_TIME9")
        #expect(getenv("DESKTOP_STARTUP_ID") == nil)
        #expect(StartupNotification.takeStartupID() == nil)
        setenv("DESKTOP_STARTUP_ID", "", 1)
        #expect(StartupNotification.takeStartupID() == nil)
    }
}
