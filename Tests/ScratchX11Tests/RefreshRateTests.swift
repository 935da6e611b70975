import Testing
import TestRequirementTrait
import CX11
import ScratchCore
@testable import ScratchX11
import XvfbSupport

/// The refresh rate the frame pacer is set to, from RandR: the mode's timings on a real
/// server (Xorg with the dummy driver), none on Xvfb.
@Suite(.serialized) struct RefreshRateTests {
    @Test("a mode's rate from its timings, as xrandr computes it; no timings, no rate")
    func modeRate() throws {
        // 800x600 at 75 Hz: 49 MHz / (1040 x 628).
        let rate = try #require(RefreshRate.ofMode(dotClock: 49_000_000, hTotal: 1040, vTotal: 628, flags: 0))
        #expect(abs(rate - 75.02) < 0.01)
        let interlaced = try #require(RefreshRate.ofMode(dotClock: 49_000_000, hTotal: 1040, vTotal: 628, flags: UInt(RR_Interlace)))
        #expect(abs(interlaced - 150.04) < 0.02)
        let doubled = try #require(RefreshRate.ofMode(dotClock: 49_000_000, hTotal: 1040, vTotal: 628, flags: UInt(RR_DoubleScan)))
        #expect(abs(doubled - 37.51) < 0.01)
        #expect(RefreshRate.ofMode(dotClock: 0, hTotal: 0, vTotal: 0, flags: 0) == nil, "Xvfb's mode")
        #expect(RefreshRate.ofMode(dotClock: 0, hTotal: 1040, vTotal: 628, flags: 0) == nil)
    }

    @Test("Xvfb's one mode has no timings: no rate (the program then paces at 60 Hz)")
    func xvfbHasNoRate() throws {
        let server = try Xvfb(width: 640, height: 480)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 100, height: 100), title: "t")
        #expect(window.map())
        #expect(window.refreshRate() == nil)
    }

    @Test("Xorg's dummy driver in a 75 Hz mode: the rate of the CRTC under the window",
          .requires(DummyXorg.unavailable))
    func dummyXorgAt75Hz() throws {
        let server = try DummyXorg(modeline: "800x600_75 49.00 800 840 920 1040 600 603 607 628 -hsync +vsync")
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 200, height: 100), title: "t")
        #expect(window.map())
        let rate = try #require(window.refreshRate())
        #expect(abs(rate.hertz - 75.02) < 0.01, "\(rate)")
        #expect(rate.source.hasPrefix("RandR CRTC"), "\(rate)")
    }

    @Test("the monitor's mode changes (xrandr): the window hears of it and reads the new rate",
          .requires(DummyXorg.unavailable))
    func modeChangeIsHeard() throws {
        let server = try DummyXorg(modeline: "800x600_75 49.00 800 840 920 1040 600 603 607 628 -hsync +vsync")
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 200, height: 100), title: "t")
        #expect(window.followMonitorChanges())
        #expect(window.map())
        _ = window.nextEvents(timeout: 0.1)
        // 30 MHz / (1040 x 577): 49.99 Hz, the same size.
        try server.switchMode(to: "pace50 30.00 800 840 920 1040 600 603 607 577")
        let events = window.collect { $0.contains(.screenChanged) }
        #expect(events.contains(.screenChanged), "\(events)")
        let rate = try #require(window.refreshRate())
        #expect(abs(rate.hertz - 49.99) < 0.01, "\(rate)")
    }

    @Test("a window moved by the program's own request comes as .moved; a resize as .resized, not .moved too")
    func movesAreHeard() throws {
        let server = try Xvfb(width: 640, height: 480)
        defer { server.stop() }
        let display = try X11Display(name: server.displayName)
        let window = try X11Window(display: display, size: PixelSize(width: 100, height: 100), title: "t")
        #expect(window.map())
        _ = window.nextEvents(timeout: 0.1)
        try server.xdotool("windowmove", "--sync", "\(window.windowID)", "300", "200")
        let moved = window.collect { $0.contains(.moved) }
        #expect(moved.contains(.moved), "\(moved)")
        try server.xdotool("windowsize", "--sync", "\(window.windowID)", "150", "120")
        let resized = window.collect { $0.contains(.resized(PixelSize(width: 150, height: 120))) }
        #expect(resized.contains(.resized(PixelSize(width: 150, height: 120))) && !resized.contains(.moved), "\(resized)")
    }
}
