import Foundation
@preconcurrency import Glibc
import ScratchCore
import ScratchImage
import XvfbSupport

/// Runs the built `scratchcard` executable as a user would, against a private Xvfb.
enum App {
    /// The executable beside the test bundle (swift build --build-tests builds both).
    static var executable: String {
        let bundleFolder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return bundleFolder.appendingPathComponent("scratchcard").path
    }

    /// A folder for one test's files, removed by the caller.
    static func scratchFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scratchcard-tests-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A solid colour PNG.
    static func solidPNG(_ colour: RGBA, size: PixelSize, in folder: URL, name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try PNGFile.write(RGBAImage(size: size, filledWith: colour), to: path)
        return path
    }
}

/// A card of two solid colours, written as PNGs into a fresh folder; `remove()` when done.
struct SolidCard {
    let folder: URL
    let cover: String
    let prize: String

    init(cover: RGBA, prize: RGBA, size: PixelSize, prizeName: String = "prize.png") throws {
        folder = try App.scratchFolder()
        self.cover = try App.solidPNG(cover, size: size, in: folder, name: "cover.png")
        self.prize = try App.solidPNG(prize, size: size, in: folder, name: prizeName)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
    var arguments: [String] { ["--cover", cover, "--prize", prize] }
}

/// A running `scratchcard`, its output collected; killed when released.
final class RunningApp {
    let process = Process()
    private let output = Pipe(), errors = Pipe()
    private let outputData: LockedData, errorData = LockedData()

    /// `stampOutput`: stamp each piece of stdout with its arrival, for `arrival(ofLineContaining:)`.
    /// Off by default: with every process's output stamped, BadInputTests (processes that
    /// exit at once) crashed in libdispatch's event loop 4 runs in 4, and 0 in 7 without;
    /// a race in Foundation's readability-handler teardown, it seems, not pinned down.
    /// `launcher`: a program that runs the executable for us (`["/usr/bin/faketime", "-f", "-1d"]`):
    /// started as `launcher + [executable] + arguments`; `pid` is then the launcher's.
    init(_ arguments: [String], environment: [String: String], currentDirectory: URL? = nil, stampOutput: Bool = false,
         launcher: [String] = []) throws {
        outputData = LockedData(stamping: stampOutput)
        process.executableURL = URL(fileURLWithPath: launcher.first ?? App.executable)
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [App.executable] + arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        outputData.collect(output.fileHandleForReading)
        errorData.collect(errors.fileHandleForReading)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
    }

    var pid: Int32 { process.processIdentifier }

    /// Waits for the exit (at most `timeout` s, then kills) and returns its status.
    @discardableResult
    func wait(timeout: Double = 10) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
        LockedData.waitUntilDrained([(outputData, output.fileHandleForReading), (errorData, errors.fileHandleForReading)])
        return process.terminationStatus
    }

    var standardOutput: String { outputData.text }

    /// When the first `--events` line holding `text` reached us (CLOCK_MONOTONIC s).
    func arrival(ofLineContaining text: String) -> Double? {
        let output = outputData.bytes
        guard let range = output.range(of: Data(text.utf8)) else { return nil }
        return outputData.arrival(ofByte: range.upperBound - 1)
    }
    var standardError: String { errorData.text }

    /// The `--events` lines written so far that parse, in order (a line still being
    /// written does not).
    var events: [[String: Any]] {
        standardOutput.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    /// The names of `events`.
    var eventNames: [String] { events.compactMap { $0["event"] as? String } }

    /// The `--stats` line's `key=value` fields (on stdout; on stderr with `--events`).
    var stats: [String: String] {
        let text = standardOutput.contains("repaints=") ? standardOutput : standardError
        let line = text.split(separator: "\n").last { $0.contains("repaints=") } ?? ""
        return Dictionary(line.split(separator: " ").compactMap { pair -> (String, String)? in
            let kv = pair.split(separator: "=", maxSplits: 1)
            return kv.count == 2 ? (String(kv[0]), String(kv[1])) : nil
        }, uniquingKeysWith: { _, last in last })
    }
}

/// Polls `done` every 20 ms until it holds or `timeout` seconds pass; returns its last answer.
func waitUntil(timeout: Double = 8, _ done: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !done() && Date() < deadline { usleep(20_000) }
    return done()
}

/// The CPU clock ticks (user + system) a process has used, or one of its threads (the
/// main thread, the window's loop, has the process's id).
func cpuTicks(_ pid: Int32, thread: Int32? = nil) throws -> Int {
    let path = thread.map { "/proc/\(pid)/task/\($0)/stat" } ?? "/proc/\(pid)/stat"
    let stat = try String(contentsOfFile: path, encoding: .utf8)
    let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
    return Int(fields[11])! + Int(fields[12])!      // utime, stime: fields 14 and 15 of the line
}

/// CLOCK_MONOTONIC in seconds.
func monotonicNow() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Runs the program to its end with no X server at all (for bad-input cases).
func runToExit(_ arguments: [String], timeout: Double = 10) throws -> (status: Int32, out: String, err: String) {
    var environment = ProcessInfo.processInfo.environment
    environment["DISPLAY"] = ":9999"        // nothing there: bad input must fail before any X
    // A kiosk's store goes into a folder of this run's own, never the user's.
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("scratchcard-state-\(getpid())-\(UUID().uuidString)")
    environment["XDG_STATE_HOME"] = state.path
    defer { try? FileManager.default.removeItem(at: state) }
    let app = try RunningApp(arguments, environment: environment)
    let status = app.wait(timeout: timeout)
    return (status, app.standardOutput, app.standardError)
}

extension TestXServer {
    /// The id of the first window with WM_CLASS `scratchcard`, waiting for it to map.
    func scratchcardWindow(timeout: Double = 10) throws -> UInt {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? run("xdotool", ["search", "--onlyvisible", "--classname", "scratchcard"]),
               let id = text.split(separator: "\n").first.flatMap({ UInt($0) }) {
                return id
            }
            usleep(50_000)
        }
        throw XvfbError("no scratchcard window appeared within \(timeout) s")
    }

