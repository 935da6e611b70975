/// Which zones of a card with zones a stroke may write in.
public enum ZoneReach: Equatable, Sendable {
    /// Every scratchable zone the brush meets (a mask's strokes outside any pen).
    case any
    /// This zone alone: the one its pen was pressed in.
    case only(Int)
    /// None: its pen was pressed in a gap, on the printed artwork, or in a zone it may
    /// not scratch (opened, locked, or past the touch limit).
    case none
}

/// The pens that are down on a mask (the mouse, or each finger of several): each one's
/// last point and, on a card with zones, the zone it scratches. One touch is one pick:
/// the zone is decided at the press, the one under the press point, and the pen writes
/// there alone until it lifts, whatever the brush's size. The canvas and the replay of
/// saved strokes both keep their pens here, so a resumed ticket follows the same rule.
///
///     var pens = Pens()
///     let dot = pens.press(0, at: p, on: mask)      // (p, p): stroke it
///     if let segment = pens.move(0, to: q, on: &mask) { mask.stroke(from: segment.from, to: segment.to, brush: b) }
public struct Pens: Sendable {
    private var down: [Int: (last: Point, reach: ZoneReach)] = [:]

    public init() {}

    /// True while any pen is down.
    public var isEmpty: Bool { down.isEmpty }

    /// True while `pen` is down.
    public func isDown(_ pen: Int) -> Bool { down[pen] != nil }

    /// Presses `pen` at `point`: the segment to stroke (a dot), with `mask` set to
    /// write only where this pen may.
    public mutating func press(_ pen: Int, at point: Point, on mask: inout Mask) -> (from: Point, to: Point) {
        let reach = mask.zones.map { $0.reach(pressedAt: point) } ?? .any
        down[pen] = (point, reach)
        mask.strokeOnly(reach)
        return (point, point)
    }

    /// Moves `pen` to `point`: the segment to stroke, with `mask` set to write only
    /// where this pen may; nil while the pen is up.
    public mutating func move(_ pen: Int, to point: Point, on mask: inout Mask) -> (from: Point, to: Point)? {
        guard let (last, reach) = down[pen] else { return nil }
        down[pen] = (point, reach)
        mask.strokeOnly(reach)
        return (last, point)
    }

    /// Lifts `pen`.
    public mutating func lift(_ pen: Int) { down[pen] = nil }

    /// Lifts every pen.
    public mutating func liftAll() { down.removeAll(keepingCapacity: true) }
}

extension MaskZones {
    /// What a pen pressed at `point` may scratch: the zone whose pixels hold the press
    /// point, if the brush may write there now; none for a press in a gap or on the
    /// artwork, or in a zone that is locked, opened, or past the touch limit.
    public func reach(pressedAt point: Point) -> ZoneReach {
        guard point.isFinite, point.x >= 0, point.y >= 0, point.x < 1e9, point.y < 1e9,
              let zone = zone(atX: Int(point.x), y: Int(point.y)), scratchable[zone] else { return .none }
        if !touched[zone], let touchLimit, touchOrder.count >= touchLimit { return .none }
        return .only(zone)
    }
}
