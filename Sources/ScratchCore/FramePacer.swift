/// The display's pace (DESIGN.md, The display loop): at most one put per refresh
/// interval. A put wanted when none went for a whole interval goes at once, so the first
/// stroke after a pause is not delayed; puts that follow each other closely wait until
/// one interval has passed since the last. Meanwhile the strokes keep going into the
/// mask, and the held-back put carries them all.
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
    /// When the last put went, if one has.
    public private(set) var lastPut: Double?

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
        let stride = Swift.max(1, (rate / Swift.max(animationRate, 1)).rounded())
        animationInterval = interval * stride
    }

    /// When a put wanted at `now` may go: `now` itself when no put went within the last
    /// interval (or none ever did), else one interval after the last put.
    public func earliestPut(at now: Double) -> Double {
        guard let lastPut else { return now }
        return Swift.max(now, lastPut + interval)
    }

    /// Whether a put may go at `now` (within `slack` of its slot counts).
    public func mayPut(at now: Double) -> Bool {
        earliestPut(at: now) <= now + Self.slack
    }

    /// A put went at `now`: the next waits until `now + interval`.
    public mutating func didPut(at now: Double) {
        lastPut = now
    }

    /// When the next frame of an animation whose last frame was at `lastFrame` is due.
    public func nextAnimationFrame(after lastFrame: Double) -> Double {
        lastFrame + animationInterval
    }
}
