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

    /// The chords at height y for two reaches at once, `outer` and `inner` (inner <= outer;
    /// an inner reach <= 0 gives an empty inner chord): the work that does not depend on
    /// the reach (the band's projection limits, the heights above A and B) is done once.
    /// An empty chord comes back with lo > hi.
    @inline(__always)
    func spans(y: Double, outer: Double, inner: Double)
        -> (lo: Double, hi: Double, innerLo: Double, innerHi: Double) {
        let h = y - a.y, hb = h - dy
        let hh = h * h, hbhb = hb * hb
        let outerSquared = outer * outer, innerSquared = inner * inner
        var lo = Double.infinity, hi = -Double.infinity
        var ilo = Double.infinity, ihi = -Double.infinity
        let hasInner = inner > 0
        // The disks around A and B.
        let wa = outerSquared - hh
        if wa >= 0 {
            let w = wa.squareRoot()
            lo = a.x - w; hi = a.x + w
            let wi = innerSquared - hh
            if hasInner && wi >= 0 {
                let v = wi.squareRoot()
                ilo = a.x - v; ihi = a.x + v
            }
        }
        guard lengthSquared > 0 else { return (lo, hi, ilo, ihi) }
        let bx = a.x + dx
        let wb = outerSquared - hbhb
        if wb >= 0 {
            let w = wb.squareRoot()
            lo = minimum(lo, bx - w); hi = maximum(hi, bx + w)
            let wi = innerSquared - hbhb
            if hasInner && wi >= 0 {
                let v = wi.squareRoot()
                ilo = minimum(ilo, bx - v); ihi = maximum(ihi, bx + v)
            }
        }
        // The band: 0 <= (x - ax)·dx + h·dy <= |AB|², the same for both reaches ...
        var bandLo = -Double.infinity, bandHi = Double.infinity
        let hdy = h * dy
        if dx != 0 {
            let u = -hdy * inverseDx, v = (lengthSquared - hdy) * inverseDx
            bandLo = minimum(u, v)
            bandHi = maximum(u, v)
        } else if hdy < 0 || hdy > lengthSquared {
            return (lo, hi, ilo, ihi)
        }
        // ... and |h·dx - (x - ax)·dy| <= reach·|AB|.
        let hdx = h * dx
        let across = outer * length, innerAcross = inner * length
        if dy != 0 {
            let u = (hdx - across) * inverseDy, v = (hdx + across) * inverseDy
            let l = maximum(bandLo, minimum(u, v)), r = minimum(bandHi, maximum(u, v))
            if l <= r { lo = minimum(lo, a.x + l); hi = maximum(hi, a.x + r) }
            if hasInner {
                let ui = (hdx - innerAcross) * inverseDy, vi = (hdx + innerAcross) * inverseDy
                let il = maximum(bandLo, minimum(ui, vi)), ir = minimum(bandHi, maximum(ui, vi))
                if il <= ir { ilo = minimum(ilo, a.x + il); ihi = maximum(ihi, a.x + ir) }
            }
        } else {
            let off = Swift.abs(hdx)
            if off <= across && bandLo <= bandHi { lo = minimum(lo, a.x + bandLo); hi = maximum(hi, a.x + bandHi) }
            if hasInner && off <= innerAcross && bandLo <= bandHi {
                ilo = minimum(ilo, a.x + bandLo); ihi = maximum(ihi, a.x + bandHi)
            }
        }
        return (lo, hi, ilo, ihi)
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
