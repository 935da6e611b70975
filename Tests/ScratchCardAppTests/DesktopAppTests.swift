import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchImage
import XvfbSupport

/// The card as a desktop program, driven by the desktop's own clients under Xvfb: a GTK 3
/// drag source, xclip, gtk-launch with a startup listener, xprop, Openbox for full screen.
@Suite(.serialized) struct DesktopAppTests {
    static let cover = RGBA(r: 190, g: 190, b: 195)
    static let red = RGBA(r: 220, g: 30, b: 30)
    static let blue = RGBA(r: 20, g: 60, b: 200)
    static let size = PixelSize(width: 200, height: 150)

    func card() throws -> SolidCard { try SolidCard(cover: Self.cover, prize: Self.red, size: Self.size, prizeName: "red.png") }

    func colour(_ image: RGBAImage, _ x: Int, _ y: Int) -> RGBA {
        let o = (y * image.width + x) * 4
        return RGBA(r: image.bytes[o], g: image.bytes[o + 1], b: image.bytes[o + 2])
    }

    /// Scratches the row y = 75 across the card, then the pixel in its middle once the
    /// window shows it scratched (the foil gone from it: a busy machine puts later), or
    /// the foil's colour after 5 s.
    func scratchedMiddle(_ server: Xvfb, _ window: UInt) throws -> RGBA {
        try server.drag(window: window, from: (2, 75), through: [(60, 75), (120, 75), (198, 75)])
        return colour(try server.waitForPixels(window: window) { colour($0, 100, 75) != Self.cover }, 100, 75)
    }

    func start(_ server: Xvfb, _ files: SolidCard, extra: [String] = [], environment: [String: String]? = nil) throws -> (RunningApp, UInt) {
        let app = try RunningApp(files.arguments + ["--scale", "1", "--brush", "12", "--events", "--reveal-at", "100"] + extra,
                                 environment: environment ?? server.environment)
        // A 4K card takes a while in a debug build.
        let window = try server.scratchcardWindow(timeout: 60)
        _ = try server.waitForPixels(window: window, timeout: 30) { colour($0, 100, 75) == Self.cover }
        return (app, window)
    }

    // MARK: drop

    @Test func aPictureDroppedFromGTKBecomesThePrizeAndATextFileIsRefused() throws {
        let files = try card(); defer { files.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let photo = try App.solidPNG(Self.blue, size: PixelSize(width: 300, height: 225), in: files.folder, name: "My photo.png")
        let notes = files.folder.appendingPathComponent("notes.txt").path
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: notes))
        let (app, window) = try start(server, files)

        // A text file: refused, the card unchanged.
        let refused = try GTKDragSource(server: server, x: 400, y: 100, uris: [URL(fileURLWithPath: notes).absoluteString])
        let hand = try refused.drag(server: server, toX: 100, toY: 75)
        #expect(waitUntil(timeout: 20) { !hand.isRunning && refused.client.outputText.contains("drag-end") })
        #expect(refused.client.outputText.contains("drag-failed"), "\(refused.client.outputText)")
        refused.client.stop()
        #expect(!app.eventNames.contains("new-card"))

