@preconcurrency import Glibc
import ScratchCore

/// How an image is enlarged (shrinking always averages areas, a box filter).
public enum EnlargingFilter: String, CaseIterable, Sendable {
    /// Linear between the two nearest source pixels: soft edges, no ringing.
    case bilinear
    /// Catmull-Rom cubic (Keys, a = -0.5) over 4 source pixels: sharper, slight overshoot.
    case catmullRom = "catmull-rom"
    /// Lanczos-3, a windowed sinc over 6 source pixels: the sharpest of the three, the
    /// most ringing beside hard edges (clamped to 0...255).
    case lanczos3

    /// The filter the program enlarges covers and prizes with; BENCHMARKS.md has the
    /// comparison (a photo and a line drawing shrunk and enlarged back, PSNR and SSIM,
    /// and the time at 640x400 -> 3840x2160) that chose it.
    public static let standard = EnlargingFilter.lanczos3

    /// Source pixels on each side of the centre that the kernel reaches.
    public var support: Int {
        switch self {
        case .bilinear: 1
        case .catmullRom: 2
        case .lanczos3: 3
        }
    }

    /// The kernel's weight at distance `x` (in source pixels) from the sample point.
    public func weight(_ x: Double) -> Double {
        let d = abs(x)
        switch self {
        case .bilinear:
            return Swift.max(0, 1 - d)
        case .catmullRom:
            if d < 1 { return (1.5 * d - 2.5) * d * d + 1 }
            if d < 2 { return ((-0.5 * d + 2.5) * d - 4) * d + 2 }
            return 0
        case .lanczos3:
            if d < 1e-12 { return 1 }
            if d >= 3 { return 0 }
            let px = Double.pi * d
            return 3 * sin(px) * sin(px / 3) / (px * px)
        }
    }
}

extension RGBAImage {
    /// The image scaled uniformly so that it covers `target`, centred, with the overflow
    /// cropped (CSS `object-fit: cover`).
    ///
    /// Shrinking averages areas (a box filter that weighs each source pixel by the part
    /// of it an output pixel covers); enlarging uses `filter` (by default Lanczos-3,
    /// which keeps edges: a 640x400 photo on a 4K kiosk stays crisp), clamped at the
    /// edges. Filtering happens in premultiplied alpha, so transparent pixels do not
    /// bleed dark fringes. The same size in gives the identical image out. Two separable
    /// passes, one source row at a time.
    ///
    ///     let cover = try PNGFile.read(path: "cover.png").scaledToFill(PixelSize(width: 1920, height: 1080))
    ///
    /// - Precondition: `target` has at least one pixel on each side.
    public func scaledToFill(_ target: PixelSize, enlargingWith filter: EnlargingFilter = .standard) -> RGBAImage {
        precondition(target.width > 0 && target.height > 0, "scaledToFill needs a target of at least 1x1")
        if target == size { return self }
        let scale = Swift.max(Double(target.width) / Double(width), Double(target.height) / Double(height))
        let columns = ResampleTable(source: width, target: target.width, scale: scale, filter: filter)
        let rows = ResampleTable(source: height, target: target.height, scale: scale, filter: filter)
        return resample(columns: columns, rows: rows, target: target)
    }

