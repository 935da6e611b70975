// A GTK 3 window offering files as a drag source (python3-gi, gir1.2-gtk-3.0), and a
// drag of it with XTest (xdotool), as a user drags a photo from a file manager.
import Foundation
@preconcurrency import Glibc

/// A GTK 3 drag source at a place of the screen, offering `uris` as text/uri-list.
/// Its standard output says `ready`, `data-get`, `drag-end` and `drag-failed N`.
public final class GTKDragSource {
    public let client: ClientProcess
    /// A point inside its window, in root coordinates, to press on.
    public private(set) var x = 0, y = 0
    private let listPath: String

    static let script = """
    import sys, gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gtk, Gdk, GLib
    x, y, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    uris = [line for line in open(path).read().split("\\n") if line]
    win = Gtk.Window(title="drag source")
    win.set_default_size(120, 120)
    win.move(x, y)
    box = Gtk.EventBox()
    box.add(Gtk.Label(label="drag me"))
    win.add(box)
    box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
    box.drag_source_add_uri_targets()
    def data_get(widget, context, data, info, time):
        data.set_uris(uris)
        print("data-get", flush=True)
    def drag_end(widget, context):
        print("drag-end", flush=True)
    def drag_failed(widget, context, result):
        print("drag-failed", int(result), flush=True)
        return True
    box.connect("drag-data-get", data_get)
    box.connect("drag-end", drag_end)
    box.connect("drag-failed", drag_failed)
    def ready():
        _, ox, oy = win.get_window().get_origin()
        print("ready", ox, oy, flush=True)
        return False
    win.connect("map-event", lambda *a: GLib.timeout_add(200, ready) and False)
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    Gtk.main()
    """

    /// Starts the source with its window's top-left corner at (x, y) (without a window
    /// manager GTK puts it there; a manager may place it elsewhere: it says where), and
    /// waits until it is shown.
    public init(server: TestXServer, x: Int, y: Int, uris: [String], timeout: Double = 30) throws {
        let stem = NSTemporaryDirectory() + "drag-\(getpid())-\(UUID().uuidString)"
        listPath = stem + ".uris"
        try Data(uris.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: listPath))
        var environment = server.environment
        environment["GDK_BACKEND"] = "x11"
        environment["NO_AT_BRIDGE"] = "1"       // no accessibility bus to look for
        environment["GTK_A11Y"] = "none"
        // Debian's python3 with python3-gi, whatever python3 comes first on PATH.
        client = try ClientProcess("/usr/bin/python3", ["-c", Self.script, "\(x)", "\(y)", listPath], environment: environment)
        let deadline = Date().addingTimeInterval(timeout)
        while !client.outputText.contains("ready"), client.isRunning, Date() < deadline { usleep(20_000) }
        guard let line = client.outputText.split(separator: "\n").first(where: { $0.hasPrefix("ready") }) else {
            throw XvfbError("the GTK drag source did not start: \(client.errorText)")
        }
        let origin = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        guard origin.count == 2 else { throw XvfbError("the GTK drag source said \(line)") }
        self.x = origin[0] + 60
        self.y = origin[1] + 60
    }

    deinit {
        client.stop()
        unlink(listPath)
    }

    /// Drags from the source to (toX, toY) with XTest, as a hand does: press on the
    /// source, a few small moves with short sleeps past GTK's drag threshold, the move
    /// onto the target, a small move there, release. One xdotool process, run in the
    /// background: the caller reads its window's events meanwhile. `hold`: seconds over
    /// the target before the release.
    public func drag(server: TestXServer, toX: Int, toY: Int, hold: Double = 0.5) throws -> ClientProcess {
        var steps = ["mousemove", "\(x)", "\(y)", "sleep", "0.2", "mousedown", "1", "sleep", "0.2"]
        for i in 1...6 { steps += ["mousemove", "\(x + i * 4)", "\(y + i * 2)", "sleep", "0.05"] }
        steps += ["mousemove", "\(toX)", "\(toY)", "sleep", "\(hold / 2)",
                  "mousemove", "\(toX + 3)", "\(toY + 3)", "sleep", "\(hold / 2)", "mouseup", "1"]
        return try ClientProcess("xdotool", steps, environment: server.environment)
    }
}
