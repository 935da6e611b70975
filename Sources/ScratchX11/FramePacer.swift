/// The display's pace (docs/ARCHITECTURE.md, The window's loop): at most one put per refresh
/// interval. A put wanted when none went for a whole interval goes at once, so the first
/// stroke after a pause is not delayed; puts that follow each other closely wait for the
/// next slot. Meanwhile the strokes keep going into the mask, and the held-back put
/// carries them all.
///
/// The slots lie on a grid of whole intervals from the first put after a pause, as a
/// display's refreshes do: one put per cell of the grid. A wake that comes a little late
/// for its slot does not push the later slots back, so lateness never accumulates (with
/// slots counted from each put, every late wake would make the next event wait longer).
///
/// Every animation (the fade, the attract band, a celebration) asks the same clock: its
/// frames come every `animationInterval`, a whole number of refresh intervals, and are
/// put through the same `mayPut`/`didPut` as the strokes.
///
///     var pacer = FramePacer(rate: 60)
///     if pacer.mayPut(at: now) { present(); pacer.didPut(at: now) }
///     else { wakeAt(pacer.earliestPut(at: now)) }
///
/// Times are seconds on one monotonic clock.
public struct FramePacer: Sendable, Equatable {
    /// Puts per second at most (the monitor's refresh rate, or `--max-fps`).
    public let rate: Double
    /// Seconds between puts at least: 1 / rate.
    public let interval: Double
    /// Seconds between animation frames: the refresh interval times the whole number
    /// that brings the frame rate closest to `animationRate` (never faster than puts).
    public let animationInterval: Double
    /// The frame rate animations aim for, as given.
    public let animationRate: Double
    /// When the last put went, if one has.
    public private(set) var lastPut: Double?
    /// The slot of the grid the last put took (at or before `lastPut`).
    public private(set) var lastSlot: Double?

    /// A wake-up this close before the slot counts as on time: poll's and the clock's
    /// rounding must not cost a second wake for a few microseconds.
    public static let slack = 0.000_1

    /// The lowest and highest rates accepted; others are clamped into this range.
    public static let rates: ClosedRange<Double> = 1...1000

    /// - Parameters:
    ///   - rate: puts per second at most, clamped to `rates` (a rate that is not a
    ///     number counts as 60).
    ///   - animationRate: the frame rate animations aim for (30: smooth for a sweep or a
    ///     fade, half the work of 60).
    public init(rate: Double, animationRate: Double = 30) {
        let rate = rate.isNaN ? 60 : Swift.min(Swift.max(rate, Self.rates.lowerBound), Self.rates.upperBound)
        self.rate = rate
        interval = 1 / rate
        self.animationRate = animationRate
        let stride = Swift.max(1, (rate / Swift.max(animationRate, 1)).rounded())
        animationInterval = interval * stride
    }

    /// The same pacer at another rate (the window went to a monitor of another rate, or
    /// the mode changed): the last put and its slot stay, so the next put waits for
    /// the slot after it at the new interval, or goes at once after a pause.
    public func changingRate(to rate: Double) -> FramePacer {
        var changed = FramePacer(rate: rate, animationRate: animationRate)
        changed.lastPut = lastPut
        changed.lastSlot = lastSlot
        return changed
    }

    /// When a put wanted at `now` may go: `now` itself when its cell of the grid has no
    /// put yet (or none ever went), else the next slot.
    public func earliestPut(at now: Double) -> Double {
        guard let lastSlot else { return now }
        return Swift.max(now, lastSlot + interval)
    }

    /// Whether a put may go at `now` (within `slack` of its slot counts).
    public func mayPut(at now: Double) -> Bool {
        earliestPut(at: now) <= now + Self.slack
    }

    /// A put went at `now`: the next waits for the slot after this put's. A put within two
    /// intervals of the last slot keeps the grid (it took the latest slot at or before
    /// `now`); after a longer pause the grid starts again at `now`.
    public mutating func didPut(at now: Double) {
        lastPut = now
        if let slot = lastSlot, now < slot + 2 * interval {
            lastSlot = slot + Swift.max(1, ((now - slot + Self.slack) / interval).rounded(.down)) * interval
        } else {
            lastSlot = now
        }
    }

    /// When the next frame of an animation whose last frame was at `lastFrame` is due.
    public func nextAnimationFrame(after lastFrame: Double) -> Double {
        lastFrame + animationInterval
    }
}
