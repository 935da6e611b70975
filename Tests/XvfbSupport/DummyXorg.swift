// A private Xorg with the dummy video driver, for what Xvfb cannot show: a RandR mode
// with real timings (so a refresh rate), DPMS, and real input devices through the
// inputtest driver (XI 2.2 touch, a keyboard, an absolute pointer). Needs root (Xorg
// takes an absolute -config path from root only) and the xserver-xorg-video-dummy package.
import Foundation
@preconcurrency import Glibc
import InputTest
import TestRequirements

/// Xorg on the dummy driver with one monitor in one mode, stopped by `stop()` or when released.
///
///     let server = try DummyXorg(modeline: "800x600_75 49.00 800 840 920 1040 600 603 607 628 -hsync +vsync")
///     defer { server.stop() }
///
/// With `inputDevices`, each is an inputtest device of its own (an `InputDevice` section
/// with its socket in the server's private folder, named in the `ServerLayout`, and
/// `AutoAddDevices` off so that no other device joins), connected before `init` returns:
///
///     let server = try DummyXorg(modeline: …, inputDevices: [.touch, .keyboard])
///     let screen = try server.device(.touch)
///     try screen.touch(id: 1, .begin, x: 10.5, y: 20.5)
///     try screen.sync()
public final class DummyXorg: TestXServer {
    public let displayNumber: Int
    public var displayName: String { ":\(displayNumber)" }
    /// This process's environment with DISPLAY set to this server, for child processes.
    public var environment: [String: String] {
        var env = Xvfb.environment(display: displayName)
        // A kiosk keeps its store in $XDG_STATE_HOME: a folder of this server's own.
        env["XDG_STATE_HOME"] = folder + "/state"
        return env
    }
    public let pid: pid_t
    /// The screen's size: the mode's.
    public let width: Int, height: Int
    private let folder: String
    private var exited = false
    /// The connected inputtest devices, by kind.
    private var devices: [InputDeviceKind: InputTestDevice] = [:]

    /// An 800x600 mode at 60 Hz, for tests that need a screen and not a rate of their own.
    public static let modeline800x600at60 = "800x600_60 38.22 800 832 912 1024 600 601 604 622 -hsync +vsync"

    /// What this machine lacks to run it (root, Xorg, the dummy driver), or nil.
    public static var unavailable: String? {
        Requirement.first(Requirement.root(to: "start Xorg (it takes an absolute -config path from root only)"),
                          Xvfb.find("Xorg") == nil ? "needs Xorg (Debian's xserver-xorg-core, which make deps installs)" : nil,
                          Requirement.file("/usr/lib/xorg/modules/drivers/dummy_drv.so", from: "xserver-xorg-video-dummy"))
    }

    /// What it lacks to have inputtest devices too: `unavailable`, or Xorg's inputtest
    /// driver (xserver-xorg-core has it).
    public static var inputTestUnavailable: String? {
        Requirement.first(unavailable, Requirement.file("/usr/lib/xorg/modules/input/inputtest_drv.so", from: "xserver-xorg-core"))
    }

    /// Whether this machine can run it (`unavailable` is nil).
    public static var isAvailable: Bool { unavailable == nil }

    /// Whether it can also have inputtest devices (`inputTestUnavailable` is nil).
    public static var hasInputTest: Bool { inputTestUnavailable == nil }

