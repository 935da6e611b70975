import Foundation
@preconcurrency import Glibc

/// Bytes appended from another thread: a child's output as a readability handler reads
/// it (`collect(_:)`), or a recording's; optionally each piece stamped with its arrival.
/// After the child has exited, `waitUntilDrained` waits until its pipes' last bytes are
/// in: the one rule for that, for every harness that reads a program's output.
public final class LockedData: @unchecked Sendable {
    /// Whether pieces are stamped with their arrival (opt-in: see RunningApp.init).
    private let stamping: Bool
    private var data = Data()
    /// When each piece arrived (CLOCK_MONOTONIC seconds, the clock every process on the
    /// machine shares) and how many bytes there were then: to time what a program wrote.
    private var arrivals: [(time: Double, count: Int)] = []
    private let lock = NSLock()
    private var sawEnd = false, readsUnderWay = 0

    public init(stamping: Bool = false) { self.stamping = stamping }

    /// Appends `more`; empty data is the pipe's end (what a readability handler gets then).
    public func append(_ more: Data) {
        var now = timespec()
        if stamping { clock_gettime(CLOCK_MONOTONIC, &now) }
        lock.lock(); defer { lock.unlock() }
        guard !more.isEmpty else { sawEnd = true; return }
        data.append(more)
        if stamping { arrivals.append((Double(now.tv_sec) + Double(now.tv_nsec) / 1e9, data.count)) }
    }

    /// Appends what `read` (a read of a pipe) gives, the read counted as under way until
    /// then: for `drained(from:)`.
    public func reading(_ read: () -> Data) {
        lock.lock(); readsUnderWay += 1; lock.unlock()
        let more = read()
        append(more)
        lock.lock(); readsUnderWay -= 1; lock.unlock()
    }

    /// Collects what `handle` (a pipe's reading end) gives, from its readability handler.
    public func collect(_ handle: FileHandle) {
        handle.readabilityHandler = { [self] handle in reading { handle.availableData } }
    }

    /// Whether everything the pipe `fd` will give is in, once its writer has ended: the
    /// pipe's end was seen, or the pipe holds nothing to read (poll: no POLLIN, whether
    /// or not every writer has closed it) and no read is under way. Not the end alone:
    /// Foundation does not always call a readability handler at the end (the last bytes
    /// and the hang-up read at once), and a process that inherited the pipe's write end
    /// (processes started side by side) holds the end back. The pipe is looked at first:
    /// a read that emptied it is then still counted as under way.
    public func drained(from fd: Int32) -> Bool {
        var pipe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let empty = poll(&pipe, 1, 0) >= 0 && pipe.revents & Int16(POLLIN) == 0
        lock.lock(); defer { lock.unlock() }
        return sawEnd || (empty && readsUnderWay == 0)
    }

    /// After a child has exited: waits until each of `pipes` (what collects it, its
    /// reading end) is drained, at most `timeout` seconds. Not a fixed pause: a fixed
    /// 50 ms once lost a --stats line with two busy loops beside, 30 ms the last line of
    /// systemd-analyze.
    public static func waitUntilDrained(_ pipes: [(LockedData, FileHandle)], timeout: Double = 5) {
        let deadline = Date().addingTimeInterval(timeout)
        while !pipes.allSatisfy({ $0.0.drained(from: $0.1.fileDescriptor) }) && Date() < deadline { usleep(5_000) }
    }

    /// True once the pipe's end was seen.
    public var ended: Bool { lock.lock(); defer { lock.unlock() }; return sawEnd }
    public var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
    public var bytes: Data { lock.lock(); defer { lock.unlock() }; return data }
    public var count: Int { lock.lock(); defer { lock.unlock() }; return data.count }
    /// When byte `index` had arrived, or nil if it has not yet.
    public func arrival(ofByte index: Int) -> Double? {
        lock.lock(); defer { lock.unlock() }
        return arrivals.first { $0.count > index }?.time
    }
}
