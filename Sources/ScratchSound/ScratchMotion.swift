@preconcurrency import Glibc
import ScratchCore

/// Turns each pen's strokes into what its scratch sounds like: loudness and brightness
/// from the pen's speed (points per second, over the last 40 ms, so a burst of events
/// drained at once counts at its real pace) and from how much foil the strokes took (the
/// pixels they newly revealed over the area their brush swept: over what is already
/// revealed there is nothing to hear).
///
///     var motion = ScratchMotion(brushRadius: 20, scale: 1)
///     motion.down(pen: 0, at: p, time: t)
///     let (loudness, brightness) = motion.move(pen: 0, to: q, time: t + 0.016, revealed: 640)
public struct ScratchMotion: Sendable {
    /// The brush radius in device pixels, and device pixels per point.
    public let brushRadius: Double
    public let scale: Double
    /// The window the speed and the foil are measured over, in seconds.
    public static let window = 0.04
    /// The speed (points per second) at which the scratch is at its loudest.
    public static let loudestSpeed = 1200.0

    private struct Step { let time: Double; let distance: Double; let swept: Double; let revealed: Double }
    /// A pen's last point and its steps within the window, with their running sums (kept
    /// in place: no array is copied per event).
    private struct Pen {
        var last: Point
        var steps: [Step] = []
        var first = 0
        var travelled = 0.0, swept = 0.0, revealed = 0.0

        mutating func add(_ step: Step) {
            steps.append(step)
            travelled += step.distance; swept += step.swept; revealed += step.revealed
            while first < steps.count, step.time - steps[first].time > ScratchMotion.window {
                let old = steps[first]
                travelled -= old.distance; swept -= old.swept; revealed -= old.revealed
                first += 1
            }
            // Forget the dropped steps now and then, not on every event.
            if first > 64 { steps.removeFirst(first); first = 0 }
            if first == steps.count { travelled = 0; swept = 0; revealed = 0 }      // no drift
        }
    }
    private var pens: [Int: Pen] = [:]

    public init(brushRadius: Double, scale: Double) {
        self.brushRadius = Swift.max(0.5, brushRadius)
        self.scale = scale > 0 ? scale : 1
    }

    /// The pen touched down at `point`.
    public mutating func down(pen: Int, at point: Point, time: Double) {
        pens[pen] = Pen(last: point)
    }

    /// The pen moved to `point`, and the stroke newly revealed `revealed` pixels: the
    /// loudness and brightness (each 0...1) to sound now.
    public mutating func move(pen: Int, to point: Point, time: Double, revealed: Int) -> (loudness: Float, brightness: Float) {
        guard let last = pens[pen]?.last else { return (0, 0) }
        let dx = point.x - last.x, dy = point.y - last.y
        let distance = (dx * dx + dy * dy).squareRoot()
        pens[pen]!.last = point
        if distance.isFinite {
            pens[pen]!.add(Step(time: time, distance: distance, swept: distance * 2 * brushRadius,
                                revealed: Double(Swift.max(0, revealed))))
        }
        let state = pens[pen]!
        let speed = Swift.max(0, state.travelled) / scale / Self.window
        let foil = state.swept > 0 ? Swift.min(1, Swift.max(0, state.revealed) / state.swept) : 0
        let pace = Swift.min(1, speed / Self.loudestSpeed)
        let loudness = foil * pow(pace, 0.8)
        let brightness = pow(Swift.min(1, speed / (2 * Self.loudestSpeed)), 0.6)
        return (Float(loudness), Float(brightness))
    }

    /// The pen went up.
    public mutating func up(pen: Int) { pens[pen] = nil }

    /// Every pen went up (a new card, a reveal).
    public mutating func allUp() { pens.removeAll() }
}
