import Foundation
@preconcurrency import Glibc
import Testing
import CardFileSupport
import ScratchCore
import ScratchImage
import XvfbSupport

/// Card files as the desktop meets them, through the desktop's own clients and the
/// installed files (`make install-files PREFIX=/usr` into a DESTDIR, its `usr/share` used
/// as a private XDG_DATA_HOME, with the MIME and desktop databases built as a
/// real-system install builds them): shared-mime-info through gio and xdg-mime, opening
/// with xdg-open and gio open under Xvfb, tumbler's D-Bus thumbnailer on a private
/// session bus, and the thumbnailer in a bubblewrap sandbox as GNOME runs it.
@Suite("Card files on the desktop", .serialized)
struct CardFileDesktopTests {
    static let grey = RGBA(r: 150, g: 150, b: 160)
    static let gold = RGBA(r: 240, g: 160, b: 20)

    /// An install, its databases built, and a card made by the installed program (grey
    /// cover image, gold prize) with a renamed copy.
    struct Desktop {
        let destdir: String
        var share: String { destdir + "/usr/share" }
        var binary: String { destdir + "/usr/bin/scratchcard" }
        let home: String
        let card: String
        let renamed: String
        /// The one with a built-in foil, its words drawn.
        let foilCard: String

        init() throws {
            destdir = try Checkout.install(prefix: "/usr")
            home = destdir + "/home"
            try FileManager.default.createDirectory(atPath: home + "/cards", withIntermediateDirectories: true)
            for (tool, folder) in [("update-mime-database", "mime"), ("update-desktop-database", "applications")] {
                let result = try run(try #require(Xvfb.find(tool)), [destdir + "/usr/share/" + folder])
                #expect(result.status == 0, "\(tool): \(result.err)")
            }
            let cover = home + "/cover.png", prize = home + "/prize.png"
            try PNGFile.write(RGBAImage(size: PixelSize(width: 300, height: 200), filledWith: CardFileDesktopTests.grey), to: cover)
            try PNGFile.write(RGBAImage(size: PixelSize(width: 300, height: 200), filledWith: CardFileDesktopTests.gold), to: prize)
            card = home + "/cards/gift.scratchcard"
            renamed = home + "/cards/gift.bin"
            foilCard = home + "/cards/foil.scratchcard"
            let made = try run(destdir + "/usr/bin/scratchcard", ["make", "--out", card, "--cover", cover, "--prize", prize])
            #expect(made.status == 0, "\(made.err)")
            try FileManager.default.copyItem(atPath: card, toPath: renamed)
            let foil = try run(destdir + "/usr/bin/scratchcard", ["make", "--out", foilCard, "--prize", prize, "--cover-text", "Open me"])
            #expect(foil.status == 0, "\(foil.err)")
        }

        /// A GNOME-ish session's environment: our data first, the system's after it.
        func environment(display: [String: String] = [:]) -> [String: String] {
            var environment = ["HOME": home, "XDG_DATA_HOME": share, "XDG_DATA_DIRS": "/usr/local/share:/usr/share",
                               "XDG_CONFIG_HOME": home + "/.config", "XDG_CACHE_HOME": home + "/.cache",
                               "XDG_CURRENT_DESKTOP": "GNOME", "PATH": destdir + "/usr/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
            // Only the server's display and state folder: the rest is this session's own.
            for key in ["DISPLAY", "XDG_STATE_HOME"] { environment[key] = display[key] }
            return environment
        }

        func remove() { try? FileManager.default.removeItem(atPath: destdir) }
    }

    @Test("xdg-mime and gio name application/x-scratchcard for a card file and a renamed copy; the default application is ScratchCard's entry")
    func typeIsKnown() throws {
        let desktop = try Desktop(); defer { desktop.remove() }
        let environment = desktop.environment()
        let xdgMime = try #require(Xvfb.find("xdg-mime")), gio = try #require(Xvfb.find("gio"))
        for file in [desktop.card, desktop.renamed] {
            let type = try run(xdgMime, ["query", "filetype", file], environment: environment)
            #expect(type.out.trimmingCharacters(in: .whitespacesAndNewlines) == "application/x-scratchcard", "\(file): \(type.out) \(type.err)")
        }
        // The renamed copy is known by its first bytes alone: gio says so without the name.
        let info = try run(gio, ["info", "-a", "standard::content-type,standard::icon", desktop.renamed], environment: environment)
        #expect(info.out.contains("standard::content-type: application/x-scratchcard"), "\(info.out)")
        #expect(info.out.contains("application-x-scratchcard"), "the type's icon: \(info.out)")
        let handler = try run(xdgMime, ["query", "default", "application/x-scratchcard"], environment: environment)
        #expect(handler.out.trimmingCharacters(in: .whitespacesAndNewlines) == "scratchcard.desktop", "\(handler.out) \(handler.err)")
        // Without the installed type a card file is only a zip: the test does test the install.
        var bare = environment
        bare["XDG_DATA_HOME"] = desktop.home + "/empty"
        let unknown = try run(gio, ["info", "-a", "standard::content-type", desktop.renamed], environment: bare)
        #expect(!unknown.out.contains("x-scratchcard"), "\(unknown.out)")
    }

    @Test("xdg-open and gio open start ScratchCard on the card under Xvfb")
    func opensInScratchCard() throws {
        let desktop = try Desktop(); defer { desktop.remove() }
        for (opener, file) in [(["xdg-open"], desktop.card), (["gio", "open"], desktop.renamed)] {
            let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
            let program = try #require(Xvfb.find(opener[0]))
            // Output to a file, as a session's: the program it starts inherits it, and would
            // die of SIGPIPE writing to a pipe closed once the opener is done.
            let log = desktop.home + "/\(opener[0]).log"
            let status = try launch(program, Array(opener.dropFirst()) + [file], environment: desktop.environment(display: server.environment),
                                    output: log)
            #expect(status == 0, "\(opener): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            let window = try server.scratchcardWindow(timeout: 30)
            // The card's cover, grey, fills the window (300x200 points at the server's scale).
            var shown = try server.capture(window: window)
            _ = waitUntil(timeout: 10) {
                shown = (try? server.capture(window: window)) ?? shown
                return close(shown[shown.size.width / 2, shown.size.height / 2], Self.grey, 2)
            }
            #expect(close(shown[shown.size.width / 2, shown.size.height / 2], Self.grey, 2), "\(opener): not the card's cover")
            // The program the opener started: the installed one (this install's own path), on the file.
            let started = processes(runningFrom: desktop.binary)
            #expect(started.count == 1 && started.first?.arguments == [file], "\(opener) started \(started)")
            try server.xdotool("mousemove", "--window", "\(window)", "1", "1")
            try server.xdotool("key", "q")
            #expect(waitUntil(timeout: 10) { processes(runningFrom: desktop.binary).isEmpty }, "ScratchCard did not quit")
        }
    }

    @Test("tumbler's D-Bus thumbnailer on a private session bus: the cover in the thumbnail cache with Thumb::URI and Thumb::MTime, nothing of the prize")
    func tumblerThumbnail() throws {
        let desktop = try Desktop(); defer { desktop.remove() }
        var environment = desktop.environment()
        environment["XDG_CURRENT_DESKTOP"] = "XFCE"
        let bus = try SessionBus(environment: environment); defer { bus.stop() }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let gdbus = try #require(Xvfb.find("gdbus"))
        // Tumbler sends its signals to the caller alone: a monitor (dbus-monitor becomes one)
        // sees them, a plain subscriber such as `gdbus monitor` does not.
        let monitor = try Watched(try #require(Xvfb.find("dbus-monitor")),
                                  ["--session", "type='signal',interface='org.freedesktop.thumbnails.Thumbnailer1'"], environment: environment)
        defer { monitor.stop() }
        let uri = "file://" + desktop.card
        let queued = try run(gdbus, ["call", "--session", "--dest", "org.freedesktop.thumbnails.Thumbnailer1",
                                     "--object-path", "/org/freedesktop/thumbnails/Thumbnailer1",
                                     "--method", "org.freedesktop.thumbnails.Thumbnailer1.Queue",
                                     "['\(uri)']", "['application/x-scratchcard']", "normal", "default", "uint32 0"],
                             environment: environment, timeout: 60)
        #expect(queued.status == 0, "Queue: \(queued.out) \(queued.err)")
        let handle = queued.out.split(separator: " ").dropFirst().first?.filter(\.isNumber) ?? "?"     // "(uint32 7,)"
        // Tumbler runs thumbnailers at idle priority: on a busy machine that takes a while.
        #expect(waitUntil(timeout: 120) { monitor.text.contains("member=Finished") }, "\(monitor.text)")
        let ready = monitor.text.components(separatedBy: "member=Ready").dropFirst().first ?? ""
        #expect(ready.contains("uint32 \(handle)") && ready.contains("string \"\(uri)\""), "\(monitor.text)")
        #expect(!monitor.text.contains("member=Error"), "\(monitor.text)")

        let uriFile = desktop.home + "/uri.txt"
        try Data(uri.utf8).write(to: URL(fileURLWithPath: uriFile))
        let name = try run(try #require(Xvfb.find("md5sum")), [uriFile]).out.prefix(32)
        let path = desktop.home + "/.cache/thumbnails/normal/\(name).png"
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let text = pngText(bytes)
        #expect(text["Thumb::URI"] == uri, "\(text)")
        var info = stat()
        #expect(stat(desktop.card, &info) == 0)
        #expect(text["Thumb::MTime"].flatMap(Double.init).map(Int.init) == info.st_mtim.tv_sec, "\(text)")
        let image = try PNGFile.decode(bytes, name: path)
        #expect(max(image.size.width, image.size.height) == 128, "\(image.size)")
        let notCover = stride(from: 0, to: image.bytes.count, by: 4).filter {
            !close(RGBA(r: image.bytes[$0], g: image.bytes[$0 + 1], b: image.bytes[$0 + 2]), Self.grey, 2) }
        #expect(notCover.isEmpty, "\(notCover.count) pixels are not the cover's")
    }

    @Test("the .thumbnailer's Exec (scratchcard-thumbnailer) in bubblewrap as GNOME runs it (read-only binds, no /etc/fonts, no network, no display): the foil with its words, as scratchcard thumbnail gives it; scratchcard thumbnail draws the words there for a file without the stored picture")
    func sandboxedThumbnail() throws {
        let desktop = try Desktop(); defer { desktop.remove() }
        let outside = desktop.home + "/outside.png"
        let plain = try run(desktop.binary, ["thumbnail", "--size", "256", desktop.foilCard, outside], environment: desktop.environment())
        #expect(plain.status == 0, "\(plain.err)")
        let out = desktop.home + "/sandbox-out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let bwrap = try #require(Xvfb.find("bwrap"))
        // GNOME's thumbnail sandbox (gnome-desktop's gnome-desktop-thumbnail-script.c): /usr
        // and the loader's cache read-only, the usr-merged links, a private /proc and /dev,
        // every namespace unshared (no network, no X socket), a clean environment; the input
        // bound read-only, the output folder the only writable place. The program itself is
        // bound in read-only too, at /app (not /usr/bin: this install is not in the system's /usr).
        var sandbox = ["--ro-bind", "/usr", "/usr", "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
                         "--ro-bind-try", "/etc/alternatives", "/etc/alternatives"]
        for link in ["lib", "lib64", "bin", "sbin"] { sandbox += ["--symlink", "usr/\(link)", "/\(link)"] }
        sandbox += ["--proc", "/proc", "--dev", "/dev", "--chdir", "/", "--setenv", "GIO_USE_VFS", "local",
                      "--unshare-all", "--die-with-parent", "--clearenv",
                      "--bind", out, "/tmp", "--ro-bind", desktop.foilCard, "/tmp/gnome-desktop-file-to-thumbnail.scratchcard",
                      "--ro-bind", desktop.destdir + "/usr/bin", "/app"]
        // The command is the installed .thumbnailer file's Exec, its fields filled in as
        // GNOME fills them (the program looked up in /app, where the install's bin is).
        let entry = try String(contentsOfFile: desktop.share + "/thumbnailers/scratchcard.thumbnailer", encoding: .utf8)
        let exec = try #require(entry.split(separator: "\n").first { $0.hasPrefix("Exec=") }).dropFirst(5)
        let command = exec.split(separator: " ").map { field -> String in
            switch field {
            case "%s": "256"
            case "%i": "/tmp/gnome-desktop-file-to-thumbnail.scratchcard"
            case "%o": "/tmp/gnome-desktop-thumbnailer.png"
            default: String(field)
            }
        }
        #expect(command.first == "scratchcard-thumbnailer", "the thumbnailer's Exec: \(exec)")
        let sandboxed = try run(bwrap, sandbox + ["/app/" + command[0]] + command.dropFirst(), environment: [:], timeout: 60)
        #expect(sandboxed.status == 0, "\(sandboxed.err)")
        // Inside, really nothing of /etc/fonts, no network but loopback, no display.
        let etc = try run(bwrap, sandbox + ["/usr/bin/ls", "-A", "/etc", "/tmp"], environment: [:])
        #expect(etc.status == 0 && !etc.out.contains("fonts") && !etc.out.contains(".X11-unix"), "in the sandbox: \(etc.out) \(etc.err)")
        let net = try run(bwrap, sandbox + ["/usr/bin/cat", "/proc/net/dev"], environment: [:])
        let interfaces = net.out.split(separator: "\n").dropFirst(2).compactMap { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) }
        #expect(interfaces == ["lo"], "network in the sandbox: \(interfaces)")
        let environment = try run(bwrap, sandbox + ["/usr/bin/env"], environment: ["DISPLAY": ":0"])
        #expect(!environment.out.contains("DISPLAY"), "\(environment.out)")
        let inside = try PNGFile.read(path: out + "/gnome-desktop-thumbnailer.png"), reference = try PNGFile.read(path: outside)
        #expect(inside.size == PixelSize(width: 256, height: 160) && inside.size == reference.size)
        // The words are drawn in the sandbox as outside it: the same picture, near enough.
        let dark = { (image: RGBAImage) in stride(from: 0, to: image.bytes.count, by: 4).filter { image.bytes[$0] < 90 }.count }
        #expect(dark(reference) > 200, "the reference has words")
        #expect(abs(dark(inside) - dark(reference)) < dark(reference) / 5, "words: \(dark(inside)) dark pixels inside, \(dark(reference)) outside")

        // The thumbnailer shows the foil's picture make stored; `scratchcard thumbnail` draws
        // the words itself when a file has none, in the same sandbox (no /etc/fonts): Pango
        // through fontconfig's built-in fallback. The same card packed by hand without it:
        let prize = try Array(Data(contentsOf: URL(fileURLWithPath: desktop.home + "/prize.png")))
        let handMade = desktop.home + "/cards/hand-made.scratchcard"
        try Data(RawZip.card(json: #"{"cards": [{"prize": "prize.png", "cover-text": "Open me"}]}"#,
                             files: [RawZip.Entry("prize.png", prize)]).bytes).write(to: URL(fileURLWithPath: handMade))
        let handSandbox = sandbox.map { $0 == desktop.foilCard ? handMade : $0 }
        let drawn = try run(bwrap, handSandbox + ["/app/scratchcard", "thumbnail", "--size", "256",
                                                  "/tmp/gnome-desktop-file-to-thumbnail.scratchcard", "/tmp/drawn.png"],
                            environment: [:], timeout: 60)
        #expect(drawn.status == 0, "\(drawn.err)")
        let drawnInside = try PNGFile.read(path: out + "/drawn.png")
        #expect(drawnInside.size == PixelSize(width: 256, height: 160))
        #expect(abs(dark(drawnInside) - dark(reference)) < dark(reference) / 5, "words drawn: \(dark(drawnInside)) dark pixels, \(dark(reference)) in the stored picture's")
        let refused = try run(bwrap, handSandbox + ["/app/" + command[0]] + command.dropFirst(), environment: [:], timeout: 60)
        #expect(refused.status == 2 && refused.err.contains("Thumbnails/cover.jpg"), "\(refused.status) \(refused.err)")
    }
}

/// Runs `program` to its end with its output (and its children's) going to the file `output`.
func launch(_ program: String, _ arguments: [String], environment: [String: String], output: String) throws -> Int32 {
    try Data().write(to: URL(fileURLWithPath: output))
    let file = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    defer { try? file.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = file
    process.standardError = file
    try process.run()
    let deadline = Date().addingTimeInterval(60)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return process.terminationStatus
}

/// The processes whose program is `binary` (a path unique to one test's install), with
/// their arguments.
func processes(runningFrom binary: String) -> [(pid: Int32, arguments: [String])] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry in
        guard let pid = Int32(entry), let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
        let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard let program = words.first, program == binary || program == "scratchcard",
              (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == binary else { return nil }
        return (pid, Array(words.dropFirst()))
    }
}

/// The tEXt chunks of a PNG file, keyword to text.
func pngText(_ bytes: [UInt8]) -> [String: String] {
    var found: [String: String] = [:], at = 8
    func be32(_ o: Int) -> Int { Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3]) }
    while at + 12 <= bytes.count {
        let length = be32(at), type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
        guard at + 12 + length <= bytes.count else { break }
        if type == "tEXt", let nul = bytes[(at + 8)..<(at + 8 + length)].firstIndex(of: 0) {
            found[String(decoding: bytes[(at + 8)..<nul], as: UTF8.self)] = String(decoding: bytes[(nul + 1)..<(at + 8 + length)], as: UTF8.self)
        }
        at += 12 + length
    }
    return found
}

