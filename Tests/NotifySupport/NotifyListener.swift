import Foundation
@preconcurrency import Glibc
import Synchronization

/// A stand-in for systemd's notify socket: a datagram socket bound to a fresh path (or
/// an abstract name) that the test hands to the program as `NOTIFY_SOCKET`, read on a
/// thread of its own. Each datagram is kept with the monotonic time it came.
public final class NotifyListener: Sendable {
    /// One datagram: its `KEY=VALUE` lines and when it arrived (CLOCK_MONOTONIC s).
    public struct Message: Sendable {
        public let text: String
        public let at: Double
        public var lines: [String] { text.split(separator: "\n").map(String.init) }
    }

    /// The value for `NOTIFY_SOCKET`.
    public let address: String
    private let descriptor: Int32
    private let received = Mutex<[Message]>([])
    private let stopped = Atomic<Bool>(false)
    private let folder: String?

    /// `abstract`: an `@name` in the abstract namespace, as systemd itself may hand out.
    public init(abstract: Bool = false) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw NotifyListenerError("socket: \(String(cString: strerror(errno)))") }
        var path: [UInt8]
        if abstract {
            let name = "scratchcard-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            address = "@" + name
            path = [0] + Array(name.utf8)
            folder = nil
        } else {
            var template = Array((NSTemporaryDirectory() + "/scratchcard-notify-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { throw NotifyListenerError("mkdtemp failed") }
            let dir = String(cString: made)
            folder = dir
            address = dir + "/notify"
            path = Array(address.utf8) + [0]
        }
        var sockaddress = sockaddr_un()
        sockaddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &sockaddress.sun_path) { raw in for (i, b) in path.enumerated() { raw[i] = b } }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let fd = descriptor
        let bound = withUnsafePointer(to: &sockaddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw NotifyListenerError("bind \(address): \(String(cString: strerror(errno)))") }
        let thread = Thread { [self] in readLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Stops reading and removes the socket.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
        usleep(60_000)      // the reader polls every 50 ms
        close(descriptor)
        if let folder { unlink(folder + "/notify"); rmdir(folder) }
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopped.load(ordering: .acquiring) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let n = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { continue }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let message = Message(text: String(decoding: buffer[..<n], as: UTF8.self),
                                  at: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
            received.withLock { $0.append(message) }
        }
    }

    /// Every datagram so far, in order.
    public var messages: [Message] { received.withLock { $0 } }

    /// The arrival times of the messages holding `line` exactly.
    public func times(of line: String) -> [Double] {
        messages.filter { $0.lines.contains(line) }.map(\.at)
    }

    /// The values of every `KEY=` line so far, in order.
    public func values(of key: String) -> [String] {
        messages.flatMap(\.lines).filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }
}

public struct NotifyListenerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
