import ScratchCore

// What the engine's tests, the rules' and the doodle's share: the brush's formula computed
// independently, mask comparisons, and the seeded generator they draw from.

/// The brush against docs/ARCHITECTURE.md's formula, computed here independently, pixel by pixel:
/// coverage = clamp(r + 0.5 - d, 0, 1), d the distance from the pixel's centre to AB.
public func referenceMask(size: PixelSize, strokes: [(Point, Point)], radius r: Double) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: size.pixelCount)
    for (a, b) in strokes {
        for y in 0..<size.height {
            for x in 0..<size.width {
                let px = Double(x) + 0.5, py = Double(y) + 0.5
                let vx = b.x - a.x, vy = b.y - a.y
                let len2 = vx * vx + vy * vy
                var t = len2 == 0 ? 0 : ((px - a.x) * vx + (py - a.y) * vy) / len2
                t = min(max(t, 0), 1)
                let dx = px - (a.x + t * vx), dy = py - (a.y + t * vy)
                let d = (dx * dx + dy * dy).squareRoot()
                let coverage = min(max(r + 0.5 - d, 0), 1)
                let value = UInt8((coverage * 255).rounded())
                out[y * size.width + x] = max(out[y * size.width + x], value)
            }
        }
    }
    return out
}

public func bytes(of mask: Mask) -> [UInt8] { mask.withUnsafeBytes { Array($0) } }

/// The pixels where two masks differ by more than `tolerance`, as a readable list.
public func differences(_ a: [UInt8], _ b: [UInt8], width: Int, tolerance: Int = 0) -> [String] {
    zip(a, b).enumerated().compactMap { i, pair in
        abs(Int(pair.0) - Int(pair.1)) > tolerance ? "(\(i % width),\(i / width)): \(pair.0) vs \(pair.1)" : nil
    }
}

/// The core's seeded generator, with what the tests draw from it.
public typealias SplitMix = SplitMix64

extension SplitMix64 {
    public mutating func double(in range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &self) }
    /// Uniform in [0, 1), from the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
}
