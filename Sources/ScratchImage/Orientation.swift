import ScratchCore

/// How a stored picture must be turned to show upright: the EXIF / TIFF Orientation
/// tag's eight values. A phone held upright stores its sensor's landscape pixels with
/// `.rotatedClockwise` (6) rather than turning them.
public enum ImageOrientation: Int, Sendable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case mirrored = 2
    /// 3: upside down (turn 180°).
    case upsideDown = 3
    /// 4: mirrored top to bottom.
    case upsideDownMirrored = 4
    /// 5: mirrored about the top-left to bottom-right diagonal (transposed).
    case transposed = 5
    /// 6: turn 90° clockwise to show it upright.
    case rotatedClockwise = 6
    /// 7: mirrored about the top-right to bottom-left diagonal (transversed).
    case transversed = 7
    /// 8: turn 90° counter-clockwise to show it upright.
    case rotatedCounterClockwise = 8

    /// Whether showing it upright swaps its width and height.
    public var swapsSides: Bool { rawValue >= 5 }

    /// The stored image turned upright.
    ///
    ///     let upright = ImageOrientation.rotatedClockwise.apply(to: stored)  // a 4x3 photo becomes 3x4
    public func apply(to image: RGBAImage) -> RGBAImage {
        if self == .up { return image }
        let w = image.width, h = image.height
        let out = swapsSides ? PixelSize(width: h, height: w) : image.size
        // For each upright pixel (x, y), the stored pixel it shows: (sx, sy) = origin +
        // x * dx + y * dy, walked incrementally with the steps in stored pixel indices.
        let (origin, stepX, stepY): ((Int, Int), (Int, Int), (Int, Int))
        switch self {
        case .up: (origin, stepX, stepY) = ((0, 0), (1, 0), (0, 1))
        case .mirrored: (origin, stepX, stepY) = ((w - 1, 0), (-1, 0), (0, 1))
        case .upsideDown: (origin, stepX, stepY) = ((w - 1, h - 1), (-1, 0), (0, -1))
        case .upsideDownMirrored: (origin, stepX, stepY) = ((0, h - 1), (1, 0), (0, -1))
        case .transposed: (origin, stepX, stepY) = ((0, 0), (0, 1), (1, 0))
        case .rotatedClockwise: (origin, stepX, stepY) = ((0, h - 1), (0, -1), (1, 0))
        case .transversed: (origin, stepX, stepY) = ((w - 1, h - 1), (0, -1), (-1, 0))
        case .rotatedCounterClockwise: (origin, stepX, stepY) = ((w - 1, 0), (0, 1), (-1, 0))
        }
        let dx = stepX.0 + stepX.1 * w, dy = stepY.0 + stepY.1 * w
        var pixels = [UInt8](repeating: 0, count: out.pixelCount * 4)
        image.bytes.withUnsafeBytes { raw in
            let src = raw.bindMemory(to: UInt32.self)
            pixels.withUnsafeMutableBytes { rawOut in
                let dst = rawOut.bindMemory(to: UInt32.self)
                var row = origin.0 + origin.1 * w
                var o = 0
                for _ in 0..<out.height {
                    var s = row
                    for _ in 0..<out.width {
                        dst[o] = src[s]
                        o += 1
                        s += dx
                    }
                    row += dy
                }
            }
        }
        return RGBAImage(size: out, bytes: pixels)!
    }
}