    private func resample(columns: ResampleTable, rows: ResampleTable, target: PixelSize) -> RGBAImage {
        let sw = width, tw = target.width, th = target.height
        // An opaque image (a photo, most covers) skips premultiplying and the divide
        // that undoes it: the same result, as alpha stays 255 throughout.
        let opaque = isOpaque
        // Source rows already filtered horizontally, kept in a ring: output rows use
        // runs of source rows that only move forward. One SIMD4 (r, g, b, a) a pixel.
        let ringCount = rows.maxTaps + 1
        var ring = [SIMD4<Float>](repeating: .zero, count: ringCount * tw)
        var ringRow = [Int](repeating: -1, count: ringCount)
        var premultiplied = [SIMD4<Float>](repeating: .zero, count: sw)
        var accumulator = [SIMD4<Float>](repeating: .zero, count: tw)
        var out = [UInt8](repeating: 0, count: tw * th * 4)

        bytes.withUnsafeBufferPointer { src in
        ring.withUnsafeMutableBufferPointer { ring in
        premultiplied.withUnsafeMutableBufferPointer { pre in
        accumulator.withUnsafeMutableBufferPointer { acc in
        out.withUnsafeMutableBufferPointer { dst in
        columns.starts.withUnsafeBufferPointer { cStart in
        columns.weights.withUnsafeBufferPointer { cWeight in
            let cTaps = columns.maxTaps

            /// Filters source row `y` horizontally into ring slot `slot`.
            func filterRow(_ y: Int, into slot: Int) {
                let rowBase = y * sw * 4
                for x in 0..<sw {
                    let i = rowBase + x * 4
                    let p = SIMD4<Float>(Float(src[i]), Float(src[i + 1]), Float(src[i + 2]), Float(src[i + 3]))
                    if opaque {
                        pre[x] = p
                    } else {
                        let f = p[3] * (1 / 255)
                        pre[x] = SIMD4(p[0] * f, p[1] * f, p[2] * f, p[3])
                    }
                }
                let base = slot * tw
                for x in 0..<tw {
                    var sum = SIMD4<Float>.zero
                    let s = cStart[x]
                    let wBase = x * cTaps
                    for k in 0..<cTaps { sum += pre[s + k] * cWeight[wBase + k] }
                    ring[base + x] = sum
                }
            }

            for y in 0..<th {
                let start = rows.starts[y]
                var firstTap = true
                for k in 0..<rows.maxTaps {
                    let w = rows.weights[y * rows.maxTaps + k]
                    if w == 0 { continue }
                    let sy = start + k
                    let slot = sy % ringCount
                    if ringRow[slot] != sy {
                        filterRow(sy, into: slot)
                        ringRow[slot] = sy
                    }
                    let base = slot * tw
                    if firstTap {
                        for x in 0..<tw { acc[x] = ring[base + x] * w }
                        firstTap = false
                    } else {
                        for x in 0..<tw { acc[x] += ring[base + x] * w }
                    }
                }
                if firstTap { for x in 0..<tw { acc[x] = .zero } }
                let outBase = y * tw * 4
                for x in 0..<tw {
                    var v = acc[x]
                    let a = v[3]
                    if !opaque {
                        if a < 0.5 { continue }  // rounds to alpha 0: leave transparent black
                        let unpremultiply = 255 / a
                        v = SIMD4(v[0] * unpremultiply, v[1] * unpremultiply, v[2] * unpremultiply, a)
                    }
                    // Round and clamp to 0...255 (a sharp filter overshoots beside edges).
                    v = (v + 0.5).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
                    let o = outBase + x * 4
                    dst[o] = UInt8(v[0])
                    dst[o + 1] = UInt8(v[1])
                    dst[o + 2] = UInt8(v[2])
                    dst[o + 3] = opaque ? 255 : UInt8(v[3])
                }
            }
        }}}}}}}
        return RGBAImage(size: target, bytes: out)!
    }

    /// True when every pixel's alpha is 255.
    private var isOpaque: Bool {
        bytes.withUnsafeBufferPointer { b in
            var all: UInt8 = 255
            for i in stride(from: 3, to: b.count, by: 4) { all &= b[i] }
            return all == 255
        }
    }
}

/// For one axis: which source pixels make up each output pixel, and with what weights.
/// Output pixel `i` is `sum(weights[i * maxTaps + k] * source[starts[i] + k])`;
/// the weights of each output pixel add up to 1, unused taps are 0.
struct ResampleTable {
    var starts: [Int]
    var weights: [Float]
    var maxTaps: Int

