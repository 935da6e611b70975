// A real EWMH window manager (Openbox) on a private Xvfb, for tests of full screen.
import Foundation
@preconcurrency import Glibc

/// Openbox running on `server`, with its own empty home and configuration in a temporary
/// folder (nothing of the user's is read or written), stopped by `stop()` or when
/// released.
///
///     let server = try Xvfb()
///     let manager = try WindowManager(server: server)
///     defer { manager.stop(); server.stop() }
public final class WindowManager {
    public let pid: pid_t
    private let folder: String
    private var exited = false

    /// Starts `openbox --sm-disable --config-file RC` and waits (at most `timeout`
    /// seconds) until it has announced itself: the root window's
    /// `_NET_SUPPORTING_WM_CHECK` names a window (xprop).
    public init(server: Xvfb, timeout: Double = 10) throws {
        guard let executable = Xvfb.find("openbox") else { throw XvfbError("openbox is not installed") }
        var template = Array("/tmp/scratchcard-wm-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw XvfbError("mkdtemp failed") }
        folder = String(cString: made)
        let rc = folder + "/rc.xml"
        // Defaults for everything; one desktop, no margins, so full screen is the whole
        // screen; and Alt+Tab switches windows, the binding of openbox's own default
        // configuration that a kiosk must not let a visitor use.
        let config = """
            <?xml version="1.0" encoding="UTF-8"?>
            <openbox_config xmlns="http://openbox.org/3.4/rc">
              <desktops><number>1</number></desktops>
              <margins><top>0</top><bottom>0</bottom><left>0</left><right>0</right></margins>
              <keyboard>
                <keybind key="A-Tab">
                  <action name="NextWindow">
                    <dialog>no</dialog>
                    <finalactions><action name="Focus"/><action name="Raise"/></finalactions>
                  </action>
                </keybind>
              </keyboard>
            </openbox_config>
            """
        try config.write(toFile: rc, atomically: true, encoding: .utf8)
        var environment = server.environment
        environment["HOME"] = folder
        environment["XDG_CONFIG_HOME"] = folder + "/config"
        environment["XDG_CACHE_HOME"] = folder + "/cache"
        environment["XDG_DATA_HOME"] = folder + "/data"
        environment["XDG_CONFIG_DIRS"] = folder + "/none"
        environment.removeValue(forKey: "SESSION_MANAGER")
        pid = try Xvfb.spawn(executable, ["--sm-disable", "--config-file", rc],
                             environment: environment.map { "\($0.key)=\($0.value)" })
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exited = true
                throw XvfbError("openbox exited at once (wait status \(status))")
            }
            let root = (try? server.run("xprop", ["-root", "_NET_SUPPORTING_WM_CHECK"])) ?? ""
            if root.contains("window id #") { break }
            if Date() >= deadline {
                stop()
                throw XvfbError("openbox did not announce itself within \(timeout) s")
            }
            usleep(50_000)
        }
    }

    deinit { stop() }

    /// SIGTERM, then SIGKILL if it has not gone within 5 s; reaps it; removes its folder.
    public func stop() {
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        guard !exited else { return }
        exited = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(5_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }
}
