/// Which pen each finger on a touchscreen draws with: up to `maximum` fingers at once,
/// each its own pen (1, 2, …; pen 0 is the mouse), so every finger strokes from its own
/// last point. A finger beyond the maximum is ignored until it lifts, so a limit of 1
/// stops two-finger scratching.
public struct Fingers: Sendable {
    public let maximum: Int
    private var pens: [Int: Int] = [:]

    public init(maximum: Int) {
        self.maximum = Swift.max(1, maximum)
    }

    /// A finger touched down: its pen, or nil when it is one too many.
    public mutating func begin(_ touch: Int) -> Int? {
        guard pens[touch] == nil, pens.count < maximum else { return nil }
        let pen = (1...maximum).first { pen in !pens.values.contains(pen) }!
        pens[touch] = pen
        return pen
    }

    /// The pen of a finger that is down, if it was given one.
    public func pen(of touch: Int) -> Int? { pens[touch] }

    /// A finger lifted: the pen it had, now free.
    public mutating func end(_ touch: Int) -> Int? { pens.removeValue(forKey: touch) }

    /// Every finger is forgotten (a new card).
    public mutating func removeAll() { pens.removeAll() }

    public var count: Int { pens.count }
}