    /// `scale` is target pixels per source pixel, the same on both axes; the source
    /// span that the target covers is centred in the source. `filter` enlarges.
    init(source: Int, target: Int, scale: Double, filter: EnlargingFilter) {
        var taps: [[(Int, Double)]] = []
        taps.reserveCapacity(target)
        let span = Double(target) / scale            // source pixels the target covers
        var origin = (Double(source) - span) / 2      // where that span starts
        if scale == 1 { origin = origin.rounded(.down) }  // same scale: copy whole pixels

        if scale < 1 {
            // Shrink: box filter. Output pixel i covers [origin + i/scale, origin + (i+1)/scale).
            for i in 0..<target {
                let lo = Swift.max(0, origin + Double(i) / scale)
                let hi = Swift.min(Double(source), origin + Double(i + 1) / scale)
                var first = Int(lo.rounded(.down))
                var last = Int(hi.rounded(.up)) - 1
                first = Swift.min(Swift.max(first, 0), source - 1)
                last = Swift.min(Swift.max(last, first), source - 1)
                var list: [(Int, Double)] = []
                var total = 0.0
                for k in first...last {
                    let overlap = Swift.min(hi, Double(k + 1)) - Swift.max(lo, Double(k))
                    if overlap > 1e-9 {
                        list.append((k, overlap))
                        total += overlap
                    }
                }
                if list.isEmpty { list = [(first, 1)]; total = 1 }
                taps.append(list.map { ($0.0, $0.1 / total) })
            }
        } else {
            // Enlarge (or copy): the filter's kernel around each output pixel's centre
            // in the source, taps past an edge folded onto the edge pixel (clamping),
            // weights normalised to add up to 1.
            let support = filter.support
            for i in 0..<target {
                let centre = origin + (Double(i) + 0.5) / scale - 0.5
                let clamped = Swift.min(Swift.max(centre, 0), Double(source - 1))
                let k0 = Int(clamped.rounded(.down))
                let t = clamped - Double(k0)
                if t < 1e-9 {
                    taps.append([(k0, 1)])          // on a source centre: a copy
                    continue
                }
                if t > 1 - 1e-9 {
                    taps.append([(Swift.min(k0 + 1, source - 1), 1)])
                    continue
                }
                let first = Swift.max(0, k0 - support + 1), last = Swift.min(source - 1, k0 + support)
                var list = (first...last).map { ($0, 0.0) }
                var total = 0.0
                for k in (k0 - support + 1)...(k0 + support) {
                    let w = filter.weight(clamped - Double(k))
                    list[Swift.min(Swift.max(k, first), last) - first].1 += w
                    total += w
                }
                while list.count > 1, list.last!.1 == 0 { list.removeLast() }
                while list.count > 1, list.first!.1 == 0 { list.removeFirst() }
                taps.append(list.map { ($0.0, $0.1 / total) })
            }
        }

        let maxTaps = taps.map(\.count).max() ?? 1
        var starts = [Int](repeating: 0, count: target)
        var weights = [Float](repeating: 0, count: target * maxTaps)
        for (i, list) in taps.enumerated() {
            starts[i] = list[0].0
            for (index, weight) in list {
                weights[i * maxTaps + index - list[0].0] = Float(weight)
            }
        }
        // Taps past the end of the source would read out of bounds even with weight 0:
        // pull such starts back (their extra weights are 0, and indices stay in range).
        for i in 0..<target where starts[i] + maxTaps > source {
            let shift = starts[i] + maxTaps - source
            if shift > 0 && starts[i] - shift >= 0 {
                for k in stride(from: maxTaps - 1, through: 0, by: -1) {
                    weights[i * maxTaps + k] = k - shift >= 0 ? weights[i * maxTaps + k - shift] : 0
                }
                starts[i] -= shift
            }
        }
        self.starts = starts
        self.weights = weights
        self.maxTaps = maxTaps
    }
}
