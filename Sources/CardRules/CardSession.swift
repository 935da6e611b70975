/// The life of one card, as a state machine: fresh, being scratched, fading out once
/// revealed, done. It decides what the user's actions mean and which events they raise;
/// it draws nothing. Times are seconds on a monotonic clock.
///
///     var session = CardSession(cardID: "coffee", revealAt: 0.6, now: 0)
///     let events = session.scratched(fraction: canvas.revealedFraction, now: t)
///     if let fade = session.fadeProgress(now: t) { /* composite with fade */ }
public struct CardSession: Sendable {
    public enum Phase: Equatable, Sendable {
        /// Shown, not touched yet.
        case fresh
        /// Touched; the prize is coming through.
        case scratching
        /// Revealed: the rest of the cover fades away on the clock.
        case fading(FadeClock)
        /// The whole prize is shown; scratching changes nothing now.
        case done
    }

    public let cardID: String
    public private(set) var phase: Phase = .fresh
    /// How and when (seconds after `shownAt`) the card was revealed, and the scratched
    /// fraction then: for the outcome log.
    public private(set) var reveal: (how: RevealCause, after: Double, fraction: Double)?
    /// When the card appeared.
    public let shownAt: Double
    private var trigger: RevealTrigger
    private var progress = ProgressTracker()
    private let fadeDuration: Double

    /// - Parameter revealAt: the fraction (0...1) at which the card reveals itself; 1 or
    ///   more turns auto-reveal off.
    public init(cardID: String, revealAt: Double, now: Double, fadeDuration: Double = 0.4) {
        self.cardID = cardID
        self.trigger = RevealTrigger(threshold: revealAt)
        self.shownAt = now
        self.fadeDuration = fadeDuration
    }

    /// A card taken up again after a restart (the store held it): shown `elapsed` seconds
    /// before `now`, scratched already when `touched`, and done at once (no fade) when it
    /// had been revealed. The progress steps the fraction has passed are not reported again.
    public init(resuming cardID: String, revealAt: Double, now: Double, shownSecondsAgo elapsed: Double,
                touched: Bool, fraction: Double, reveal: (how: RevealCause, after: Double, fraction: Double)?,
                fadeDuration: Double = 0.4) {
        // A wall clock that went back since the card was shown says less time passed than
        // did: a revealed card was on show at least until its reveal, so its idle reset is
        // never further off than the reset time itself.
        let shownFor = Swift.max(0, elapsed, reveal?.after ?? 0)
        self.init(cardID: cardID, revealAt: revealAt, now: now - shownFor, fadeDuration: fadeDuration)
        _ = progress.update(fraction: fraction)
        if let reveal {
            self.reveal = reveal
            _ = trigger.check(fraction: 1)
            phase = .done
        } else if touched {
            phase = .scratching
        }
    }

    /// True while strokes still change the card.
    public var acceptsScratches: Bool {
        switch phase {
        case .fresh, .scratching: true
        case .fading, .done: false
        }
    }

    /// True once the card is revealed (fading or done).
    public var isRevealed: Bool { !acceptsScratches }

    /// The pen touched the card.
    public mutating func pressed() -> [CardEvent] {
        guard phase == .fresh else { return [] }
        phase = .scratching
        return [.scratchStart(cardID: cardID)]
    }

    /// The record of this card for the outcome log, ending now.
    public func outcome(prize: String, shownAtWallClock: Double, fraction: Double, now: Double,
                        endedBy quitting: Bool) -> OutcomeRecord {
        let outcome: CardOutcome = reveal != nil ? .revealed : quitting ? .quit : .abandoned
        return OutcomeRecord(shownAt: shownAtWallClock, cardID: cardID, prize: prize, outcome: outcome,
                             how: reveal?.how, fraction: reveal?.fraction ?? fraction,
                             revealMilliseconds: reveal.map { Int(($0.after * 1000).rounded()) },
                             durationMilliseconds: Swift.max(0, Int(((now - shownAt) * 1000).rounded())))
    }

    /// The revealed fraction after some strokes: progress steps, and the reveal once the
    /// threshold is crossed (once per card).
    public mutating func scratched(fraction: Double, now: Double) -> [CardEvent] {
        guard acceptsScratches else { return [] }
        var events = progress.update(fraction: fraction).map { CardEvent.progress(cardID: cardID, percent: $0) }
        if trigger.check(fraction: fraction) {
            events += reveal(.threshold, fraction: fraction, now: now)
        }
        return events
    }

    /// A zone card: its rules reveal it (`reveal(by:fraction:now:)`), not the fraction
    /// of its zones scratched, which still makes the progress events.
    public mutating func leaveRevealToRules() {
        trigger = RevealTrigger(threshold: 1)
    }

    /// A zone card's rules revealed it: the last pick opened by scratching (`.threshold`)
    /// or by a key (`.keyboard`).
    public mutating func reveal(by how: RevealCause, fraction: Double, now: Double) -> [CardEvent] {
        guard acceptsScratches else { return [] }
        return reveal(how, fraction: fraction, now: now)
    }

    /// The user asked for the whole prize (Space, Enter).
    public mutating func revealRequested(fraction: Double, now: Double) -> [CardEvent] {
        guard acceptsScratches else { return [] }
        return reveal(.keyboard, fraction: fraction, now: now)
    }

    private mutating func reveal(_ how: RevealCause, fraction: Double, now: Double) -> [CardEvent] {
        phase = .fading(FadeClock(start: now, duration: fadeDuration))
        reveal = (how, now - shownAt, fraction)
        let milliseconds = Int(((now - shownAt) * 1000).rounded())
        return [.revealed(cardID: cardID, how: how, fraction: fraction, milliseconds: Swift.max(0, milliseconds))]
    }

    /// While fading: how far the fade has come (0...1), moving to `done` at its end.
    /// Nil when not fading.
    public mutating func fadeProgress(now: Double) -> Double? {
        guard case .fading(let clock) = phase else { return nil }
        if clock.isFinished(at: now) {
            phase = .done
            return 1
        }
        return clock.progress(at: now)
    }

    /// When the next animation frame is due, if one is.
    public var isAnimating: Bool {
        if case .fading = phase { return true }
        return false
    }
}
