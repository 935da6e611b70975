import Foundation
@preconcurrency import Glibc
import XvfbSupport

/// A private PulseAudio daemon with one null sink, on a socket in a temp folder of its
/// own (HOME, PULSE_RUNTIME_PATH there too, so nothing of the user's is touched); stopped
/// by `stop()` or when released. As root pulseaudio warns but runs (without --system,
/// which would want a system-wide setup), which is how the tests run it.
final class PulseServer {
    let folder: URL
    let socket: String
    let pid: pid_t
    private var stopped = false

    init(timeout: Double = 10) throws {
        folder = try App.scratchFolder()
        let runtime = folder.appendingPathComponent("runtime").path
        let home = folder.appendingPathComponent("home").path
        for dir in [runtime, home] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        socket = folder.appendingPathComponent("native").path
        guard let executable = Xvfb.find("pulseaudio") else { throw XvfbError("pulseaudio is not installed") }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["PULSE_RUNTIME_PATH"] = runtime
        environment["XDG_RUNTIME_DIR"] = runtime
        environment.removeValue(forKey: "PULSE_SERVER")
        environment.removeValue(forKey: "DISPLAY")
        pid = try Xvfb.spawn(executable, ["-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--use-pid-file=no",
                                          "--disable-shm=yes", "-L", "module-null-sink sink_name=null rate=48000 channels=1",
                                          "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1"],
                             environment: environment.map { "\($0.key)=\($0.value)" })
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? run("pactl", ["info"])) != nil { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { stopped = true; throw XvfbError("pulseaudio exited at once (status \(status))") }
            usleep(50_000)
        }
        stop()
        throw XvfbError("pulseaudio did not answer within \(timeout) s")
    }

    deinit { stop() }

    /// `PULSE_SERVER` for clients.
    var server: String { "unix:\(socket)" }

    /// Runs a pulseaudio-utils client (pactl, parec) against this server, to its end.
    @discardableResult
    func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(program)")
        process.arguments = arguments
        process.environment = ["PULSE_SERVER": server, "HOME": folder.appendingPathComponent("home").path, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XvfbError("\(program) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        Xvfb.terminate(pid)
        try? FileManager.default.removeItem(at: folder)
    }
}

/// 16-bit mono samples at 48 kHz as they arrived, each byte with the time it came: from
/// parec reading the null sink's monitor, or from a file ALSA's `file` plugin writes.
/// `time(ofSample:)` maps a sample to when it was played (give or take the recorder's
/// own buffer, about 10 ms), on CLOCK_MONOTONIC, the clock the test also reads events by.
protocol SoundRecording: AnyObject {
    var data: LockedData { get }
    func stop()
}

extension SoundRecording {
    static var rate: Double { 48_000 }

    var samples: [Int16] {
        let bytes = data.bytes
        return bytes.withUnsafeBytes { raw in Array(raw.bindMemory(to: Int16.self).prefix(bytes.count / 2)) }
    }

    /// When sample `index` arrived.
    func time(ofSample index: Int) -> Double? { data.arrival(ofByte: index * 2 + 1) }

