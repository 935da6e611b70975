import ScratchCore

extension RGBAImage {
    /// The image scaled uniformly so that it covers `target`, centred, with the overflow
    /// cropped (CSS `object-fit: cover`).
    ///
    /// Shrinking averages areas (a box filter that weighs each source pixel by the part
    /// of it an output pixel covers); enlarging interpolates bilinearly, clamped at the
    /// edges. Filtering happens in premultiplied alpha, so transparent pixels do not
    /// bleed dark fringes. The same size in gives the identical image out. Two separable
    /// passes, one source row at a time.
    ///
    ///     let cover = try PNGFile.read(path: "cover.png").scaledToFill(PixelSize(width: 1920, height: 1080))
    ///
    /// - Precondition: `target` has at least one pixel on each side.
    public func scaledToFill(_ target: PixelSize) -> RGBAImage {
        precondition(target.width > 0 && target.height > 0, "scaledToFill needs a target of at least 1x1")
        if target == size { return self }
        let scale = Swift.max(Double(target.width) / Double(width), Double(target.height) / Double(height))
        let columns = ResampleTable(source: width, target: target.width, scale: scale)
        let rows = ResampleTable(source: height, target: target.height, scale: scale)
        return resample(columns: columns, rows: rows, target: target)
    }

    private func resample(columns: ResampleTable, rows: ResampleTable, target: PixelSize) -> RGBAImage {
        let sw = width, tw = target.width, th = target.height
        // Source rows already filtered horizontally, kept in a ring: output rows use
        // runs of source rows that only move forward.
        let ringCount = rows.maxTaps + 1
        var ring = [Float](repeating: 0, count: ringCount * tw * 4)
        var ringRow = [Int](repeating: -1, count: ringCount)
        var premultiplied = [Float](repeating: 0, count: sw * 4)
        var accumulator = [Float](repeating: 0, count: tw * 4)
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
                for i in stride(from: 0, to: sw * 4, by: 4) {
                    let a = Float(src[rowBase + i + 3])
                    let f = a * (1 / 255)
                    pre[i] = Float(src[rowBase + i]) * f
                    pre[i + 1] = Float(src[rowBase + i + 1]) * f
                    pre[i + 2] = Float(src[rowBase + i + 2]) * f
                    pre[i + 3] = a
                }
                let base = slot * tw * 4
                for x in 0..<tw {
                    var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                    var s = cStart[x] * 4
                    let wBase = x * cTaps
                    for k in 0..<cTaps {
                        let w = cWeight[wBase + k]
                        if w != 0 {
                            r += pre[s] * w; g += pre[s + 1] * w; b += pre[s + 2] * w; a += pre[s + 3] * w
                        }
                        s += 4
                    }
                    ring[base + x * 4] = r
                    ring[base + x * 4 + 1] = g
                    ring[base + x * 4 + 2] = b
                    ring[base + x * 4 + 3] = a
                }
            }

            for y in 0..<th {
                for i in 0..<(tw * 4) { acc[i] = 0 }
                let start = rows.starts[y]
                for k in 0..<rows.maxTaps {
                    let w = rows.weights[y * rows.maxTaps + k]
                    if w == 0 { continue }
                    let sy = start + k
                    let slot = sy % ringCount
                    if ringRow[slot] != sy {
                        filterRow(sy, into: slot)
                        ringRow[slot] = sy
                    }
                    let base = slot * tw * 4
                    for i in 0..<(tw * 4) { acc[i] += ring[base + i] * w }
                }
                let outBase = y * tw * 4
                for x in 0..<tw {
                    let i = x * 4
                    let a = acc[i + 3]
                    if a < 0.5 { continue }  // rounds to alpha 0: leave transparent black
                    let unpremultiply = 255 / a
                    dst[outBase + i] = Self.toByte(acc[i] * unpremultiply)
                    dst[outBase + i + 1] = Self.toByte(acc[i + 1] * unpremultiply)
                    dst[outBase + i + 2] = Self.toByte(acc[i + 2] * unpremultiply)
                    dst[outBase + i + 3] = Self.toByte(a)
                }
            }
        }}}}}}}
        return RGBAImage(size: target, bytes: out)!
    }

    @inline(__always)
    private static func toByte(_ value: Float) -> UInt8 {
        let v = value + 0.5
        if v <= 0 { return 0 }
        if v >= 255 { return 255 }
        return UInt8(v)
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
    /// span that the target covers is centred in the source.
    init(source: Int, target: Int, scale: Double) {
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
            // Enlarge (or copy): bilinear between the two nearest source centres.
            for i in 0..<target {
                let centre = origin + (Double(i) + 0.5) / scale - 0.5
                let clamped = Swift.min(Swift.max(centre, 0), Double(source - 1))
                let k0 = Int(clamped.rounded(.down))
                let t = clamped - Double(k0)
                if t < 1e-9 || k0 + 1 >= source {
                    taps.append([(k0, 1)])
                } else if t > 1 - 1e-9 {
                    taps.append([(k0 + 1, 1)])
                } else {
                    taps.append([(k0, 1 - t), (k0 + 1, t)])
                }
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
