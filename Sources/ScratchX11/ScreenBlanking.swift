import CX11

/// The server's screen saver and DPMS settings, as `xset q` shows them.
public struct ScreenBlankingSettings: Equatable, Sendable {
    /// Seconds of idleness before the screen saver starts; 0: never (`XGetScreenSaver`).
    public var timeout: Int
    /// Seconds between screen saver changes (`XGetScreenSaver`).
    public var interval: Int
    /// `PreferBlanking` and `AllowExposures` as the server keeps them (0, 1 or 2: Don't,
    /// Prefer/Allow, Default).
    public var preferBlanking: Int
    public var allowExposures: Int
    /// Whether DPMS powers the monitor down (`DPMSInfo`); nil when the server has no
    /// DPMS extension (`DPMSQueryExtension`) or no DPMS-capable monitor (`DPMSCapable`).
    public var dpmsEnabled: Bool?

    /// The settings of `display`'s server now.
    public init(of display: X11Display) {
        let d = display.handle
        var timeout: Int32 = 0, interval: Int32 = 0, blanking: Int32 = 0, exposures: Int32 = 0
        XGetScreenSaver(d, &timeout, &interval, &blanking, &exposures)
        self.timeout = Int(timeout)
        self.interval = Int(interval)
        self.preferBlanking = Int(blanking)
        self.allowExposures = Int(exposures)
        var event: Int32 = 0, error: Int32 = 0
        if DPMSQueryExtension(d, &event, &error) != 0, DPMSCapable(d) != 0 {
            var level: UInt16 = 0
            var state: UInt8 = 0
            dpmsEnabled = DPMSInfo(d, &level, &state) != 0 ? state != 0 : nil
        } else {
            dpmsEnabled = nil
        }
    }
}

/// Keeps the screen on while it lives: the kiosk's card must not blank or power down.
///
///     let inhibitor = ScreenBlankingInhibitor(display: display)
///     defer { inhibitor.restore() }    // or let it go: deinit restores too
///
/// `init` saves the server's settings (`ScreenBlankingSettings`: `XGetScreenSaver`,
/// `DPMSInfo`), then turns the screen saver off (`XSetScreenSaver` with timeout 0,
/// the other settings kept; `XResetScreenSaver` ends one already running) and DPMS
/// off (`DPMSDisable`, when it was on). `restore()` puts back exactly what was saved:
/// the timeout, and DPMS enabled again only if it was. These are server-wide
/// settings that outlive the connection: a program killed with SIGKILL leaves the
/// screen saver off until someone runs `xset s default` / `xset +dpms`.
public final class ScreenBlankingInhibitor {
    public let display: X11Display
    /// What the server had before.
    public let saved: ScreenBlankingSettings
    private var restored = false

    public init(display: X11Display) {
        self.display = display
        let saved = ScreenBlankingSettings(of: display)
        self.saved = saved
        let d = display.handle
        XSetScreenSaver(d, 0, Int32(saved.interval), Int32(saved.preferBlanking), Int32(saved.allowExposures))
        XResetScreenSaver(d)
        if saved.dpmsEnabled == true { DPMSDisable(d) }
        display.sync()
    }

    deinit { restore() }

    /// Puts the saved settings back (`XSetScreenSaver`, `DPMSEnable` if DPMS was on).
    /// Only the first call does anything.
    public func restore() {
        guard !restored else { return }
        restored = true
        let d = display.handle
        XSetScreenSaver(d, Int32(saved.timeout), Int32(saved.interval), Int32(saved.preferBlanking),
                        Int32(saved.allowExposures))
        if saved.dpmsEnabled == true { DPMSEnable(d) }
        display.sync()
    }
}
