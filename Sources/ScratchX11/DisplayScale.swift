import ScratchCore

/// How many device pixels make one point (1/96 inch at scale 1), and where that came from.
///
///     let scale = DisplayScale.resolve(option: nil, xftDPI: "144",
///                                      screenPixels: PixelSize(width: 1920, height: 1080),
///                                      screenMillimetres: PixelSize(width: 508, height: 286))
///     // scale.factor == 1.5, scale.source == .xftDPI
public struct DisplayScale: Hashable, Sendable, CustomStringConvertible {
    public enum Source: String, Hashable, Sendable {
        case option
        case xftDPI = "Xft.dpi"
        case physicalDPI = "screen dpi"
        case fallback = "default"
    }

    /// The factor used: device pixels per point.
    public let factor: Double
    public let source: Source
    /// The figure as measured, before snapping: the screen's dpi / 96 for `.physicalDPI`
    /// (0.9994 on a 96-dpi Xvfb); the same as `factor` for the other sources.
    public let raw: Double

    public init(factor: Double, source: Source, raw: Double? = nil) {
        self.factor = factor
        self.source = source
        self.raw = raw ?? factor
    }

    /// The nearest quarter to `measured` (at least 0.25). A scale read from the screen's
    /// millimetres is only as good as the millimetres, which servers round (Xvfb's
    /// default screen gives 1.042, a 96-dpi one 0.9994): a quarter is the finest step a
    /// user would set, and it keeps a 640x400 card at whole device pixels.
    public static func snappedToQuarter(_ measured: Double) -> Double {
        Swift.max(0.25, (measured * 4).rounded() / 4)
    }

    /// Plausible Xft.dpi values: anything else in the resource is ignored.
    public static let plausibleXftDPI: ClosedRange<Double> = 24...2400
    /// Plausible physical dpi: servers that do not know their monitor's size report
    /// nonsense (0 mm, or a "screen" 2 m wide), and such values are ignored.
    public static let plausiblePhysicalDPI: ClosedRange<Double> = 72...600

    /// The scale by docs/ARCHITECTURE.md's rule, first that applies: `option` (when finite and > 0);
    /// `xftDPI / 96` when the resource parses as a number in `plausibleXftDPI` (both as
    /// given: the user set them); the screen's physical dpi / 96 (pixels / (millimetres /
    /// 25.4), the mean of both axes) when in `plausiblePhysicalDPI`, snapped to the
    /// nearest quarter (`snappedToQuarter`); else 1. A pure function.
    public static func resolve(option: Double?, xftDPI: String?, screenPixels: PixelSize,
                               screenMillimetres: PixelSize) -> DisplayScale {
        if let option, option.isFinite, option > 0 {
            return DisplayScale(factor: option, source: .option)
        }
        if let xftDPI, let dpi = Double(trimmed(xftDPI)),
           plausibleXftDPI.contains(dpi) {
            return DisplayScale(factor: dpi / 96, source: .xftDPI)
        }
        if screenPixels.width > 0, screenPixels.height > 0,
           screenMillimetres.width > 0, screenMillimetres.height > 0 {
            let dpiX = Double(screenPixels.width) / (Double(screenMillimetres.width) / 25.4)
            let dpiY = Double(screenPixels.height) / (Double(screenMillimetres.height) / 25.4)
            let dpi = (dpiX + dpiY) / 2
            if plausiblePhysicalDPI.contains(dpi) {
                return DisplayScale(factor: snappedToQuarter(dpi / 96), source: .physicalDPI, raw: dpi / 96)
            }
        }
        return DisplayScale(factor: 1, source: .fallback)
    }

    /// "2.0 (screen dpi, measured 1.9994)" or "1.5 (Xft.dpi)".
    public var description: String {
        raw == factor ? "\(factor) (\(source.rawValue))" : "\(factor) (\(source.rawValue), measured \(raw))"
    }
}

/// The string without leading and trailing white space.
private func trimmed(_ s: String) -> String {
    var t = Substring(s)
    while t.first?.isWhitespace == true { t.removeFirst() }
    while t.last?.isWhitespace == true { t.removeLast() }
    return String(t)
}
