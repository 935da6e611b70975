// A tiny deterministic painter for the icon: a premultiplied float canvas, supersampled
// coverage masks for shapes and a stroke font, and a fixed-seed noise source.
import Foundation
import ScratchCore

/// A colour in 0...1, straight alpha.
struct Colour {
    var r: Double, g: Double, b: Double, a: Double = 1

    init(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    init(hex: UInt32, alpha: Double = 1) {
        self.init(Double((hex >> 16) & 0xFF) / 255, Double((hex >> 8) & 0xFF) / 255, Double(hex & 0xFF) / 255, alpha)
    }

    func mixed(with other: Colour, _ t: Double) -> Colour {
        Colour(r + (other.r - r) * t, g + (other.g - g) * t, b + (other.b - b) * t, a + (other.a - a) * t)
    }

    func scaled(_ k: Double) -> Colour { Colour(r * k, g * k, b * k, a) }
}

/// Premultiplied RGBA in doubles, painted with source-over.
struct Canvas {
    let width: Int, height: Int
    var pixels: [Double]  // r, g, b, a premultiplied

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [Double](repeating: 0, count: width * height * 4)
    }

    /// Paints every pixel with the colour `shader` gives at its centre.
    mutating func fill(_ shader: (Double, Double) -> Colour) {
        for y in 0..<height {
            for x in 0..<width {
                let c = shader(Double(x) + 0.5, Double(y) + 0.5)
                let i = (y * width + x) * 4
                pixels[i] = c.r * c.a; pixels[i + 1] = c.g * c.a; pixels[i + 2] = c.b * c.a; pixels[i + 3] = c.a
            }
        }
    }

    /// Source-over of a colour through a coverage mask.
    mutating func paint(_ mask: Coverage, opacity: Double = 1, _ shader: (Double, Double) -> Colour) {
        let cov = mask.downsampled()
        for y in 0..<height {
            for x in 0..<width {
                let k = cov[y * width + x]
                if k == 0 { continue }
                let c = shader(Double(x) + 0.5, Double(y) + 0.5)
                let a = c.a * k * opacity
                let i = (y * width + x) * 4
                pixels[i] = c.r * a + pixels[i] * (1 - a)
                pixels[i + 1] = c.g * a + pixels[i + 1] * (1 - a)
                pixels[i + 2] = c.b * a + pixels[i + 2] * (1 - a)
                pixels[i + 3] = a + pixels[i + 3] * (1 - a)
            }
        }
    }

    mutating func paint(_ mask: Coverage, opacity: Double = 1, colour: Colour) {
        paint(mask, opacity: opacity) { _, _ in colour }
    }

    /// Adds light (or takes it away) at one pixel, keeping alpha.
    mutating func brighten(x: Int, y: Int, by amount: Double) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 4
        let a = pixels[i + 3]
        for c in 0..<3 { pixels[i + c] = Swift.min(Swift.max(pixels[i + c] + amount * a, 0), a) }
    }

    var image: RGBAImage {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        func byte(_ v: Double) -> UInt8 { UInt8(Swift.min(Swift.max(v * 255 + 0.5, 0), 255)) }
        for p in 0..<(width * height) {
            let i = p * 4
            let a = pixels[i + 3]
            if a <= 0 { continue }
            bytes[i] = byte(pixels[i] / a)
            bytes[i + 1] = byte(pixels[i + 1] / a)
            bytes[i + 2] = byte(pixels[i + 2] / a)
            bytes[i + 3] = byte(a)
        }
        return RGBAImage(size: PixelSize(width: width, height: height), bytes: bytes)!
    }
}

/// A shape's coverage, sampled `factor` x `factor` times per pixel and averaged:
/// anti-aliased edges from plain inside/outside tests.
struct Coverage {
    let width: Int, height: Int, factor: Int
    var samples: [UInt8]

    init(width: Int, height: Int, factor: Int = 4) {
        self.width = width
        self.height = height
        self.factor = factor
        samples = [UInt8](repeating: 0, count: width * factor * height * factor)
    }

