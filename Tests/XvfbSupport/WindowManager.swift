// A real EWMH window manager (Openbox) on a private Xvfb (or DummyXorg), for tests of full screen.
import Foundation
@preconcurrency import Glibc
internal import CXFixes

/// Openbox running on `server`, with its own empty home and configuration in a temporary
/// folder (nothing of the user's is read or written), stopped by `stop()` or when
/// released.
///
///     let server = try Xvfb()
///     let manager = try WindowManager(server: server)
///     defer { manager.stop(); server.stop() }
public final class WindowManager {
    public let pid: Glibc.pid_t
    private let folder: String
    private var exited = false
    /// The readiness probe's connection, closed by `stop()` (see `probeMapped`).
    private var probeDisplay: OpaquePointer?

    /// Starts `openbox --sm-disable --config-file RC` and waits (at most `timeout`
    /// seconds) until it has announced itself (the root window's
    /// `_NET_SUPPORTING_WM_CHECK` names a window) and then until it manages windows: a
    /// probe window of ours is mapped through it. Openbox announces itself before its
    /// start-up is over and drops a MapRequest that comes in between (seen under load:
    /// a test's window never mapped); once the probe is mapped, tests see a manager at
    /// work, and time their own maps from there.
    ///
    /// `clickToFocus`: the binding of openbox's default configuration that focuses and
    /// raises a window clicked with the left button (a passive grab of button 1 on every
    /// window it manages), as a kiosk session with the stock rc.xml has it.
    public init(server: TestXServer, clickToFocus: Bool = false, timeout: Double = 30) throws {
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
            \(clickToFocus ? """
                  <mouse>
                    <context name="Client">
                      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
                    </context>
                  </mouse>
                """ : "")
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
                             environment: environment.map { "\($0.key)=\($0.value)" },
                             outputTo: folder + "/openbox.log")
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
                let log = self.log
                stop()
                throw XvfbError("openbox did not announce itself within \(timeout) s; its output: \(log)")
            }
            usleep(50_000)
        }
        guard probeMapped(on: server, until: deadline) else {
            let log = self.log, alive = isRunning
            stop()
            throw XvfbError("openbox (\(alive ? "running" : "gone")) announced itself but did not map a window "
                            + "within \(timeout) s; its output: \(log)")
        }
    }

    /// Whether openbox is still running.
    public var isRunning: Bool { !exited && kill(pid, 0) == 0 }

    /// What openbox has written to its standard output and error so far.
    public var log: String {
        (try? String(contentsOfFile: folder + "/openbox.log", encoding: .utf8)) ?? ""
    }

    /// Maps a small window and waits until a window manager has mapped it (MapNotify:
    /// with a manager running, our XMapWindow only asks it to), then destroys it and
    /// waits until the manager has let it go (gone from `_NET_CLIENT_LIST`). The
    /// connection stays open until `stop()`: a closed connection's window IDs are handed
    /// to the next client, and a test's window that inherits the probe's ID while the
    /// manager still holds the probe gets the probe's 8x8 frame. False at `deadline`.
    private func probeMapped(on server: TestXServer, until deadline: Date) -> Bool {
        guard let display = XOpenDisplay(server.displayName) else { return false }
        probeDisplay = display
        let root = XDefaultRootWindow(display)
        let probe = XCreateSimpleWindow(display, root, 0, 0, 8, 8, 0, 0, 0)
        XSelectInput(display, probe, StructureNotifyMask)
        XMapWindow(display, probe)
        XFlush(display)
        var mapped = false
        var event = XEvent()
        // Openbox drops a MapRequest that comes while it is starting up: ask again, as
        // X11Window.map does (written here again so that the harness does not rest on
        // the code it tests).
        var asked = Date()
        while !mapped, Date() < deadline {
            if Date().timeIntervalSince(asked) > 0.5 {
                XMapWindow(display, probe)
                XFlush(display)
                asked = Date()
            }
            while XPending(display) > 0 {
                XNextEvent(display, &event)
                if event.type == MapNotify, event.xmap.window == probe { mapped = true }
            }
            var poller = pollfd(fd: XConnectionNumber(display), events: Int16(POLLIN), revents: 0)
            if !mapped { _ = poll(&poller, 1, 50) }
        }
        XDestroyWindow(display, probe)
        XSync(display, 0)
        guard mapped else { return false }
        let name = "0x" + String(UInt(probe), radix: 16)
        while Date() < deadline {
            let list = (try? server.run("xprop", ["-root", "_NET_CLIENT_LIST"])) ?? ""
            let ids = list.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" })
            if !ids.contains(where: { $0 == name }) { return true }
            usleep(20_000)
        }
        return false
    }

    deinit { stop() }

    /// SIGTERM, then SIGKILL if it has not gone within 5 s; reaps it; removes its folder.
    public func stop() {
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        if let display = probeDisplay { XCloseDisplay(display); probeDisplay = nil }
        guard !exited else { return }
        exited = true
        Xvfb.terminate(pid)
    }
}
