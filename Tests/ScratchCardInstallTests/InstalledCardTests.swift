import Foundation
@preconcurrency import Glibc
import ScratchCore
import ScratchImage
import Testing
import TestRequirementTrait
import XvfbSupport

/// Runs `binary` inside `namespace` under a private Xvfb and checks, from the window's
/// pixels, that the built-in card shows (drawn by the program: a card of many colours) and
/// that a drag through XTest scratches it where it went and nowhere else.
func checkBuiltInCardShowsAndScratches(binary: String, in namespace: HiddenFolders) throws {
    let server = try Xvfb(width: 800, height: 600)
    defer { server.stop() }
    let app = try namespace.start(binary, ["--events"], environment: server.environment)
    _ = waitUntil(timeout: 20) { app.eventNames.contains("ready") || !app.process.isRunning }
    try #require(app.eventNames.contains("ready"), "no ready event; stderr: \(app.standardError)")
    let window = try server.scratchcardWindow()
    // Its icon, from the installed hicolor theme beside the binary: the six drawn sizes.
    let icons = try server.run("xprop", ["-id", "\(window)", "_NET_WM_ICON"])
    for n in [16, 24, 32, 48, 64, 128] { #expect(icons.contains("Icon (\(n) x \(n)):"), "no \(n) px icon") }
    let before = try server.capture(window: window)

    // It shows a card: the foil's noise and lettering, not a blank window.
    let colours = Set((0..<before.size.height).flatMap { y in (0..<before.size.width).map { x -> UInt32 in
        let p = before[x, y]
        return UInt32(p.r) << 16 | UInt32(p.g) << 8 | UInt32(p.b)
    } })
    #expect(colours.count > 200, "the window shows \(colours.count) colours: no card")

    // A drag along the middle row takes the cover away there.
    let row = before.size.height / 2
    let xs = Array(stride(from: 100, through: before.size.width - 100, by: 20))
    try server.drag(window: window, from: (xs[0], row), through: xs.dropFirst().map { ($0, row) })
    var after = before
    _ = waitUntil(timeout: 10) {
        after = (try? server.capture(window: window)) ?? before
        return !close(after[xs[xs.count / 2], row], before[xs[xs.count / 2], row], 30)
    }
    let changed = (xs[0]...xs[xs.count - 1]).filter { !close(after[$0, row], before[$0, row], 30) }.count
    #expect(changed > (xs[xs.count - 1] - xs[0]) * 9 / 10, "only \(changed) pixels of the scratched row changed")
    // Far from the stroke (the brush is 20 px), nothing changed.
    var untouched = 0, far = 0
    for y in 0..<(row - 60) { for x in 0..<before.size.width { far += 1; if close(after[x, y], before[x, y], 2) { untouched += 1 } } }
    #expect(untouched == far, "\(far - untouched) pixels changed far from the stroke")
    #expect(app.eventNames.contains("scratch-start"))

    try server.xdotool("mousemove", "--window", "\(window)", "1", "1")
    try server.xdotool("key", "q")
    #expect(app.wait(timeout: 10) == 0, "stderr: \(app.standardError)")
}

func close(_ a: RGBA, _ b: RGBA, _ tolerance: Int) -> Bool {
    abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance && abs(Int(a.b) - Int(b.b)) <= tolerance
}

@Suite("The installed program", .serialized)
struct InstalledCardTests {
    /// `make install` into a DESTDIR; the installed binary runs in a mount namespace
    /// with empty folders over the Swift toolchain and the checkout's .build.
    @Test(.requires(HiddenFolders.unavailable))
    func installedBinaryRunsTheBuiltInCardWithNoToolchainOrBuild() throws {
        let destdir = try Checkout.install()
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let toolchain = try #require(Checkout.toolchain)
        let namespace = try HiddenFolders([toolchain, Checkout.root + "/.build"])
        defer { namespace.stop() }

        // The folders really are out of reach in there: the toolchain's is empty, and a
        // development build (linked to the toolchain's runtime) copied out cannot start.
        #expect(try namespace.run("/bin/ls", ["-A", toolchain]).out.isEmpty)
        #expect(try namespace.run("/bin/ls", ["-A", Checkout.root + "/.build"]).out.isEmpty)
        let devCopy = destdir + "/dev-scratchcard"
        try FileManager.default.copyItem(atPath: Checkout.built("scratchcard"), toPath: devCopy)
        let dev = try namespace.run(devCopy, ["--version"])
        #expect(dev.status == 127 && dev.err.contains("error while loading shared libraries: libswift"), "the development build ran: \(dev)")

        let binary = destdir + "/usr/local/bin/scratchcard"
        let version = try namespace.run(binary, ["--version"])
        #expect(version.status == 0 && version.out.hasPrefix("scratchcard "), "\(version)")
        try checkBuiltInCardShowsAndScratches(binary: binary, in: namespace)
    }

    /// The built-in card is drawn, not read: the installation holds no data folder, and the
    /// program renders the built-in card with nothing beside it, also through a symbolic
    /// link from elsewhere.
    @Test func theBuiltInCardNeedsNoDataFiles() throws {
        let destdir = try Checkout.install()
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let binary = destdir + "/usr/local/bin/scratchcard"
        #expect(!FileManager.default.fileExists(atPath: destdir + "/usr/local/share/scratchcard"))
        let trace = destdir + "/one.trace", out = destdir + "/out.png"
        try "scratch-trace 1\ncanvas 64 40\nbrush 5\ndown 10 10\nmove 50 30\nup\n".write(toFile: trace, atomically: true, encoding: .utf8)
        let render = ["render", "--trace", trace, "--out", out]

        let direct = try run(binary, render)
        #expect(direct.status == 0, "\(direct.err)")
        #expect((try? PNGFile.read(path: out))?.size == PixelSize(width: 64, height: 40))
        try FileManager.default.removeItem(atPath: out)

        let link = destdir + "/elsewhere/scratchcard"
        try FileManager.default.createDirectory(atPath: destdir + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: binary)
        let linked = try run(link, render)
        #expect(linked.status == 0, "through a link: \(linked.err)")
        #expect((try? PNGFile.read(path: out))?.size == PixelSize(width: 64, height: 40))
        #expect(!linked.err.contains("Fatal error"))
    }

    /// `make uninstall` with the same DESTDIR and PREFIX leaves no file behind.
    @Test func uninstallRemovesWhatInstallPut() throws {
        let destdir = try Checkout.install(prefix: "/opt/card")
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let installed = try files(under: destdir)
        // The binary and the thumbnailer's, two menu entries, 7 PNG icons and the SVG (and
        // as many for the card file's type), the MIME package, the thumbnailer entry, the
        // man page (and its link for the thumbnailer), 2 examples.
        #expect(installed.contains("opt/card/bin/scratchcard") && installed.count >= 26, "\(installed)")
        #expect(installed.contains("opt/card/bin/scratchcard-thumbnailer"))
        #expect(installed.contains("opt/card/share/man/man1/scratchcard-thumbnailer.1.gz"))
        #expect(installed.contains("opt/card/share/mime/packages/scratchcard.xml"))
        #expect(installed.contains("opt/card/share/thumbnailers/scratchcard.thumbnailer"))
        #expect(installed.contains("opt/card/share/icons/hicolor/48x48/mimetypes/application-x-scratchcard.png"))
        let result = try run("/usr/bin/make", ["-C", Checkout.root, "--no-print-directory", "uninstall", "DESTDIR=\(destdir)", "PREFIX=/opt/card"])
        #expect(result.status == 0, "\(result.err)")
        #expect(try files(under: destdir).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: destdir + "/opt/card/share/scratchcard"))
        #expect(!FileManager.default.fileExists(atPath: destdir + "/opt/card/share/doc/scratchcard"))
    }

    /// The kiosk examples name the installed binary, not a checkout's.
    @Test func examplesNameTheInstalledBinary() throws {
        let destdir = try Checkout.install(prefix: "/usr")
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let examples = destdir + "/usr/share/doc/scratchcard/examples/"
        let unit = try String(contentsOfFile: examples + "scratchcard-kiosk.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/scratchcard --kiosk"))
        let xinitrc = try String(contentsOfFile: examples + "xinitrc", encoding: .utf8)
        #expect(xinitrc.contains("/usr/bin/scratchcard --kiosk") && !xinitrc.contains("/usr/local"))
        #expect(FileManager.default.isExecutableFile(atPath: examples + "xinitrc"))
    }
}

