/// Why a card was revealed.
public enum RevealCause: String, Sendable {
    /// The scratched fraction reached the `--reveal-at` threshold.
    case threshold
    /// A key asked for the whole prize.
    case keyboard
}

/// What `--events` reports on stdout, one JSON object a line, for a kiosk controller.
///
///     {"event":"ready","card":"coffee","width":800,"height":600,"scale":1.5}
///     {"event":"scratch-start","card":"coffee"}
///     {"event":"progress","card":"coffee","percent":10}
///     {"event":"revealed","card":"coffee","how":"threshold","fraction":0.6012,"ms":5230}
///     {"event":"new-card","card":"sorry"}
///     {"event":"quit"}
///
/// Keys come in this fixed order, `"event"` first. Fractions have 4 decimals; numbers
/// never use an exponent; a non-finite number (which no caller should pass) is `null`.
public enum CardEvent: Equatable, Sendable {
    /// The window shows a fresh card of `width` x `height` device pixels.
    /// With a store: `deal` is the card's deal id, and `resumed` says the card was taken
    /// up again after a restart.
    case ready(cardID: String, width: Int, height: Int, scale: Double, deal: DealID? = nil, resumed: Bool = false)
    /// The first press on this card.
    case scratchStart(cardID: String)
    /// The revealed fraction crossed another 10% step.
    case progress(cardID: String, percent: Int)
    /// The whole prize is shown; `fraction` was the scratched fraction then and
    /// `milliseconds` the time since the card was ready.
    case revealed(cardID: String, how: RevealCause, fraction: Double, milliseconds: Int)
    /// A new card was dealt in place of the old one.
    case newCard(cardID: String, deal: DealID? = nil)
    /// Nothing can be dealt: every stocked prize has been given away (and the deck has
    /// no unlimited card); the sold-out card is on show.
    case soldOut
    /// The program is ending.
    case quit

    /// The event's name, the value of its `"event"` key.
    public var name: String {
        switch self {
        case .ready: "ready"
        case .scratchStart: "scratch-start"
        case .progress: "progress"
        case .revealed: "revealed"
        case .newCard: "new-card"
        case .soldOut: "sold-out"
        case .quit: "quit"
        }
    }

    /// One line of JSON, without the newline.
    public var json: String {
        var fields: [(String, String)] = [("event", JSONText.quoted(name))]
        switch self {
        case let .ready(cardID, width, height, scale, deal, resumed):
            fields += [("card", JSONText.quoted(cardID)), ("width", String(width)), ("height", String(height)),
                       ("scale", PlainDecimal.format(scale) ?? "null")]
            if let deal { fields.append(("deal", JSONText.quoted(deal.text))) }
            if resumed { fields.append(("resumed", "true")) }
        case let .newCard(cardID, deal):
            fields.append(("card", JSONText.quoted(cardID)))
            if let deal { fields.append(("deal", JSONText.quoted(deal.text))) }
        case let .scratchStart(cardID):
            fields.append(("card", JSONText.quoted(cardID)))
        case let .progress(cardID, percent):
            fields += [("card", JSONText.quoted(cardID)), ("percent", String(percent))]
        case let .revealed(cardID, how, fraction, milliseconds):
            fields += [("card", JSONText.quoted(cardID)), ("how", JSONText.quoted(how.rawValue)),
                       ("fraction", Self.fourDecimals(fraction)), ("ms", String(milliseconds))]
        case .quit, .soldOut:
            break
        }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// 0.60123 -> "0.6012", 1 -> "1.0000": rounded to the nearest 1/10000, digits by
    /// integer arithmetic (no locale, no exponent).
    static func fourDecimals(_ value: Double) -> String {
        let scaled = (value * 10_000).rounded()
        guard scaled.isFinite, Swift.abs(scaled) < 1e15 else { return "null" }
        let units = Int64(scaled)
        let magnitude = units.magnitude
        let fraction = String(magnitude % 10_000)
        return (units < 0 ? "-" : "") + String(magnitude / 10_000) + "."
            + String(repeating: "0", count: 4 - fraction.count) + fraction
    }
}

/// Turns the revealed fraction into `progress` events: each 10% step (10, 20, ... 100)
/// is reported once per card, the first time the fraction reaches it, however far
/// the fraction jumps between updates.
///
///     var tracker = ProgressTracker()
///     tracker.update(fraction: 0.57)   // [10, 20, 30, 40, 50]
///     tracker.update(fraction: 0.58)   // []
///     tracker.update(fraction: 0.61)   // [60]
public struct ProgressTracker: Sendable {
    /// The highest step reported so far, in tens of percent (0 = none).
    public private(set) var reachedSteps = 0

    public init() {}

    /// The percentages newly reached, in increasing order; empty for most updates.
    public mutating func update(fraction: Double) -> [Int] {
        guard fraction.isFinite else { return [] }
        // A hair of tolerance so that 0.3 (3 pixels in 10) counts as 30% even when
        // the division rounds just below; it is far below one pixel of any canvas.
        let steps = Int((min(max(fraction, 0), 1) * 10 + 1e-9).rounded(.down))
        guard steps > reachedSteps else { return [] }
        defer { reachedSteps = steps }
        return (reachedSteps + 1...steps).map { $0 * 10 }
    }

    /// Forgets the steps reported, for a new card.
    public mutating func reset() { reachedSteps = 0 }
}

/// Decides when scratching has revealed enough to show the whole prize: `check`
/// answers true exactly once, the first time the fraction reaches the threshold.
/// A threshold of 1 (100%) or more turns it off: the card is only revealed by hand.
public struct RevealTrigger: Sendable {
    public let threshold: Double
    public private(set) var hasFired = false

    /// `threshold` in 0...1; >= 1 (or NaN) means off.
    public init(threshold: Double) {
        self.threshold = threshold
    }

    /// True when the trigger never fires.
    public var isOff: Bool { !(threshold < 1) }

    public mutating func check(fraction: Double) -> Bool {
        guard !hasFired, !isOff, fraction >= threshold else { return false }
        hasFired = true
        return true
    }

    /// Arms the trigger again, for a new card.
    public mutating func reset() { hasFired = false }
}

/// The fade from cover to prize once a card is revealed, timed by the clock (not by
/// frames, which a busy or remote display drops): progress runs from 0 at `start` to
/// 1 at `start + duration`, eased with smoothstep (3t² − 2t³) so it starts and ends
/// gently.
///
///     let fade = FadeClock(start: now)
///     let alpha = fade.progress(at: now + 0.2)   // 0.5
public struct FadeClock: Equatable, Sendable {
    public let start: Double
    public let duration: Double

    /// `start` and the times passed later in seconds on one monotonic clock.
    public init(start: Double, duration: Double = 0.4) {
        self.start = start
        self.duration = duration
    }

    /// The linear part, 0...1; a duration of 0 or less jumps straight to 1.
    private func linear(at now: Double) -> Double {
        guard now >= start else { return 0 }
        guard duration > 0 else { return 1 }
        let t = (now - start) / duration
        return t.isFinite ? min(t, 1) : 1
    }

    /// The eased progress, 0 before `start`, 1 from `start + duration` on.
    public func progress(at now: Double) -> Double {
        let t = linear(at: now)
        return t * t * (3 - 2 * t)
    }

    /// True once the fade has reached 1.
    public func isFinished(at now: Double) -> Bool { linear(at: now) >= 1 }
}
