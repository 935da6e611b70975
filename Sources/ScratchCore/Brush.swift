/// A round brush. A stroke from A to B covers the capsule of points within `radius` of
/// the segment AB, with a one-pixel anti-aliased edge: a pixel whose centre lies at
/// distance d from the segment gets coverage `clamp(radius + 0.5 - d, 0, 1)`.
public struct Brush: Hashable, Sendable {
    /// The radius in device pixels: finite and > 0.
    public let radius: Double

    /// - Throws: `BrushError.invalidRadius` unless `radius` is finite and greater than 0.
    public init(radius: Double) throws(BrushError) {
        guard radius.isFinite, radius > 0 else { throw .invalidRadius(radius) }
        self.radius = radius
    }
}

public enum BrushError: Error, Equatable, CustomStringConvertible {
    case invalidRadius(Double)

    public var description: String {
        switch self {
        case .invalidRadius(let r): "brush radius must be a finite number greater than 0, not \(r)"
        }
    }
}

/// The chord of a capsule along one horizontal line: which x lie within `reach` of the
/// segment from `a` to `b` on the line at height `y`. The capsule is convex, so the chord
/// is one interval: the union of the chords of its two end disks and its middle band.
struct CapsuleChord {
    let a: Point
    let dx: Double, dy: Double
    let lengthSquared: Double
    let length: Double

    let inverseLengthSquared: Double
    let inverseLength: Double
    let inverseDx: Double
    let inverseDy: Double

    init(from a: Point, to b: Point) {
        self.a = a
        dx = b.x - a.x
        dy = b.y - a.y
        lengthSquared = dx * dx + dy * dy
        length = lengthSquared.squareRoot()
        inverseLengthSquared = lengthSquared > 0 ? 1 / lengthSquared : 0
        inverseLength = lengthSquared > 0 ? 1 / length : 0
        inverseDx = dx != 0 ? 1 / dx : 0
        inverseDy = dy != 0 ? 1 / dy : 0
    }

    /// The interval `lo ... hi` of x within `reach` of the segment at height y, or nil.
    @inline(__always)
    func span(y: Double, reach: Double) -> (lo: Double, hi: Double)? {
        var lo = Double.infinity, hi = -Double.infinity
        let reachSquared = reach * reach
        let h = y - a.y
        // The disk around A.
        let wa = reachSquared - h * h
        if wa >= 0 {
            let w = wa.squareRoot()
            lo = a.x - w
            hi = a.x + w
        }
        guard lengthSquared > 0 else { return lo <= hi ? (lo, hi) : nil }
        // The disk around B.
        let hb = h - dy
        let wb = reachSquared - hb * hb
        if wb >= 0 {
            let w = wb.squareRoot(), bx = a.x + dx
            lo = Swift.min(lo, bx - w)
            hi = Swift.max(hi, bx + w)
        }
        // The band: points whose projection falls on the segment and whose distance
        // across it is at most `reach`. Each condition is linear in x.
        var bandLo = -Double.infinity, bandHi = Double.infinity
        // 0 <= (x - ax)·dx + h·dy <= |AB|²
        if dx != 0 {
            let u = -h * dy * inverseDx, v = (lengthSquared - h * dy) * inverseDx
            bandLo = Swift.min(u, v)
            bandHi = Swift.max(u, v)
        } else if h * dy < 0 || h * dy > lengthSquared {
            return lo <= hi ? (lo, hi) : nil
        }
        // |h·dx - (x - ax)·dy| <= reach·|AB|
        let across = reach * length
        if dy != 0 {
            let u = (h * dx - across) * inverseDy, v = (h * dx + across) * inverseDy
            bandLo = Swift.max(bandLo, Swift.min(u, v))
            bandHi = Swift.min(bandHi, Swift.max(u, v))
        } else if Swift.abs(h * dx) > across {
            return lo <= hi ? (lo, hi) : nil
        }
        if bandLo <= bandHi {
            lo = Swift.min(lo, a.x + bandLo)
            hi = Swift.max(hi, a.x + bandHi)
        }
        return lo <= hi ? (lo, hi) : nil
    }

    /// The distance from (x, y) to the segment.
    @inline(__always)
    func distance(x: Double, y: Double) -> Double {
        let px = x - a.x, py = y - a.y
        let t = (px * dx + py * dy) * inverseLengthSquared
        if t <= 0 { return (px * px + py * py).squareRoot() }
        if t >= 1 {
            let ex = px - dx, ey = py - dy
            return (ex * ex + ey * ey).squareRoot()
        }
        // Beside the segment the distance is linear across it: no square root.
        return Swift.abs(px * dy - py * dx) * inverseLength
    }
}

/// Clips the segment to a box (Liang-Barsky); nil when it misses the box entirely.
/// Clipping to a box that holds every point within reach of the canvas changes no
/// canvas pixel's distance to the segment, and keeps the arithmetic in a sane range
/// however far away the end points were.
func clipSegment(_ a: Point, _ b: Point, minX: Double, minY: Double, maxX: Double, maxY: Double) -> (Point, Point)? {
    var t0 = 0.0, t1 = 1.0
    let dx = b.x - a.x, dy = b.y - a.y
    guard dx.isFinite, dy.isFinite else { return nil }
    @inline(__always) func edge(_ p: Double, _ q: Double) -> Bool {
        if p == 0 { return q >= 0 }
        let t = q / p
        if p < 0 { t0 = Swift.max(t0, t) } else { t1 = Swift.min(t1, t) }
        return true
    }
    guard edge(-dx, a.x - minX), edge(dx, maxX - a.x), edge(-dy, a.y - minY), edge(dy, maxY - a.y),
          t0 <= t1 else { return nil }
    func at(_ t: Double) -> Point {
        Point(x: Swift.min(Swift.max(a.x + t * dx, minX), maxX),
              y: Swift.min(Swift.max(a.y + t * dy, minY), maxY))
    }
    return (at(t0), at(t1))
}