    /// The window's position and size on the screen, from xwininfo.
    func geometry(window: UInt) throws -> (x: Int, y: Int, width: Int, height: Int) {
        let text = try run("xwininfo", ["-id", "\(window)"])
        func value(_ label: String) -> Int {
            text.split(separator: "\n").first { $0.contains(label) }
                .flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) } ?? -1
        }
        return (value("Absolute upper-left X"), value("Absolute upper-left Y"), value("Width"), value("Height"))
    }

    /// A press at `from`, moves through `path`, a release: real input through XTest.
    func drag(window: UInt, from start: (Int, Int), through path: [(Int, Int)]) throws {
        try xdotool("mousemove", "--window", "\(window)", "\(start.0)", "\(start.1)")
        try xdotool("mousedown", "1")
        for (x, y) in path { try xdotool("mousemove", "--window", "\(window)", "\(x)", "\(y)") }
        try xdotool("mouseup", "1")
    }

    /// A key typed into the window through XTest. With no window manager the focus
    /// follows the pointer, so the pointer goes over the window first.
    func press(_ key: String, in window: UInt) throws {
        try xdotool("mousemove", "--window", "\(window)", "1", "1")
        try xdotool("key", key)
    }

    /// What the window shows once `done` holds for it, or after `timeout` seconds.
    func waitForPixels(window: UInt, timeout: Double = 5, until done: (RGBAImage) -> Bool) throws -> RGBAImage {
        let deadline = Date().addingTimeInterval(timeout)
        var image = try capture(window: window)
        while !done(image) && Date() < deadline {
            usleep(30_000)
            image = try capture(window: window)
        }
        return image
    }

    /// What the window shows, read back from the server with xwd.
    func capture(window: UInt) throws -> RGBAImage {
        let data = try runData("xwd", ["-id", "\(window)", "-silent"])
        return try XWD.decode(data)
    }

    /// Like `run`, for binary output.
    func runData(_ program: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(program)")
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XvfbError("\(program) failed") }
        return data
    }
}

/// Just enough of the XWD format (X Window Dump, version 7) for 24/32-bit TrueColor.
enum XWD {
    static func decode(_ data: Data) throws -> RGBAImage {
        let bytes = [UInt8](data)
        func field(_ i: Int) -> Int {
            let o = i * 4
            return Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3])
        }
        guard bytes.count >= 100, field(1) == 7 else { throw XvfbError("not an XWD v7 dump") }
        let headerSize = field(0), width = field(4), height = field(5), byteOrder = field(7)
        let bitsPerPixel = field(11), bytesPerLine = field(12)
        let redMask = field(14), greenMask = field(15), blueMask = field(16), colours = field(19)
        guard bitsPerPixel == 32 else { throw XvfbError("XWD with \(bitsPerPixel) bits per pixel") }
        let start = headerSize + colours * 12
        guard bytes.count >= start + bytesPerLine * height else { throw XvfbError("XWD too short") }
        func shift(_ mask: Int) -> Int { mask == 0 ? 0 : mask.trailingZeroBitCount }
        var image = RGBAImage(size: PixelSize(width: width, height: height), filledWith: .black)
        for y in 0..<height {
            for x in 0..<width {
                let o = start + y * bytesPerLine + x * 4
                let b0 = Int(bytes[o]), b1 = Int(bytes[o + 1]), b2 = Int(bytes[o + 2]), b3 = Int(bytes[o + 3])
                let pixel = byteOrder == 0 ? (b3 << 24 | b2 << 16 | b1 << 8 | b0) : (b0 << 24 | b1 << 16 | b2 << 8 | b3)
                image[x, y] = RGBA(r: UInt8((pixel & redMask) >> shift(redMask)),
                                   g: UInt8((pixel & greenMask) >> shift(greenMask)),
                                   b: UInt8((pixel & blueMask) >> shift(blueMask)))
            }
        }
        return image
    }
}