/// Regular files and links under `folder`, relative to it.
func files(under folder: String) throws -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
    var found: [String] = []
    while let path = walker.nextObject() as? String {
        let type = walker.fileAttributes?[.type] as? FileAttributeType
        if type != .typeDirectory { found.append(path) }
    }
    return found.sorted()
}

/// The installed menu entry launched as a desktop launches it: gtk-launch (GTK's launch
/// context sends `new:` and sets DESKTOP_STARTUP_ID), the installed program answering with
/// `remove:` for the same id once its first frame is shown, as a listener on the root sees.
@Suite("Launch feedback", .serialized)
struct LaunchFeedbackTests {
    @Test func gtkLaunchOfTheInstalledEntryIsCompleted() throws {
        let destdir = try Checkout.install()
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let server = try Xvfb(width: 640, height: 480)
        defer { server.stop() }
        var environment = server.environment
        environment["XDG_DATA_DIRS"] = destdir + "/usr/local/share"
        environment["XDG_DATA_HOME"] = destdir + "/nothing-here"
        environment["PATH"] = destdir + "/usr/local/bin:/usr/bin:/bin"
        environment["NO_AT_BRIDGE"] = "1"
        let listener = try StartupListener(server: server)
        let launcher = try ClientProcess("gtk-launch", ["scratchcard"], environment: environment)
        let messages = listener.messages(timeout: 30) { $0.contains { $0.hasPrefix("remove:") } }
        let id = messages.first { $0.hasPrefix("new:") }.flatMap(Self.startupID)
        #expect(id != nil, "messages \(messages); gtk-launch: \(launcher.errorText)")
        #expect(messages.contains { $0.hasPrefix("remove:") && Self.startupID($0) == id }, "\(messages)")
        let window = try server.scratchcardWindow()
        let props = try server.run("xprop", ["-id", "\(window)", "_NET_WM_PID", "_NET_STARTUP_ID"])
        if let id { #expect(props.contains("_NET_STARTUP_ID(UTF8_STRING) = \"\(id)\""), "\(props)") }
        let pid = props.split(separator: "\n").first { $0.hasPrefix("_NET_WM_PID") }.flatMap { Int32($0.split(separator: " ").last!) }
        let exe = pid.flatMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/exe") }
        #expect(exe == destdir + "/usr/local/bin/scratchcard", "\(props)")
        try server.xdotool("mousemove", "--window", "\(window)", "1", "1")
        try server.xdotool("key", "q")
        if let pid { #expect(waitUntil(timeout: 10) { kill(pid, 0) != 0 }) }
    }

    /// The ID=… of a startup-notification message, quoted or not.
    static func startupID(_ message: String) -> String? {
        guard let range = message.range(of: "ID=") else { return nil }
        var rest = message[range.upperBound...]
        guard rest.first == "\"" else { return String(rest.prefix { $0 != " " }) }
        rest = rest.dropFirst()
        var id = "", escaped = false
        for c in rest {
            if escaped { id.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { return id } else { id.append(c) }
        }
        return nil
    }
}
