@preconcurrency import Glibc
import Foundation

/// The service manager's notification protocol (systemd's `sd_notify(3)`), spoken by
/// hand: one datagram of `KEY=VALUE` lines to the socket named by `NOTIFY_SOCKET` (a
/// path, or `@name` in the abstract namespace). No libsystemd: the kiosk runs the same
/// with systemd absent, and every send is a no-op when `NOTIFY_SOCKET` is unset.
///
/// The watchdog (`WATCHDOG_USEC`, for this process when `WATCHDOG_PID` is unset or
/// ours) is pinged at half its period; `ServiceNotifier` only says when a ping is due
/// (`nextPingAt`): the caller proves it works (a turn of its loop, an X round trip)
/// before it calls `watchdogPing`.
///
///     let service = ServiceNotifier()
///     service.ready()
///     service.status("showing card bike")
public final class ServiceNotifier {
    /// Where notifications go; nil: nobody listens (not started by a service manager).
    public let socketPath: String?
    /// Half of `WATCHDOG_USEC`, in seconds: how often to ping; nil when no watchdog is on.
    public let pingInterval: Double?
    /// When the next ping is due, on the caller's monotonic clock; nil without a watchdog.
    public private(set) var nextPingAt: Double?
    /// The last `STATUS=` sent: the same text is not sent twice in a row.
    public private(set) var lastStatus: String?
    private var descriptor: Int32 = -1

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.hasPrefix("/") || $0.hasPrefix("@") ? $0 : nil }
        socketPath = path
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == pid } ?? true
        if path != nil, forUs, let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0 {
            pingInterval = Double(usec) / 2e6
        } else {
            pingInterval = nil
        }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// True when a service manager listens.
    public var isActive: Bool { socketPath != nil }

    /// `READY=1`: start-up is over (the first card is on screen).
    public func ready(status text: String? = nil) {
        send("READY=1" + (text.map { "\nSTATUS=" + Self.oneLine($0) } ?? ""))
        if text != nil { lastStatus = text }
    }

    /// `STATUS=`: one line a person reads in `systemctl status`.
    public func status(_ text: String) {
        guard text != lastStatus else { return }
        lastStatus = text
        send("STATUS=" + Self.oneLine(text))
    }

    /// `STOPPING=1`: the program is on its way out.
    public func stopping() { send("STOPPING=1") }

    /// Starts the watchdog's schedule at `now` (monotonic seconds): the first ping is
    /// due at once, then every `pingInterval`.
    public func startWatchdog(now: Double) {
        if pingInterval != nil { nextPingAt = now }
    }

    /// True when a ping is due at `now`.
    public func pingDue(now: Double) -> Bool {
        guard let next = nextPingAt else { return false }
        return now >= next
    }

    /// `WATCHDOG=1`, sent by a caller that has just proved itself alive; the next ping
    /// is due `pingInterval` after `now`.
    public func watchdogPing(now: Double) {
        guard let interval = pingInterval else { return }
        send("WATCHDOG=1")
        nextPingAt = now + interval
    }

    /// Sends one datagram; false when it could not go (no socket, nobody listening).
    /// Never blocks: the socket is non-blocking and a full queue drops the message.
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let socketPath else { return false }
        if descriptor < 0 {
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard descriptor >= 0 else { return false }
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        let abstract = pathBytes.first == UInt8(ascii: "@")
        if abstract { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in pathBytes.enumerated() { raw[i] = byte }
        }
        // An abstract name's length counts exactly its bytes; a path's, its terminating NUL.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (abstract ? 0 : 1))
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { addr in
                bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), addr, length) }
            }
        }
        return sent == bytes.count
    }

    /// Status text on one line: a newline would start another assignment.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
