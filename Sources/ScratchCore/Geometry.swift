/// A point in device pixels: origin at the top-left corner of the top-left pixel, y down.
/// Pixel (i, j) covers [i, i+1) x [j, j+1); its centre is (i + 0.5, j + 0.5).
public struct Point: Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// True when both coordinates are finite numbers.
    public var isFinite: Bool { x.isFinite && y.isFinite }
}

/// A size in whole device pixels.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var pixelCount: Int { width * height }
    public var description: String { "\(width)x\(height)" }
}

/// A rectangle of whole pixels: columns `x ..< x + width`, rows `y ..< y + height`.
/// An empty rectangle (width or height <= 0) is the identity of `union`.
///
///     var dirty = PixelRect.empty
///     dirty.formUnion(PixelRect(x: 10, y: 10, width: 4, height: 4))
///     let onScreen = dirty.intersection(PixelRect(size: canvas))
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole of a canvas of the given size.
    public init(size: PixelSize) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// The rectangle spanning columns `minX ... maxX` and rows `minY ... maxY`, inclusive.
    public init(minX: Int, minY: Int, maxX: Int, maxY: Int) {
        self.init(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }

    public static let empty = PixelRect(x: 0, y: 0, width: 0, height: 0)

    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var area: Int { isEmpty ? 0 : width * height }
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// The smallest rectangle holding both; an empty side does not count.
    public func union(_ other: PixelRect) -> PixelRect {
        if isEmpty { return other.isEmpty ? .empty : other }
        if other.isEmpty { return self }
        let minX = Swift.min(x, other.x), minY = Swift.min(y, other.y)
        return PixelRect(x: minX, y: minY,
                         width: Swift.max(maxX, other.maxX) - minX,
                         height: Swift.max(maxY, other.maxY) - minY)
    }

    public mutating func formUnion(_ other: PixelRect) { self = union(other) }

    /// The common part, or `.empty` when they do not overlap.
    public func intersection(_ other: PixelRect) -> PixelRect {
        let minX = Swift.max(x, other.x), minY = Swift.max(y, other.y)
        let maxX = Swift.min(self.maxX, other.maxX), maxY = Swift.min(self.maxY, other.maxY)
        guard minX < maxX, minY < maxY else { return .empty }
        return PixelRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