    /// - Parameters:
    ///   - modeline: `NAME CLOCK HDISP HSYNCSTART HSYNCEND HTOTAL VDISP VSYNCSTART
    ///     VSYNCEND VTOTAL FLAGS…`, the one mode the monitor is in.
    ///   - inputDevices: inputtest devices to give the server, at most one of each kind;
    ///     none: the server adds what it finds itself, as before.
    ///   - touchCount: how many touches the touch device takes at once (`TouchCount`).
    ///   - logVerbosity: Xorg's `-logverbose` (its default 3). At 3 the inputtest driver
    ///     writes a debug line into the log for every event it takes, a cost a
    ///     benchmark's 1000 Hz mouse must not carry (inputdrive passes 0).
    public init(modeline: String, inputDevices: [InputDeviceKind] = [], touchCount: Int = 5,
                logVerbosity: Int = 3, timeout: Double = 15) throws {
        guard let xorg = Xvfb.find("Xorg") else { throw XvfbError("Xorg is not installed") }
        let parts = modeline.split(separator: " ")
        let name = String(parts.first ?? "mode")
        guard parts.count >= 10, let width = Int(parts[2]), let height = Int(parts[6]) else {
            throw XvfbError("not a modeline: \(modeline)")
        }
        self.width = width
        self.height = height
        folder = NSTemporaryDirectory() + "dummy-xorg-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var config = """
            Section "Device"
              Identifier "dummy"
              Driver "dummy"
              VideoRam 64000
            EndSection
            Section "Monitor"
              Identifier "monitor"
              HorizSync 5.0 - 1000.0
              VertRefresh 5.0 - 200.0
              Modeline \("\"\(name)\"") \(modeline.split(separator: " ").dropFirst().joined(separator: " "))
            EndSection
            Section "Screen"
              Identifier "screen"
              Device "dummy"
              Monitor "monitor"
              DefaultDepth 24
              SubSection "Display"
                Depth 24
                Modes \("\"\(name)\"")
              EndSubSection
            EndSection
            """
        let kinds = Array(Set(inputDevices)).sorted { $0.rawValue < $1.rawValue }
        if !kinds.isEmpty {
            let home = folder
            let sockets = kinds.map { kind in (kind: kind, socketPath: Self.socketPath(kind, folder: home)) }
            config += "\n" + InputTestConfig.xorgSections(sockets, screen: "screen", touchCount: touchCount)
        }
        try config.write(toFile: folder + "/xorg.conf", atomically: true, encoding: .utf8)
        let folder = self.folder
        do {
            let started = try Xvfb.startOnFreeDisplay(from: 400 + Int(getpid() % 200), attempts: 5, name: "Xorg",
                                                      timeout: timeout) { candidate in
                try Xvfb.spawn(xorg, [":\(candidate)", "-config", folder + "/xorg.conf", "-logfile", folder + "/xorg.log",
                                      "-noreset", "-nolisten", "tcp", "-novtswitch", "-sharevts", "-logverbose", "\(logVerbosity)"])
            }
            displayNumber = started.display
            pid = started.pid
        } catch {
            let log = (try? String(contentsOfFile: folder + "/xorg.log", encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: folder)
            throw XvfbError("\(error); its log ends: \(log.suffix(2000))")
        }
        do {
            for kind in kinds {
                devices[kind] = try InputTestDevice(socketPath: Self.socketPath(kind, folder: folder),
                                                    screenWidth: width, screenHeight: height, timeout: timeout)
            }
        } catch {
            let log = (try? String(contentsOfFile: folder + "/xorg.log", encoding: .utf8)) ?? ""
            stop()
            throw XvfbError("\(error); the server's log ends: \(log.suffix(2000))")
        }
    }

    /// The inputtest device of `kind`, connected; throws when the server has none.
    public func device(_ kind: InputDeviceKind) throws -> InputTestDevice {
        guard let device = devices[kind] else { throw XvfbError("this server has no \(kind.rawValue) input device") }
        return device
    }

    /// Where the driver makes the socket of a device of `kind`.
    static func socketPath(_ kind: InputDeviceKind, folder: String) -> String {
        folder + "/input-\(kind.rawValue.lowercased()).socket"
    }

    deinit { stop() }

    /// `xrandr ARGS…` against this server.
    @discardableResult
    public func xrandr(_ arguments: String...) throws -> String {
        try Xvfb.run("xrandr", arguments, environment: environment)
    }

    /// Puts the first connected output into a new mode (`xrandr --newmode`, `--addmode`,
    /// `--output NAME --mode`), as a user changing the monitor's rate would.
    /// - Parameter modeline: as for `init`, with a name of its own.
    public func switchMode(to modeline: String) throws {
        let parts = modeline.split(separator: " ").map(String.init)
        guard let name = parts.first else { throw XvfbError("an empty modeline") }
        let listing = try xrandr("--query")
        guard let output = listing.split(separator: "\n").first(where: { $0.contains(" connected") })?
            .split(separator: " ").first.map(String.init) else { throw XvfbError("no connected output: \(listing)") }
        try Xvfb.run("xrandr", ["--newmode"] + parts, environment: environment)
        try xrandr("--addmode", output, name)
        try xrandr("--output", output, "--mode", name)
    }

    /// SIGTERM, then SIGKILL after 5 s; reaps it; removes its folder.
    public func stop() {
        guard !exited else { return }
        exited = true
        for device in devices.values { device.close() }
        devices.removeAll()
        Xvfb.terminate(pid)
        try? FileManager.default.removeItem(atPath: folder)
    }
}