    /// Marks (or with `erase`, clears) the samples inside the shape, testing only
    /// those in the box `minX...maxX, minY...maxY` (pixel units).
    mutating func add(minX: Double, minY: Double, maxX: Double, maxY: Double, erase: Bool = false,
                      _ inside: (Double, Double) -> Bool) {
        let f = Double(factor), sw = width * factor, sh = height * factor
        let x0 = Swift.max(0, Int((minX * f).rounded(.down))), x1 = Swift.min(sw - 1, Int((maxX * f).rounded(.up)))
        let y0 = Swift.max(0, Int((minY * f).rounded(.down))), y1 = Swift.min(sh - 1, Int((maxY * f).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        for sy in y0...y1 {
            let py = (Double(sy) + 0.5) / f
            for sx in x0...x1 {
                let px = (Double(sx) + 0.5) / f
                if inside(px, py) { samples[sy * sw + sx] = erase ? 0 : 1 }
            }
        }
    }

    /// Points within `radius` of the segment from a to b.
    mutating func capsule(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, radius: Double, erase: Bool = false) {
        let dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy
        add(minX: Swift.min(ax, bx) - radius, minY: Swift.min(ay, by) - radius,
            maxX: Swift.max(ax, bx) + radius, maxY: Swift.max(ay, by) + radius, erase: erase) { px, py in
            var t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0
            t = Swift.min(Swift.max(t, 0), 1)
            let ex = px - (ax + t * dx), ey = py - (ay + t * dy)
            return ex * ex + ey * ey <= radius * radius
        }
    }

    mutating func circle(_ cx: Double, _ cy: Double, radius: Double, erase: Bool = false) {
        capsule(cx, cy, cx, cy, radius: radius, erase: erase)
    }

    /// A rounded rectangle, filled, or only its outline `stroke` pixels wide.
    mutating func roundedRect(x: Double, y: Double, width w: Double, height h: Double, radius: Double,
                              stroke: Double? = nil, erase: Bool = false) {
        let cx = x + w / 2, cy = y + h / 2
        add(minX: x - 2, minY: y - 2, maxX: x + w + 2, maxY: y + h + 2, erase: erase) { px, py in
            let d = Coverage.roundedRectDistance(px - cx, py - cy, w / 2, h / 2, radius)
            if let stroke { return abs(d) <= stroke / 2 }
            return d <= 0
        }
    }

    /// Signed distance from a point (relative to the centre) to a rounded rectangle.
    static func roundedRectDistance(_ px: Double, _ py: Double, _ hw: Double, _ hh: Double, _ r: Double) -> Double {
        let qx = abs(px) - hw + r, qy = abs(py) - hh + r
        let outside = (Swift.max(qx, 0) * Swift.max(qx, 0) + Swift.max(qy, 0) * Swift.max(qy, 0)).squareRoot()
        return outside + Swift.min(Swift.max(qx, qy), 0) - r
    }

    /// A rectangle of size w x h centred at (cx, cy), turned by `angle` radians.
    mutating func rotatedRect(_ cx: Double, _ cy: Double, _ w: Double, _ h: Double, angle: Double) {
        let c = cos(angle), s = sin(angle), reach = (w * w + h * h).squareRoot() / 2
        add(minX: cx - reach, minY: cy - reach, maxX: cx + reach, maxY: cy + reach) { px, py in
            let dx = px - cx, dy = py - cy
            return abs(dx * c + dy * s) <= w / 2 && abs(-dx * s + dy * c) <= h / 2
        }
    }

    /// Per-pixel coverage in 0...1.
    func downsampled() -> [Double] {
        let sw = width * factor, n = Double(factor * factor)
        var out = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0
                for j in 0..<factor {
                    let row = (y * factor + j) * sw + x * factor
                    for i in 0..<factor { sum += Int(samples[row + i]) }
                }
                out[y * width + x] = Double(sum) / n
            }
        }
        return out
    }
}
