import Foundation
@preconcurrency import Glibc
import ScratchCore
import TestRequirements
import ScratchImage
import XvfbSupport

/// The checkout, the install step and the things `make test` made before the tests
/// (SwiftPM holds .build's lock while they run, so they cannot build): the static
/// binary in .build/install and the .deb in .build/deb.
enum Checkout {
    /// The package's root folder, from this file's place in it.
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }     // Tests/ScratchCardInstallTests/this.swift
        return url.path
    }()

    /// The folder of the Swift toolchain whose runtime this test process (a development
    /// build) runs on, /opt/swift here: five levels above the libswiftCore.so it mapped
    /// (PREFIX/usr/lib/swift/linux/libswiftCore.so).
    static var toolchain: String? {
        // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file.
        guard let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() else { return nil }
        let maps = String(decoding: data, as: UTF8.self)
        guard let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libswiftCore.so") }),
              let start = line.firstIndex(of: "/") else { return nil }
        var url = URL(fileURLWithPath: String(line[start...]))
        for _ in 0..<5 { url.deleteLastPathComponent() }
        return url.path
    }

    /// A development build's executable beside this test bundle.
    static func built(_ name: String) -> String {
        let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return folder.appendingPathComponent(name).path
    }

    /// The program's version, as `--version` says it ("scratchcard 0.1.0" -> "0.1.0").
    static func version() throws -> String {
        let text = try run(built("scratchcard"), ["--version"]).out
        return String(text.split(separator: " ").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The .deb `make deb` wrote.
    static func deb() throws -> String {
        let path = "\(root)/.build/deb/scratchcard_\(try version())_amd64.deb"
        guard FileManager.default.fileExists(atPath: path) else {
            throw XvfbError("no \(path): `make test` makes it first (make deb)")
        }
        return path
    }

    /// `make install-files` into a fresh DESTDIR with PREFIX; returns the DESTDIR.
    static func install(prefix: String = "/usr/local") throws -> String {
        let destdir = try scratchFolder()
        let result = try run("/usr/bin/make", ["-C", root, "--no-print-directory", "install-files", "DESTDIR=\(destdir)", "PREFIX=\(prefix)"])
        guard result.status == 0 else {
            throw XvfbError("make install-files failed (\(result.status)): \(result.err)\n`make test` builds the binary first (make install-build)")
        }
        return destdir
    }

    /// A fresh folder under /tmp, removed by the caller.
    static func scratchFolder() throws -> String {
        let path = "/tmp/scratchcard-install-tests-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// Runs a program to its end (no shell), its output collected.
@discardableResult
func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil,
         timeout: Double = 120) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe(), errors = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = errors
    let out = LockedData(), err = LockedData()
    out.collect(output.fileHandleForReading)
    err.collect(errors.fileHandleForReading)
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    LockedData.waitUntilDrained([(out, output.fileHandleForReading), (err, errors.fileHandleForReading)])
    output.fileHandleForReading.readabilityHandler = nil
    errors.fileHandleForReading.readabilityHandler = nil
    return (process.terminationStatus, out.text, err.text)
}

/// A mount namespace in which the given folders are empty (a tmpfs over each): a
/// process started in it cannot reach the Swift toolchain or the checkout's build.
/// Needs root (unshare -m). A `sleep` holds the namespace; processes join it with
/// nsenter, which execs the program itself (no shell, and its pid is the program's).
final class HiddenFolders {
    private let holder: Process
    let hidden: [String]

    /// What this machine lacks to make one (root, unshare and nsenter), or nil.
    static var unavailable: String? {
        Requirement.first(Requirement.root(to: "make a mount namespace (unshare -m)"),
                          Xvfb.find("unshare") == nil || Xvfb.find("nsenter") == nil
                              ? "needs unshare and nsenter (Debian's util-linux, which make deps installs)" : nil)
    }

    init(_ folders: [String]) throws {
        if let missing = Self.unavailable { throw XvfbError(missing) }
        let unshare = Xvfb.find("unshare")!
        holder = Process()
        holder.executableURL = URL(fileURLWithPath: unshare)
        holder.arguments = ["--mount", "--propagation", "private", "sleep", "3600"]
        holder.standardInput = FileHandle.nullDevice
        try holder.run()
        hidden = folders
        // The namespace exists once the holder has become `sleep` in it.
        let ownNamespace = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/mnt")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let theirs = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(holder.processIdentifier)/ns/mnt")
            let command = try? String(contentsOfFile: "/proc/\(holder.processIdentifier)/comm", encoding: .utf8)
            if let theirs, theirs != ownNamespace, command?.hasPrefix("sleep") == true { break }
            usleep(10_000)
        }
        for folder in folders {
            let mounted = try run(Xvfb.find("nsenter")!, ["--target", "\(holder.processIdentifier)", "--mount", "--",
                                                          "mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "hidden", folder])
            guard mounted.status == 0 else { stop(); throw XvfbError("could not hide \(folder): \(mounted.err)") }
        }
    }

    deinit { stop() }

    func stop() {
        if holder.isRunning { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
    }

    /// nsenter's arguments that run `program arguments` inside the namespace.
    func command(_ program: String, _ arguments: [String]) -> (String, [String]) {
        (Xvfb.find("nsenter")!, ["--target", "\(holder.processIdentifier)", "--mount", "--", program] + arguments)
    }

    /// Runs a program inside the namespace to its end.
    @discardableResult
    func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Double = 60)
        throws -> (status: Int32, out: String, err: String) {
        let (nsenter, all) = command(program, arguments)
        return try ScratchCardInstallTests.run(nsenter, all, environment: environment, timeout: timeout)
    }

    /// Starts a program inside the namespace; the caller ends it.
    func start(_ program: String, _ arguments: [String], environment: [String: String]) throws -> Started {
        let (nsenter, all) = command(program, arguments)
        return try Started(nsenter, all, environment: environment)
    }
}

/// A running program, its output collected; killed when released.
final class Started {
    let process = Process()
    private let output = Pipe(), errors = Pipe()
    private let out = LockedData(), err = LockedData()

    init(_ program: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        out.collect(output.fileHandleForReading)
        err.collect(errors.fileHandleForReading)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
    }

    var standardOutput: String { out.text }
    var standardError: String { err.text }

    /// The `--events` names so far.
    var eventNames: [String] {
        standardOutput.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
        }
    }

    /// Waits for the exit (at most `timeout` s, then kills) and returns its status.
    func wait(timeout: Double = 10) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        LockedData.waitUntilDrained([(out, output.fileHandleForReading), (err, errors.fileHandleForReading)])
        return process.terminationStatus
    }
}