    /// The samples that arrived between `start` and `end` (seconds, CLOCK_MONOTONIC).
    func samples(from start: Double, to end: Double) -> ArraySlice<Int16> {
        let all = samples
        var first = all.count, last = all.count
        // The arrival times only grow with the index: bisect for both ends.
        func firstIndex(atOrAfter t: Double) -> Int {
            var lo = 0, hi = all.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if let at = time(ofSample: mid), at < t { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        first = firstIndex(atOrAfter: start)
        last = Swift.max(first, firstIndex(atOrAfter: end))
        return all[first..<last]
    }

    /// Root mean square in 16-bit units, at least 1 (one step: the floor of the scale,
    /// so that digital silence compares as a level, not as minus infinity).
    static func rms(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return 1 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return Swift.max(1, (sum / Double(samples.count)).squareRoot())
    }

    static func decibels(_ a: Double, over b: Double) -> Double { 20 * log10(a / b) }

    /// The first sample at or after `start` whose 5 ms neighbourhood is louder than
    /// `threshold` RMS: when a sound began.
    func onset(after start: Double, threshold: Double) -> Double? {
        let all = samples
        return Self.onset(in: all[samples(from: 0, to: start).count...], threshold: threshold).flatMap { time(ofSample: $0) }
    }

    /// The index of the first 5 ms block of `samples` (blocks 2.5 ms apart) louder than
    /// `threshold` RMS: where a sound begins, wherever in the recording it fell.
    static func onset(in samples: ArraySlice<Int16>, threshold: Double) -> Int? {
        var i = samples.startIndex
        while i + 240 <= samples.endIndex {
            if rms(samples[i..<i + 240]) > threshold { return i }
            i += 120
        }
        return nil
    }

    /// The pitch of a tone, in Hz: the sample rate over the median period between its
    /// upward zero crossings (each interpolated between its two samples). A median, so
    /// that neither silence at either end nor a dropout in the middle (an output starved
    /// on a busy machine: one read 330 Hz for 440 by counting crossings over the span)
    /// moves it. Crossings between samples within 200 of zero (noise, a fade's tail) are
    /// not counted. Nil when fewer than 3 upward crossings are found.
    static func pitch(of samples: ArraySlice<Int16>) -> Double? {
        var crossings: [Double] = []
        for i in samples.indices.dropFirst() {
            let a = Int(samples[i - 1]), b = Int(samples[i])
            guard a < 0, b >= 0, b - a > 200 else { continue }
            crossings.append(Double(i - 1) + Double(a) / Double(a - b))     // where the line from a to b crosses 0
        }
        guard crossings.count >= 3 else { return nil }
        let periods = zip(crossings, crossings.dropFirst()).map { $0.1 - $0.0 }.sorted()
        return rate / periods[periods.count / 2]
    }
}

/// parec on the null sink's monitor, raw s16le mono 48 kHz on its stdout (a pipe read on
/// a thread of ours, each piece stamped as it comes), 10 ms latency. Started by
/// `Xvfb.spawn` (default signal handling and mask, so SIGTERM ends it whatever our
/// threads block); reaped by `stop()`.
final class MonitorRecording: SoundRecording, @unchecked Sendable {
    let data = LockedData(stamping: true)
    private let pid: pid_t
    private let readEnd: Int32
    private let lock = NSLock()
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(server: PulseServer) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw XvfbError("pipe failed") }
        readEnd = fds[0]
        let arguments = ["--device=null.monitor", "--format=s16le", "--rate=48000", "--channels=1", "--latency-msec=10", "--raw"]
        let environment = ["PULSE_SERVER=\(server.server)", "HOME=\(server.folder.appendingPathComponent("home").path)"]
        do {
            pid = try Xvfb.spawn("/usr/bin/parec", arguments, environment: environment, standardOutput: fds[1], closing: [fds[0]])
            close(fds[1])
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        let fd = readEnd, data = self.data, done = self.done
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                data.append(Data(buffer[..<n]))
            }
            done.signal()
        }
    }

    deinit { stop() }

    func stop() {
        lock.lock()
        let was = stopped
        stopped = true
        lock.unlock()
        guard !was else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        done.wait()             // the reader saw the end of the pipe
        close(readEnd)
    }
}

/// A file that ALSA's `file` plugin writes, watched every 2 ms on a thread: each new
/// piece is stamped with the time it appeared.
final class FileRecording: SoundRecording, @unchecked Sendable {
    let data = LockedData(stamping: true)
    let path: String
    private let lock = NSLock()
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        self.path = path
        Thread.detachNewThread { [self] in
            var offset = 0
            while isRunning {
                if let handle = FileHandle(forReadingAtPath: path) {
                    try? handle.seek(toOffset: UInt64(offset))
                    if let more = try? handle.readToEnd(), !more.isEmpty {
                        data.append(more)
                        offset += more.count
                    }
                    try? handle.close()
                }
                usleep(2_000)
            }
            done.signal()
        }
    }

    private var isRunning: Bool { lock.lock(); defer { lock.unlock() }; return running }

    func stop() {
        lock.lock()
        let was = running
        running = false
        lock.unlock()
        if was { done.wait() }
    }
}
