@preconcurrency import Glibc
import CX11
import ScratchCore

/// How often the monitor under a window shows a new frame, as RandR tells it.
public struct RefreshRate: Sendable, Equatable {
    /// Frames per second.
    public let hertz: Double
    /// Where it came from: "RandR CRTC <id>" (the current mode of the CRTC the window
    /// lies on most) or "RandR screen" (the screen's current rate, RandR 1.1).
    public let source: String

    /// A mode's rate from its timings: dot clock / (htotal x vtotal), the lines doubled
    /// for double scan and halved for interlace (as xrandr computes it). Nil when the
    /// timings give none (Xvfb's modes have a dot clock of 0).
    public static func ofMode(dotClock: UInt, hTotal: UInt32, vTotal: UInt32, flags: UInt) -> Double? {
        var lines = Double(vTotal)
        if flags & UInt(RR_DoubleScan) != 0 { lines *= 2 }
        if flags & UInt(RR_Interlace) != 0 { lines /= 2 }
        let rate = Double(dotClock) / (Double(hTotal) * lines)
        return rate.isFinite && rate > 0 ? rate : nil
    }
}

extension X11Window {
    /// The refresh rate of the monitor this window is on: the current mode of the RandR
    /// CRTC it overlaps most (`XRRGetScreenResourcesCurrent`, `XRRGetCrtcInfo`), else
    /// the screen's current rate (`XRRConfigCurrentRate`), else nil (no RandR, or a
    /// server such as Xvfb whose one mode has no timings).
    public func refreshRate() -> RefreshRate? {
        let d = display.handle
        var eventBase: Int32 = 0, errorBase: Int32 = 0
        guard XRRQueryExtension(d, &eventBase, &errorBase) != 0 else { return nil }
        var major: Int32 = 0, minor: Int32 = 0
        guard XRRQueryVersion(d, &major, &minor) != 0 else { return nil }
        let root = cx11_root_window(d)
        if major > 1 || (major == 1 && minor >= 3), let rate = crtcRate(root: root) { return rate }
        guard let info = XRRGetScreenInfo(d, root) else { return nil }
        defer { XRRFreeScreenConfigInfo(info) }
        let rate = Double(XRRConfigCurrentRate(info))
        return rate > 0 ? RefreshRate(hertz: rate, source: "RandR screen") : nil
    }

    /// Asks RandR to tell this window's `nextEvents` when the screen's monitors change
    /// (`XRRSelectInput` on the root window: screen changes, CRTC and output changes),
    /// as `.screenChanged`; a move comes as `.moved`. On either, `refreshRate()` may
    /// give another rate. Returns false when the server has no RandR.
    @discardableResult
    public func followMonitorChanges() -> Bool {
        if randrEventBase != nil { return true }
        let d = display.handle
        var eventBase: Int32 = 0, errorBase: Int32 = 0
        guard XRRQueryExtension(d, &eventBase, &errorBase) != 0 else { return false }
        var major: Int32 = 0, minor: Int32 = 0
        guard XRRQueryVersion(d, &major, &minor) != 0 else { return false }
        var mask = RRScreenChangeNotifyMask
        if major > 1 || (major == 1 && minor >= 2) { mask |= RRCrtcChangeNotifyMask | RROutputChangeNotifyMask }
        XRRSelectInput(d, cx11_root_window(d), Int32(mask))
        randrEventBase = eventBase
        display.flush()
        return true
    }

    /// The rate of the CRTC with the largest overlap with this window (or, when the
    /// window lies on none, of the first CRTC showing a mode with a rate).
    private func crtcRate(root: Window) -> RefreshRate? {
        let d = display.handle
        guard let resources = XRRGetScreenResourcesCurrent(d, root) else { return nil }
        defer { XRRFreeScreenResources(resources) }
        let area = rectangleOnRoot(root: root)
        var best: (overlap: Int, rate: RefreshRate)?
        for i in 0..<Int(resources.pointee.ncrtc) {
            let crtc = resources.pointee.crtcs[i]
            guard let info = XRRGetCrtcInfo(d, resources, crtc) else { continue }
            defer { XRRFreeCrtcInfo(info) }
            let mode = info.pointee.mode
            guard mode != 0 else { continue }
            var rate: Double?
            for m in 0..<Int(resources.pointee.nmode) where resources.pointee.modes[m].id == mode {
                let modeInfo = resources.pointee.modes[m]
                rate = RefreshRate.ofMode(dotClock: modeInfo.dotClock, hTotal: modeInfo.hTotal,
                                          vTotal: modeInfo.vTotal, flags: modeInfo.modeFlags)
            }
            guard let rate else { continue }
            let shown = PixelRect(x: Int(info.pointee.x), y: Int(info.pointee.y),
                                  width: Int(info.pointee.width), height: Int(info.pointee.height))
            let overlap = area.map { shown.intersection($0).area } ?? 0
            if best == nil || overlap > best!.overlap {
                best = (overlap, RefreshRate(hertz: rate, source: "RandR CRTC \(crtc)"))
            }
        }
        return best?.rate
    }

    /// Where the window lies on the root window, if the server says.
    private func rectangleOnRoot(root: Window) -> PixelRect? {
        let d = display.handle
        var x: Int32 = 0, y: Int32 = 0
        var child: Window = 0
        guard XTranslateCoordinates(d, handle, root, 0, 0, &x, &y, &child) != 0 else { return nil }
        var attributes = XWindowAttributes()
        guard XGetWindowAttributes(d, handle, &attributes) != 0 else { return nil }
        return PixelRect(x: Int(x), y: Int(y), width: Int(attributes.width), height: Int(attributes.height))
    }
}
