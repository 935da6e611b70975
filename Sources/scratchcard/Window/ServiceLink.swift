@preconcurrency import Glibc
import ScratchCore
import Foundation
import ServiceNotify
import CardRules

/// The window's part that speaks to a service manager (systemd's `Type=notify` with
/// `WatchdogSec=`; `Sources/ServiceNotify`): `READY=1` once the first card is on screen,
/// a `STATUS=` line a person reads in `systemctl status` (the card and deal on show,
/// sold out, the prize pool offline since when), `STOPPING=1` on the way out, and
/// `WATCHDOG=1` at half of `WATCHDOG_USEC`. A ping comes from the loop itself, after
/// an X round trip the server answered since the last ping (`pingIfDue`): a loop that
/// cannot turn, or a display that no longer answers, stops the pings, and systemd
/// restarts the kiosk. Without `NOTIFY_SOCKET` every call is a no-op.
final class ServiceLink {
    /// What the status line says, as the loop sees it.
    struct Situation: Equatable {
        var cardID: String
        var deal: String?
        var soldOut: Bool
        var poolOffline: Bool
    }

    private let notifier: ServiceNotifier
    private var readySent = false
    /// Since when the pool is out of reach (wall clock, for people), while it is.
    private var poolOfflineSince: Date?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        notifier = ServiceNotifier(environment: environment)
    }

    /// When the loop must wake for the next ping (nil: no watchdog, or not ready yet).
    var nextPingAt: Double? { readySent ? notifier.nextPingAt : nil }

    /// The first frame is on screen: READY=1 with the status; the watchdog starts.
    func firstFrameShown(_ situation: Situation, now: Double) {
        guard notifier.isActive, !readySent else { return }
        readySent = true
        notifier.ready(status: status(situation))
        notifier.startWatchdog(now: now)
    }

    /// The status line, sent when it changed (after READY: systemd shows the last one).
    func update(_ situation: Situation) {
        guard notifier.isActive, readySent else { return }
        notifier.status(status(situation))
    }

    /// At each wake: the ping, when due, once `roundTrip` (the caller's proof that the X
    /// server answers) has returned. A server that never answers keeps it from returning.
    func pingIfDue(now: Double, roundTrip: () -> Void) {
        guard readySent, notifier.pingDue(now: now) else { return }
        roundTrip()
        notifier.watchdogPing(now: monotonicSeconds())
    }

    /// The program is on its way out.
    func stopping() {
        if notifier.isActive { notifier.stopping() }
    }

    private func status(_ situation: Situation) -> String {
        if situation.poolOffline {
            let since = poolOfflineSince ?? Date()
            poolOfflineSince = since
            let onShow = situation.deal == nil ? "\"back in a moment\" on show" : "card \(situation.cardID) on show"
            return "prize pool offline since \(Self.utc(since)); \(onShow)"
        }
        poolOfflineSince = nil
        if situation.soldOut { return "sold out: all prizes have been given away (SIGHUP reloads the deck)" }
        return "card \(situation.cardID) on show" + (situation.deal.map { ", deal \($0)" } ?? "")
    }

    /// "2026-12-02 16:20:00 UTC".
    private static func utc(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S UTC", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension CardEvent {
    /// A card appeared or the sold-out card did: the status line may change.
    var changesWhatIsOnShow: Bool {
        switch self {
        case .ready, .newCard, .soldOut: true
        default: false
        }
    }
}
