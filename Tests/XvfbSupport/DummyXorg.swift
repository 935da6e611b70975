// A private Xorg with the dummy video driver, for what Xvfb cannot show: a RandR mode
// with real timings (so a refresh rate), DPMS. Needs root (Xorg takes an absolute
// -config path from root only) and the xserver-xorg-video-dummy package.
import Foundation
@preconcurrency import Glibc

/// Xorg on the dummy driver with one monitor in one mode, stopped by `stop()` or when released.
///
///     let server = try DummyXorg(modeline: "800x600_75 49.00 800 840 920 1040 600 603 607 628 -hsync +vsync")
///     defer { server.stop() }
public final class DummyXorg {
    public let displayNumber: Int
    public var displayName: String { ":\(displayNumber)" }
    /// This process's environment with DISPLAY set to this server, for child processes.
    public var environment: [String: String] {
        Xvfb.environment(display: displayName)
    }
    public let pid: pid_t
    private let folder: String
    private var exited = false

    /// Whether this machine can run it: root, Xorg and the dummy driver installed.
    public static var isAvailable: Bool {
        getuid() == 0 && Xvfb.find("Xorg") != nil
            && access("/usr/lib/xorg/modules/drivers/dummy_drv.so", F_OK) == 0
    }

    /// - Parameter modeline: `NAME CLOCK HDISP HSYNCSTART HSYNCEND HTOTAL VDISP VSYNCSTART
    ///   VSYNCEND VTOTAL FLAGS…`, the one mode the monitor is in.
    public init(modeline: String, timeout: Double = 15) throws {
        guard let xorg = Xvfb.find("Xorg") else { throw XvfbError("Xorg is not installed") }
        let name = String(modeline.split(separator: " ").first ?? "mode")
        folder = NSTemporaryDirectory() + "dummy-xorg-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = """
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
        try config.write(toFile: folder + "/xorg.conf", atomically: true, encoding: .utf8)
        let folder = self.folder
        do {
            let started = try Xvfb.startOnFreeDisplay(from: 400 + Int(getpid() % 200), attempts: 5, name: "Xorg",
                                                      timeout: timeout) { candidate in
                try Xvfb.spawn(xorg, [":\(candidate)", "-config", folder + "/xorg.conf", "-logfile", folder + "/xorg.log",
                                      "-noreset", "-nolisten", "tcp", "-novtswitch", "-sharevts"])
            }
            displayNumber = started.display
            pid = started.pid
        } catch {
            let log = (try? String(contentsOfFile: folder + "/xorg.log", encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: folder)
            throw XvfbError("\(error); its log ends: \(log.suffix(2000))")
        }
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
        Xvfb.terminate(pid)
        try? FileManager.default.removeItem(atPath: folder)
    }
}