        // A picture: the prize under fresh foil.
        let source = try GTKDragSource(server: server, x: 400, y: 100, uris: [URL(fileURLWithPath: photo).absoluteString])
        let drop = try source.drag(server: server, toX: 100, toY: 75)
        #expect(waitUntil(timeout: 20) { app.eventNames.contains("new-card") }, "source: \(source.client.outputText)")
        _ = waitUntil(timeout: 5) { !drop.isRunning }
        let fresh = try server.waitForPixels(window: window) { colour($0, 100, 75) == Self.cover }
        #expect(colour(fresh, 100, 75) == Self.cover, "fresh foil over the new prize")
        #expect(try scratchedMiddle(server, window) == Self.blue)
        let newCard = app.events.first { $0["event"] as? String == "new-card" }
        #expect(newCard?["card"] as? String == "My photo", "\(String(describing: newCard))")
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        #expect(app.standardError.isEmpty, "\(app.standardError)")
    }

    @Test func aDroppedCardFileOpensThatCardAndRDealsFromIt() throws {
        let files = try card(); defer { files.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let green = RGBA(r: 30, g: 160, b: 60)
        let prize = try App.solidPNG(green, size: Self.size, in: files.folder, name: "green.png")
        // Named without .scratchcard: a card file is told by its content.
        let gift = files.folder.appendingPathComponent("gift for you.card").path
        let made = try runToExit(["make", "--out", gift, "--cover", files.cover, "--prize", prize])
        #expect(made.status == 0, "\(made.err)")
        let (app, window) = try start(server, files)

        let source = try GTKDragSource(server: server, x: 400, y: 100, uris: [URL(fileURLWithPath: gift).absoluteString])
        let drop = try source.drag(server: server, toX: 100, toY: 75)
        #expect(waitUntil(timeout: 20) { app.eventNames.contains("new-card") }, "source: \(source.client.outputText)")
        _ = waitUntil(timeout: 5) { !drop.isRunning }
        #expect(!source.client.outputText.contains("drag-failed"), "\(source.client.outputText)")
        let fresh = try server.waitForPixels(window: window) { colour($0, 100, 75) == Self.cover }
        #expect(colour(fresh, 100, 75) == Self.cover, "the card file's cover")
        #expect(try scratchedMiddle(server, window) == green, "the card file's prize")
        let newCard = app.events.first { $0["event"] as? String == "new-card" }
        #expect(newCard?["card"] as? String == "green", "\(String(describing: newCard))")

        // `r` deals from the dropped card file now, not the deck the window started with.
        try server.press("r", in: window)
        #expect(waitUntil(timeout: 20) { app.eventNames.filter { $0 == "new-card" }.count == 2 })
        _ = try server.waitForPixels(window: window) { colour($0, 100, 75) == Self.cover }
        #expect(try scratchedMiddle(server, window) == green, "r: the dropped file's card again")
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        #expect(app.standardError.isEmpty, "\(app.standardError)")
    }

    @Test func aRefusedDropLeavesTheCardAsItWas() throws {
        let files = try card(); defer { files.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let notes = files.folder.appendingPathComponent("photo.png.txt").path
        try Data("not a picture, whatever its name".utf8).write(to: URL(fileURLWithPath: notes))
        let (app, window) = try start(server, files)
        let refused = try GTKDragSource(server: server, x: 400, y: 100, uris: [URL(fileURLWithPath: notes).absoluteString])
        let hand = try refused.drag(server: server, toX: 100, toY: 75)
        #expect(waitUntil(timeout: 20) { !hand.isRunning && refused.client.outputText.contains("drag-end") })
        #expect(refused.client.outputText.contains("drag-failed"))
        #expect(try scratchedMiddle(server, window) == Self.red, "the prize as it was")
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        #expect(!app.eventNames.contains("new-card"))
    }

    @Test func aKioskIsNoDropTargetButADesktopCardIs() throws {
        let files = try card(); defer { files.remove() }
        let server = try Xvfb(width: 320, height: 240); defer { server.stop() }
        for kiosk in [true, false] {
            let app = try RunningApp(files.arguments + (kiosk ? ["--kiosk", "--exit-chord", "ctrl+alt+k"] : []),
                                     environment: server.environment)
            let window = try server.scratchcardWindow()
            let aware = try server.run("xprop", ["-id", "\(window)", "XdndAware"])
            #expect(aware.contains("XdndAware(ATOM) = ") != kiosk, "kiosk \(kiosk): \(aware)")
            kill(app.pid, SIGTERM)
            #expect(app.wait() == 0)
            _ = waitUntil(timeout: 5) { (try? server.run("xdotool", ["search", "--classname", "scratchcard"])) == nil }
        }
    }

    // MARK: clipboard

    /// Ctrl+C, then `xclip -o` of image/png: the PNG's pixels against the window's.
    func copyMatchesWindow(screen: PixelSize, extra: [String]) throws {
        let files = try card(); defer { files.remove() }
        let server = try Xvfb(width: screen.width, height: screen.height); defer { server.stop() }
        let (app, window) = try start(server, files, extra: extra)
        _ = try scratchedMiddle(server, window)
        try server.press("ctrl+c", in: window)
        // Ownership comes once the PNG is made (seconds at 4K in a debug build).
        #expect(waitUntil(timeout: 60) { ((try? server.run("xclip", ["-selection", "clipboard", "-t", "TARGETS", "-o"])) ?? "").contains("image/png") })
        let xclip = try ClientProcess("xclip", ["-selection", "clipboard", "-t", "image/png", "-o"], environment: server.environment)
        #expect(waitUntil(timeout: 30) { !xclip.isRunning })
        #expect(xclip.status == 0, "\(xclip.errorText)")
        let copied = try PNGFile.decode(Array(xclip.output), name: "xclip's output")
        let shown = try server.capture(window: window)
        #expect(copied.size == shown.size)
        var differing = 0
        for i in stride(from: 0, to: min(copied.bytes.count, shown.bytes.count), by: 4)
        where copied.bytes[i] != shown.bytes[i] || copied.bytes[i + 1] != shown.bytes[i + 1] || copied.bytes[i + 2] != shown.bytes[i + 2] {
            differing += 1
        }
        #expect(differing == 0, "\(differing) pixels differ")
        #expect(colour(copied, 100, 75) == Self.red && colour(copied, 100, 10) == Self.cover)
        try server.press("q", in: window)
        #expect(app.wait(timeout: 20) == 0)
    }

    @Test func ctrlCCopiesWhatTheWindowShows() throws {
        try copyMatchesWindow(screen: PixelSize(width: 640, height: 480), extra: [])
    }

    @Test func ctrlCCopiesA4KWindow() throws {
        try copyMatchesWindow(screen: PixelSize(width: 3840, height: 2160), extra: ["--size", "3840x2160"])
    }

    @Test func ctrlVMakesThePastedPhotoThePrize() throws {
        let files = try card(); defer { files.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let photo = try App.solidPNG(Self.blue, size: PixelSize(width: 400, height: 300), in: files.folder, name: "photo.png")
        let (app, window) = try start(server, files)
        let loader = try ClientProcess("xclip", ["-selection", "clipboard", "-t", "image/png", "-i", photo], environment: server.environment)
        #expect(waitUntil(timeout: 10) { !loader.isRunning })
        try server.press("ctrl+v", in: window)
        #expect(waitUntil(timeout: 10) { app.eventNames.contains("new-card") })
        _ = try server.waitForPixels(window: window) { colour($0, 100, 75) == Self.cover }
        #expect(try scratchedMiddle(server, window) == Self.blue)
        try server.press("q", in: window)
        #expect(app.wait() == 0)
    }

    // MARK: identity

    @Test func gtkLaunchSeesItsLaunchCompleteAndXpropTheIdentity() throws {
        let files = try card(); defer { files.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let data = files.folder.appendingPathComponent("data")
        let applications = data.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        // The installed entry's launch lines, with this build's binary and the test's card.
        let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets")
        let installed = try String(contentsOf: assets.appendingPathComponent("scratchcard.desktop"), encoding: .utf8)
        #expect(installed.contains("StartupNotify=true\n") && installed.contains("StartupWMClass=scratchcard\n"))
        let entry = installed.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("Exec=") ? "Exec=\(App.executable) --cover \(files.cover) --prize \(files.prize) --scale 1" : String(line)
        }.joined(separator: "\n")
        try entry.write(to: applications.appendingPathComponent("scratchcard-launch-test.desktop"), atomically: true, encoding: .utf8)
        var environment = server.environment
        environment["XDG_DATA_HOME"] = data.path
        environment["NO_AT_BRIDGE"] = "1"
        let listener = try StartupListener(server: server)
        let launcher = try ClientProcess("gtk-launch", ["scratchcard-launch-test"], environment: environment)
        let messages = listener.messages(timeout: 20) { $0.contains { $0.hasPrefix("remove:") } }
        let launch = messages.first { $0.hasPrefix("new:") }
        let id = launch.flatMap(Self.startupID)
        #expect(id != nil, "messages \(messages); gtk-launch: \(launcher.errorText)")
        #expect(messages.contains { $0.hasPrefix("remove:") && Self.startupID($0) == id }, "\(messages)")

        let window = try server.scratchcardWindow()
        let props = try server.run("xprop", ["-id", "\(window)", "_NET_WM_PID", "WM_CLIENT_MACHINE", "_NET_STARTUP_ID", "WM_CLASS"])
        let pid = props.split(separator: "\n").first { $0.hasPrefix("_NET_WM_PID") }.flatMap { Int32($0.split(separator: " ").last!) }
        let exe = pid.flatMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/exe") }
        #expect(exe == URL(fileURLWithPath: App.executable).resolvingSymlinksInPath().path, "\(props)")
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, 255)
        #expect(props.contains("WM_CLIENT_MACHINE(STRING) = \"\(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))\""), "\(props)")
        #expect(props.contains("WM_CLASS(STRING) = \"scratchcard\", \"scratchcard\""))
        if let id { #expect(props.contains("_NET_STARTUP_ID(UTF8_STRING) = \"\(id)\""), "\(props)") }
        let icons = try server.run("xprop", ["-id", "\(window)", "_NET_WM_ICON"])
        for n in [16, 24, 32, 48, 64, 128] { #expect(icons.contains("Icon (\(n) x \(n)):"), "size \(n)") }
        #expect(icons.components(separatedBy: "Icon (").count - 1 == 6)
        try server.press("q", in: window)
        if let pid { #expect(waitUntil(timeout: 10) { kill(pid, 0) != 0 }) }
    }

    /// The ID=… of a startup-notification message, quoted or not.
    static func startupID(_ message: String) -> String? {
        guard let range = message.range(of: "ID=") else { return nil }
        var rest = message[range.upperBound...]
        if rest.first == "\"" {
            rest = rest.dropFirst()
            var id = "", escaped = false
            for c in rest {
                if escaped { id.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { return id } else { id.append(c) }
            }
            return nil
        }
        return String(rest.prefix { $0 != " " })
    }

    // MARK: full screen

    @Test func f11UnderOpenboxTakesTheScreenAndBackKeepingTheScratches() throws {
        let files = try card(); defer { files.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let manager = try WindowManager(server: server); defer { manager.stop() }
        let app = try RunningApp(files.arguments + ["--scale", "1", "--brush", "12", "--events", "--reveal-at", "100"],
                                 environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 20)
        _ = try server.waitForPixels(window: window) { colour($0, 100, 75) == Self.cover }
        let before = try server.geometry(window: window)
        #expect(before.width == 200 && before.height == 150)
        #expect(try scratchedMiddle(server, window) == Self.red)
        func state() throws -> String { try server.run("xprop", ["-id", "\(window)", "_NET_WM_STATE"]) }

        try server.press("F11", in: window)
        #expect(waitUntil(timeout: 10) { (try? server.geometry(window: window)).map { $0.width == 640 && $0.height == 480 } ?? false })
        #expect(try state().contains("_NET_WM_STATE_FULLSCREEN"))
        // The card fills the screen (the same 4:3): the scratch, scaled, across its middle.
        let full = try server.waitForPixels(window: window) { colour($0, 320, 240) == Self.red }
        #expect(colour(full, 320, 240) == Self.red && colour(full, 320, 60) == Self.cover)

        // Escape leaves full screen first; the program goes on.
        try server.xdotool("key", "Escape")
        #expect(waitUntil(timeout: 10) { (try? server.geometry(window: window)).map { $0.width == 200 && $0.height == 150 } ?? false })
        #expect(!(try state().contains("_NET_WM_STATE_FULLSCREEN")))
        #expect(app.process.isRunning)
        let back = try server.waitForPixels(window: window) { colour($0, 100, 75) == Self.red }
        #expect(colour(back, 100, 75) == Self.red && colour(back, 100, 20) == Self.cover)
        // From a normal window Escape quits.
        try server.xdotool("key", "Escape")
        #expect(app.wait() == 0)
        #expect(app.eventNames.last == "quit")
    }

    // MARK: a quiet start

    @Test func withNoSoundAStartAndAQuitPrintNothing() throws {
        let files = try card(); defer { files.remove() }
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        // No sound server (PulseAudio, PipeWire's pulse) and no ALSA card: ALSA's library
        // has eight lines of its own to say about that.
        var environment = server.environment
        environment["PULSE_SERVER"] = "unix:/nonexistent/pulse/native"
        environment["ALSA_CARD"] = "97"
        environment["XDG_RUNTIME_DIR"] = files.folder.path
        for verbose in [false, true] {
            let app = try RunningApp(files.arguments + ["--stats"] + (verbose ? ["--verbose"] : []), environment: environment)
            let window = try server.scratchcardWindow()
            // Verbose, the sound thread's line says it has tried both outputs; quiet, nothing
            // does until the quit, whose --stats line says whether it had (sound=silent).
            if verbose {
                #expect(waitUntil { app.standardError.contains("sound:") }, "\(app.standardError)")
            } else {
                usleep(1_000_000)
            }
            try server.press("q", in: window)
            #expect(app.wait() == 0)
            #expect(app.stats["sound"] == "silent", "the sound thread had given up both outputs by the quit: \(app.standardOutput)")
            if verbose {
                // Said once, in the program's words, ALSA's detail inside.
                let soundLines = app.standardError.split(separator: "\n").filter { $0.contains("sound:") }
                #expect(soundLines.count == 1 && soundLines[0].contains("no ALSA device"), "\(app.standardError)")
                #expect(!app.standardError.contains("ALSA lib "), "\(app.standardError)")
            } else {
                #expect(app.standardError.isEmpty, "\(app.standardError)")
            }
            _ = waitUntil(timeout: 5) { (try? server.run("xdotool", ["search", "--classname", "scratchcard"])) == nil }
        }
    }
}

/// The doodle window on a desktop: a picture dropped on it opens for doodling, the strokes
/// on show saved first.
@Suite(.serialized) struct DoodleDesktopTests {
    @Test func aDroppedPictureOpensOnceTheStrokesAreSaved() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let grey = RGBA(r: 128, g: 128, b: 128), blue = RGBA(r: 20, g: 60, b: 200)
        let input = try App.solidPNG(grey, size: PixelSize(width: 300, height: 200), in: folder, name: "first.png")
        let next = try App.solidPNG(blue, size: PixelSize(width: 300, height: 200), in: folder, name: "second.png")
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["doodle", input, "--scale", "1", "--width", "10"], environment: server.environment,
                                 currentDirectory: folder)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0[150, 50] == grey }
        try server.press("1", in: window)
        try server.drag(window: window, from: (50, 100), through: [(150, 100), (250, 100)])
        let drawn = try server.waitForPixels(window: window) { $0[150, 100] != grey }
        let ink = drawn[150, 100]
        #expect(ink != grey)

        let source = try GTKDragSource(server: server, x: 400, y: 250, uris: [URL(fileURLWithPath: next).absoluteString])
        let hand = try source.drag(server: server, toX: 150, toY: 50)
        // (xwd, under GTK's pointer grab, reads the window as 24 bits per pixel: after the drag.)
        #expect(waitUntil(timeout: 20) { !hand.isRunning && source.client.outputText.contains("drag-end") })
        let shown = try server.waitForPixels(window: window, timeout: 20) { $0[150, 50] == blue }
        // The moment the new picture shows, the strokes are on disk.
        let saved = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("first") && $0 != "first.png" }
        #expect(shown[150, 50] == blue, "source: \(source.client.outputText)")
        #expect(shown[150, 100] == blue, "the new picture comes without the old strokes")
        #expect(saved.count == 1, "\(saved)")
        if let name = saved.first {
            let doodle = try PNGFile.read(path: folder.appendingPathComponent(name).path)
            #expect(doodle[150, 100] == ink && doodle[150, 50] == grey, "the strokes, saved over the first picture")
        }
        try server.press("q", in: window)
        #expect(app.wait() == 0)
    }

    @Test func aPastedPictureOpensOnceTheStrokesAreSavedAndF11TakesTheScreen() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let grey = RGBA(r: 128, g: 128, b: 128), blue = RGBA(r: 20, g: 60, b: 200)
        let input = try App.solidPNG(grey, size: PixelSize(width: 300, height: 200), in: folder, name: "first.png")
        let next = try App.solidPNG(blue, size: PixelSize(width: 300, height: 200), in: folder, name: "copied.png")
        let server = try Xvfb(width: 640, height: 480); defer { server.stop() }
        let app = try RunningApp(["doodle", input, "--scale", "1", "--width", "10"], environment: server.environment,
                                 currentDirectory: folder)
        let window = try server.scratchcardWindow()
        _ = try server.waitForPixels(window: window) { $0[150, 50] == grey }
        try server.drag(window: window, from: (50, 100), through: [(150, 100), (250, 100)])
        _ = try server.waitForPixels(window: window) { $0[150, 100] != grey }

        let loader = try ClientProcess("xclip", ["-selection", "clipboard", "-t", "image/png", "-i", next], environment: server.environment)
        #expect(waitUntil(timeout: 10) { !loader.isRunning })
        try server.press("ctrl+v", in: window)
        let shown = try server.waitForPixels(window: window, timeout: 10) { $0[150, 50] == blue }
        #expect(shown[150, 50] == blue && shown[150, 100] == blue)
        let saved = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("first-doodle") }
        #expect(saved == ["first-doodle.png"], "\(saved)")

        // F11 without a window manager: the screen's size, and back.
        try server.press("F11", in: window)
        #expect(waitUntil(timeout: 10) { (try? server.geometry(window: window)).map { $0.width == 640 && $0.height == 480 } ?? false })
        try server.xdotool("key", "F11")
        #expect(waitUntil(timeout: 10) { (try? server.geometry(window: window)).map { $0.width == 300 && $0.height == 200 } ?? false })
        try server.press("q", in: window)
        #expect(app.wait() == 0)
    }
}
