import Foundation
import Testing

/// The example systemd units as installed (`make install-files`): both tell systemd to
/// wait for READY=1 and to watch the kiosk; the system unit is hardened, as
/// `systemd-analyze security --offline=true` (Debian's systemd package) rates it.
@Suite("The installed systemd units", .serialized)
struct ServiceUnitTests {
    @Test("The user and system units: Type=notify, a watchdog, always restarted, naming the installed binary")
    func unitsAskForNotifyAndWatchdog() throws {
        let destdir = try Checkout.install(prefix: "/usr")
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let examples = destdir + "/usr/share/doc/scratchcard/examples/"
        for name in ["scratchcard-kiosk.service", "scratchcard-kiosk-system.service"] {
            let unit = try String(contentsOfFile: examples + name, encoding: .utf8)
            let lines = Set(unit.split(separator: "\n").map(String.init))
            #expect(lines.contains("Type=notify"), "\(name)")
            #expect(lines.contains("Restart=always"), "\(name)")
            #expect(lines.contains { $0.hasPrefix("WatchdogSec=") && Int($0.dropFirst("WatchdogSec=".count)) ?? 0 > 0 }, "\(name)")
            #expect(lines.contains { $0.hasPrefix("ExecStart=/usr/bin/scratchcard --kiosk") }, "\(name)")
            let mode = try FileManager.default.attributesOfItem(atPath: examples + name)[.posixPermissions] as? Int
            #expect(mode == 0o644, "\(name)")
        }
        let system = try String(contentsOfFile: examples + "scratchcard-kiosk-system.service", encoding: .utf8)
        #expect(system.contains("\nUser=scratchcard\n"))
    }

    @Test("systemd-analyze security --offline=true rates the installed system unit 3.0 or lower; stripped of its hardening, the same unit rates above 3.0")
    func systemUnitExposure() throws {
        let destdir = try Checkout.install(prefix: "/usr")
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let unit = destdir + "/usr/share/doc/scratchcard/examples/scratchcard-kiosk-system.service"
        let exposure = try Self.exposure(of: unit)
        #expect(exposure <= 3.0, "exposure \(exposure)")

        // The check can fail: the same unit with only its [Unit] part and what runs it.
        let bare = destdir + "/bare-kiosk.service"
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        let kept = text.split(separator: "\n").filter { line in
            line.hasPrefix("[") || ["Description=", "Type=", "ExecStart=", "User=", "Group=", "Restart="].contains { line.hasPrefix($0) }
        }
        try (kept.joined(separator: "\n") + "\n").write(toFile: bare, atomically: true, encoding: .utf8)
        let bareExposure = try Self.exposure(of: bare)
        #expect(bareExposure > 3.0, "the unhardened unit rates \(bareExposure)")
    }

    /// The overall exposure `systemd-analyze security --offline=true` prints for `unit`.
    static func exposure(of unit: String) throws -> Double {
        let result = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager", unit])
        let out = result.out + result.err
        let line = try #require(out.split(separator: "\n").first { $0.contains("Overall exposure level") }, "no exposure in: \(out)")
        let afterColon = try #require(line.split(separator: ":").last)
        let number = try #require(afterColon.split(separator: " ").first.flatMap { Double($0) }, "\(line)")
        return number
    }
}
