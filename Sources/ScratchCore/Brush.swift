import CInstructions

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

/// The brush's two reaches, the lanes of the vectors `CapsuleChord.spans` works in: lane 0
/// the outer reach (coverage > 0 strictly inside it), lane 1 the inner (coverage 1).
struct Reach {
    let squared: SIMD2<Double>
    /// Each reach times the segment's length: the band's half-width as its test scales it.
    let across: SIMD2<Double>
    /// False when the inner reach is <= 0: then no pixel has coverage 1.
    let hasInner: Bool

    init(outer: Double, inner: Double, length: Double) {
        squared = SIMD2(outer * outer, inner * inner)
        across = SIMD2(outer * length, inner * length)
        hasInner = inner > 0
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

    /// The chords at height y for two reaches at once, the lanes of `reach`: lane 0 the
    /// outer reach, lane 1 the inner (inner <= outer; an inner reach <= 0 gives an empty
    /// inner chord). Both lanes go through each step together, two to a vector
    /// instruction, and the work that does not depend on the reach (the band's projection
    /// limits, the heights above A and B) is done once. An empty chord comes back with
    /// lo > hi. `diskA` is the inner reach's chord of the disk around A alone.
    @inline(__always)
    func spans(y: Double, reach: Reach) -> (lo: SIMD2<Double>, hi: SIMD2<Double>, diskA: (lo: Double, hi: Double)) {
        let h = y - a.y, hb = h - dy
        let none = SIMD2<Double>(repeating: .infinity)
        // The disks around A and B: x = ax ± √(reach² - h²) where the root is real.
        let ax = SIMD2(repeating: a.x)
        let wa = reach.squared - SIMD2(repeating: h * h)
        let va = scratch_square_root2(wa)          // NaN where the line misses the disk
        let missesA = wa .< .zero
        var lo = (ax - va).replacing(with: none, where: missesA)
        var hi = (ax + va).replacing(with: -none, where: missesA)
        let diskA = (lo: lo[1], hi: hi[1])
        if lengthSquared > 0 {
            let bx = SIMD2(repeating: a.x + dx)
            let wb = reach.squared - SIMD2(repeating: hb * hb)
            let vb = scratch_square_root2(wb)
            let missesB = wb .< .zero
            lo = lesser(lo, (bx - vb).replacing(with: none, where: missesB))
            hi = greater(hi, (bx + vb).replacing(with: -none, where: missesB))
            // The band: 0 <= (x - ax)·dx + h·dy <= |AB|², the same for both reaches ...
            var bandLo = -Double.infinity, bandHi = Double.infinity
            let hdy = h * dy
            var crosses = true
            if dx != 0 {
                let u = -hdy * inverseDx, v = (lengthSquared - hdy) * inverseDx
                bandLo = minimum(u, v)
                bandHi = maximum(u, v)
            } else if hdy < 0 || hdy > lengthSquared {
                crosses = false
            }
            // ... and |h·dx - (x - ax)·dy| <= reach·|AB|.
            let hdx = h * dx
            if crosses && dy != 0 {
                let u = (SIMD2(repeating: hdx) - reach.across) * inverseDy
                let v = (SIMD2(repeating: hdx) + reach.across) * inverseDy
                let l = greater(SIMD2(repeating: bandLo), lesser(u, v))
                let r = lesser(SIMD2(repeating: bandHi), greater(u, v))
                let empty = l .> r
                lo = lesser(lo, (ax + l).replacing(with: none, where: empty))
                hi = greater(hi, (ax + r).replacing(with: -none, where: empty))
            } else if crosses && bandLo <= bandHi {
                let beyond = SIMD2(repeating: Swift.abs(hdx)) .> reach.across
                lo = lesser(lo, SIMD2(repeating: a.x + bandLo).replacing(with: none, where: beyond))
                hi = greater(hi, SIMD2(repeating: a.x + bandHi).replacing(with: -none, where: beyond))
            }
        }
        if !reach.hasInner { lo[1] = .infinity; hi[1] = -.infinity; return (lo, hi, (.infinity, -.infinity)) }
        return (lo, hi, diskA)
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
