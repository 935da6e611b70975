import Foundation
@preconcurrency import Glibc

/// The power-cut test's file system mounted (Tests/PowerCutFS/powercutfs.c, built beside
/// the tests): everything in memory until synced; `cut()` drops what is not; `unmount()`
/// and a new `PowerCutMount` on the same backing folder "boot" from what was synced.
/// Needs root (or fuse's user mounts) and /dev/fuse.
final class PowerCutMount {
    let backing: String
    let mountPoint: String
    private let process = Process()
    private let errors = Pipe()

    static var executable: String {
        URL(fileURLWithPath: App.executable).deletingLastPathComponent().appendingPathComponent("powercutfs").path
    }

    init(backing: String, mountPoint: String) throws {
        self.backing = backing
        self.mountPoint = mountPoint
        try FileManager.default.createDirectory(atPath: backing, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = [backing, mountPoint]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        guard waitUntil(timeout: 10, { Self.isMounted(mountPoint) || !process.isRunning }), Self.isMounted(mountPoint) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            throw PowerCutError("powercutfs did not mount \(mountPoint): \(String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self))")
        }
    }

    deinit {
        if process.isRunning { _ = unmount() }
    }

    /// The power goes: no write made from now on (or before and not synced) survives the
    /// next mount.
    func cut() { kill(process.processIdentifier, SIGUSR1) }

    /// Unmounts (the kernel's cache of the mount goes with it) and waits for the file
    /// system to end; returns its last words.
    @discardableResult
    func unmount() -> String {
        for attempt in 0..<50 {
            let status = runQuietly("/usr/bin/fusermount3", attempt < 40 ? ["-u", mountPoint] : ["-u", "-z", mountPoint])
            if status == 0 { break }
            usleep(100_000)
        }
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    static func isMounted(_ path: String) -> Bool {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return false }
        return mounts.split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first.map(String.init) == path }
    }

    private func runQuietly(_ program: String, _ arguments: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }
}

struct PowerCutError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