/// A private D-Bus session bus (`dbus-daemon --session`): services are activated from
/// the environment's XDG_DATA_DIRS, tumbler's among them. Stopped with everything it started.
final class SessionBus {
    let daemon = Process()
    let address: String
    private let output = Pipe()

    init(environment: [String: String]) throws {
        daemon.executableURL = URL(fileURLWithPath: Xvfb.find("dbus-daemon") ?? "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--print-address=1", "--nopidfile"]
        daemon.environment = environment
        daemon.standardOutput = output
        daemon.standardInput = FileHandle.nullDevice
        try daemon.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            line.append(more)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else { throw XvfbError("dbus-daemon gave no address") }
    }

    /// Ends the services it activated (tumblerd), then the bus.
    func stop() {
        let bus = daemon.processIdentifier
        if let listing = try? FileManager.default.contentsOfDirectory(atPath: "/proc") {
            for entry in listing {
                guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { continue }
                let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
                if fields.count > 1, Int32(fields[1]) == bus { kill(pid, SIGKILL) }
            }
        }
        if daemon.isRunning { kill(bus, SIGKILL); daemon.waitUntilExit() }
    }
}

/// A long-running client whose output is collected as it comes (dbus-monitor).
final class Watched {
    private let process = Process()
    private let output = Pipe()
    private let collected = LockedData()

    init(_ program: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let collected = collected
        output.fileHandleForReading.readabilityHandler = { collected.append($0.availableData) }
        try process.run()
        // It is listening once it says something (dbus-monitor: the name it acquired).
        _ = waitUntil(timeout: 10) { collected.text.contains("NameAcquired") }
    }

    var text: String { collected.text }

    func stop() {
        // SIGKILL: a child of the test process may inherit a signal mask that blocks SIGTERM.
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        output.fileHandleForReading.readabilityHandler = nil
    }
}
