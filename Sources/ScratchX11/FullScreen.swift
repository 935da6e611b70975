@preconcurrency import Glibc
import CX11
import ScratchCore

// Full screen on a desktop, in and out (F11): kiosk mode's way in (`makeFullScreen`,
// Kiosk.swift), and the way back to the window as it was.

extension X11Window {
    /// Whether the window was last asked to be full screen.
    public var isFullScreen: Bool { fullScreenWanted }

    /// Enters or leaves full screen. In: as `makeFullScreen` (an EWMH window manager's
    /// `_NET_WM_STATE_FULLSCREEN`, else a screen-sized window at 0,0 that keeps the
    /// focus), remembering where the window was. Out: the manager asked to remove the
    /// state (it puts the window back), or without one the window moved and sized back
    /// to where it was, no longer holding the focus. Expect a `.resized` either way.
    @discardableResult
    public func setFullScreen(_ on: Bool) -> FullScreenMethod {
        let managed = display.windowManagerOffersFullScreen
        if on {
            if !fullScreenWanted { windowedPlacement = placement() }
            return makeFullScreen()
        }
        fullScreenWanted = false
        if managed {
            askWindowManager(fullScreen: false)
            return .windowManager
        }
        let d = display.handle
        if keepsFocus {
            keepsFocus = false
            XSelectInput(d, handle, Self.eventMask)
        }
        if let place = windowedPlacement {
            XMoveResizeWindow(d, handle, Int32(place.x), Int32(place.y), UInt32(place.width), UInt32(place.height))
        }
        windowedPlacement = nil
        display.flush()
        return .withoutWindowManager
    }

    /// Where the window is on the screen now, and its size (`XTranslateCoordinates`).
    func placement() -> PixelRect {
        var x: Int32 = 0, y: Int32 = 0
        var child: Window = 0
        XTranslateCoordinates(display.handle, handle, display.rootWindow, 0, 0, &x, &y, &child)
        return PixelRect(x: Int(x), y: Int(y), width: size.width, height: size.height)
    }
}