/// Polls `done` every 20 ms until it holds or `timeout` seconds pass.
func waitUntil(timeout: Double = 10, _ done: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !done() && Date() < deadline { usleep(20_000) }
    return done()
}

extension Xvfb {
    /// The first visible window of WM_CLASS scratchcard.
    func scratchcardWindow(timeout: Double = 15) throws -> UInt {
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

    /// What the window shows, read back with xwd (32-bit TrueColor).
    func capture(window: UInt) throws -> RGBAImage {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xwd")
        process.arguments = ["-id", "\(window)", "-silent"]
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XvfbError("xwd failed on window \(window)") }
        return try decodeXWD(data)
    }

    /// A press at `from`, moves through `path`, a release: real input through XTest.
    func drag(window: UInt, from start: (Int, Int), through path: [(Int, Int)]) throws {
        try xdotool("mousemove", "--window", "\(window)", "\(start.0)", "\(start.1)")
        try xdotool("mousedown", "1")
        for (x, y) in path { try xdotool("mousemove", "--window", "\(window)", "\(x)", "\(y)") }
        try xdotool("mouseup", "1")
    }
}

/// Just enough of XWD (version 7, 32 bits a pixel) for Xvfb's windows.
func decodeXWD(_ data: Data) throws -> RGBAImage {
    let bytes = [UInt8](data)
    func field(_ i: Int) -> Int {
        let o = i * 4
        return Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3])
    }
    guard bytes.count >= 100, field(1) == 7 else { throw XvfbError("not an XWD v7 dump") }
    let headerSize = field(0), width = field(4), height = field(5), byteOrder = field(7)
    let bitsPerPixel = field(11), bytesPerLine = field(12), colours = field(19)
    let masks = (field(14), field(15), field(16))
    guard bitsPerPixel == 32 else { throw XvfbError("XWD with \(bitsPerPixel) bits per pixel") }
    let start = headerSize + colours * 12
    guard bytes.count >= start + bytesPerLine * height else { throw XvfbError("XWD too short") }
    func channel(_ pixel: Int, _ mask: Int) -> UInt8 { UInt8((pixel & mask) >> (mask == 0 ? 0 : mask.trailingZeroBitCount)) }
    var image = RGBAImage(size: PixelSize(width: width, height: height), filledWith: .black)
    for y in 0..<height {
        for x in 0..<width {
            let o = start + y * bytesPerLine + x * 4
            let b = (Int(bytes[o]), Int(bytes[o + 1]), Int(bytes[o + 2]), Int(bytes[o + 3]))
            let pixel = byteOrder == 0 ? (b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0) : (b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3)
            image[x, y] = RGBA(r: channel(pixel, masks.0), g: channel(pixel, masks.1), b: channel(pixel, masks.2))
        }
    }
    return image
}
