import ScratchCore

/// The rules of a ticket with scratch zones, as a state machine that draws nothing: which
/// zones were started and in what order, what each shows, which are locked, and the
/// events that follow. The deal has decided the card: with `pick` K, the i-th zone the
/// player starts shows `symbols[i]`, whichever zone it is; once K are started the rest
/// are locked, and once the K are revealed the rest open as decoys. Without `pick`,
/// zone i shows `symbols[i]` and the card is revealed when every zone is.
///
///     var ticket = ZoneTicket(zoneCount: 9, pick: 3)
///     let events = ticket.start(4)          // [.zoneStart(4)]; zone 4 shows symbols[0]
///     ticket.shows(4)                       // .symbol(0)
public struct ZoneTicket: Equatable, Sendable {
    /// What an opened or started zone shows.
    public enum Shows: Equatable, Sendable {
        /// `symbols[i]`.
        case symbol(Int)
        /// `decoys[i]`, dimmed: a zone the player did not pick.
        case decoy(Int)
    }

    public enum Event: Equatable, Sendable {
        /// The player started a zone (its index in the card's zones).
        case zoneStart(zone: Int)
        /// A zone is open: its symbol, or a decoy.
        case zoneRevealed(zone: Int, shows: Shows)
        /// Every zone the card is about is open: the card's reveal.
        case cardRevealed
    }

    public let zoneCount: Int
    public let pick: Int?
    /// The zones started, in order.
    public private(set) var started: [Int] = []
    /// What each zone shows, once it is chosen (started, or opened as a decoy).
    public private(set) var showing: [Shows?]
    /// Which zones are open (revealed).
    public private(set) var open: [Bool]
    /// True once the card is revealed.
    public private(set) var isRevealed = false

    /// - Parameter pick: how many zones the player may open (1 ... zoneCount); nil for all.
    public init(zoneCount: Int, pick: Int?) {
        precondition(zoneCount > 0 && (pick ?? 1) >= 1 && (pick ?? 0) <= zoneCount, "pick must be 1 ... zoneCount")
        self.zoneCount = zoneCount
        self.pick = pick
        self.showing = Array(repeating: nil, count: zoneCount)
        self.open = Array(repeating: false, count: zoneCount)
    }

    /// A ticket taken up again: `started` in order, `open` the zones that were revealed.
    /// Decoys and the card's reveal follow again if every pick was open (no events).
    public init(resuming started: [Int], open opened: Set<Int>, zoneCount: Int, pick: Int?) {
        self.init(zoneCount: zoneCount, pick: pick)
        for zone in started where zone >= 0 && zone < zoneCount { _ = start(zone) }
        for zone in opened.sorted() where showing[zone] != nil { _ = reveal(zone) }
    }

    /// How many zones the player may start in all.
    public var picks: Int { pick ?? zoneCount }

    /// What zone `zone` shows, or nil while it is not chosen.
    public func shows(_ zone: Int) -> Shows? { showing[zone] }

    /// Whether a stroke on `zone` may write: it is started, or another may still be.
    public func isScratchable(_ zone: Int) -> Bool {
        !isRevealed && !open[zone] && (showing[zone] != nil || started.count < picks)
    }

    /// Whether `zone` is locked: every pick is started and this zone is not one of them.
    public func isLocked(_ zone: Int) -> Bool { showing[zone] == nil && started.count >= picks }

    /// The player's first touch on `zone`: its symbol is chosen now, before any of its
    /// pixels shows. Nothing happens for a zone already started or one that is locked.
    public mutating func start(_ zone: Int) -> [Event] {
        guard zone >= 0, zone < zoneCount, showing[zone] == nil, started.count < picks, !isRevealed else { return [] }
        showing[zone] = .symbol(pick == nil ? zone : started.count)
        started.append(zone)
        return [.zoneStart(zone: zone)]
    }

    /// Zone `zone` is revealed (its meter reached the threshold, or a key opened it):
    /// its event, then, once every pick is open, the decoys and the card's reveal.
    public mutating func reveal(_ zone: Int) -> [Event] {
        guard zone >= 0, zone < zoneCount, let shows = showing[zone], !open[zone] else { return [] }
        open[zone] = true
        var events: [Event] = [.zoneRevealed(zone: zone, shows: shows)]
        let picksOpen = started.count == picks && started.allSatisfy { open[$0] }
        if picksOpen && !isRevealed {
            var decoy = 0
            for other in 0..<zoneCount where showing[other] == nil {
                showing[other] = .decoy(decoy)
                open[other] = true
                events.append(.zoneRevealed(zone: other, shows: .decoy(decoy)))
                decoy += 1
            }
            isRevealed = true
            events.append(.cardRevealed)
        }
        return events
    }

    /// A key opens `zone` whole: a start (a pick) if it was not started, then its reveal.
    public mutating func openWhole(_ zone: Int) -> [Event] {
        let began = start(zone)
        return began + reveal(zone)
    }
}
