import CPangoCairo
import ScratchCore

/// A claim as drawn: its code in words and as a QR code's modules (the QR room makes
/// them; CardArt only paints squares).
public struct ClaimMark: Sendable, Equatable {
    /// The code as shown, grouped: `K7Q2M-0TXH4-9CVBD-W3R8P-6GJZE`.
    public let code: String
    /// The QR symbol: `qrWidth` x `qrWidth` modules, row by row, true for dark.
    public let qrModules: [Bool]
    public let qrWidth: Int

    public init(code: String, qrModules: [Bool], qrWidth: Int) {
        precondition(qrModules.count == qrWidth * qrWidth, "a square of modules")
        self.code = code
        self.qrModules = qrModules
        self.qrWidth = qrWidth
    }

    /// The quiet zone a reader needs around the symbol, in modules.
    static let quietZone = 4
    var sideInModules: Int { qrWidth + 2 * Self.quietZone }

    /// The dark modules as squares of `module` pixels from (x, y), the quiet zone included.
    func paint(on cr: OpaquePointer, x: Double, y: Double, module: Double) {
        cairo_set_source_rgb(cr, 0, 0, 0)
        for row in 0..<qrWidth {
            for column in 0..<qrWidth where qrModules[row * qrWidth + column] {
                cairo_rectangle(cr, x + Double(column + Self.quietZone) * module, y + Double(row + Self.quietZone) * module, module, module)
            }
        }
        cairo_fill(cr)
    }
}

extension CardArt {
    /// The code's words: a fixed-width face, so that no letter is mistaken for another.
    static let codeStyle = TextStyle(families: "DejaVu Sans Mono, Noto Sans Mono, monospace", largestPixelSize: 400)

    /// The prize with its claim on it: a white band across the bottom holding the QR code
    /// (whole pixels per module, at least 4, for a phone at arm's length) and the code
    /// in words beside it. The band is 40% of the card's shorter side, at least enough
    /// for the QR's modules.
    public static func claimed(_ prize: RGBAImage, claim: ClaimMark) -> RGBAImage {
        let size = prize.size
        let band = Swift.max(Double(Swift.min(size.width, size.height)) * 0.4, Double(claim.sideInModules * 4))
        let module = Swift.max(1, Int(band) / claim.sideInModules)
        let qrSide = Double(module * claim.sideInModules)
        let top = Double(size.height) - qrSide
        return Surface.drawing(size: size) { surface in
            let cr = surface.cr
            surface.fill(with: prize)
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_rectangle(cr, 0, top, Double(size.width), qrSide)
            cairo_fill(cr)
            claim.paint(on: cr, x: 0, y: top, module: Double(module))
            let margin = Double(module) * 2
            let label = Box(x: qrSide, y: top + margin, width: Double(size.width) - qrSide - margin, height: (qrSide - 2 * margin) * 0.25)
            let words = Box(x: qrSide, y: label.y + label.height, width: label.width, height: (qrSide - 2 * margin) * 0.75)
            cairo_set_source_rgb(cr, 0.25, 0.25, 0.25)
            FittedText.fit("CLAIM CODE", style: TextStyle(largestPixelSize: 200), into: label, on: surface)?.show(on: surface)
            cairo_set_source_rgb(cr, 0, 0, 0)
            // Two lines of groups when one would be small.
            let groups = claim.code.split(separator: "-").map(String.init)
            let oneLine = FittedText.fit(claim.code, style: codeStyle, into: words, on: surface)
            let twoLines = groups.count > 2
                ? FittedText.fit(groups.prefix((groups.count + 1) / 2).joined(separator: "-") + "-\n"
                                 + groups.dropFirst((groups.count + 1) / 2).joined(separator: "-"), style: codeStyle, into: words, on: surface)
                : nil
            let best = (twoLines?.layout.pixelSize ?? 0) > 1.4 * (oneLine?.layout.pixelSize ?? 0) ? twoLines : oneLine
            best?.show(on: surface)
        } ?? prize
    }
}
