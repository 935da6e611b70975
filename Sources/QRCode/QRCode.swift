import CQREncode
import ScratchCore

/// A QR code's modules (libqrencode), as plain Swift data: `width` x `width` squares,
/// true for dark. Drawn by whoever shows it (`image(moduleSize:)` for the window's card,
/// the ticket's cairo path in CardArt).
///
///     let qr = try QRCode(encoding: "K7Q2M-0TXH4-9CVBD-W3R8P-6GJZE")
///     let picture = qr.image(moduleSize: 8)      // with the 4-module quiet zone
public struct QRCode: Equatable, Sendable {
    /// Modules per side (21 for version 1, 4 more per version).
    public let width: Int
    /// Row by row, true for a dark module.
    public let modules: [Bool]
    /// The quiet zone a reader needs around the symbol, in modules.
    public static let quietZone = 4

    /// Encodes `text` (upper-case letters, digits and dashes go in the compact
    /// alphanumeric mode) at error correction level M (15% of the symbol may be lost).
    public init(encoding text: String) throws(QRCodeError) {
        guard !text.isEmpty, text.utf8.count <= 1000, !text.utf8.contains(0) else { throw QRCodeError() }
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { throw QRCodeError() }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
        self.width = width
        // Bit 0 of each byte is the module's colour; the others are libqrencode's notes.
        modules = data.map { $0 & 1 != 0 }
    }

    public subscript(x: Int, y: Int) -> Bool { modules[y * width + x] }

    /// Black modules on white, each `moduleSize` pixels square, with the quiet zone.
    public func image(moduleSize: Int) -> RGBAImage {
        let side = (width + 2 * Self.quietZone) * moduleSize
        var image = RGBAImage(size: PixelSize(width: side, height: side), filledWith: .white)
        for y in 0..<width {
            for x in 0..<width where self[x, y] {
                for py in 0..<moduleSize {
                    let row = ((Self.quietZone + y) * moduleSize + py) * side
                    for px in 0..<moduleSize {
                        let i = (row + (Self.quietZone + x) * moduleSize + px) * 4
                        image.bytes[i] = 0; image.bytes[i + 1] = 0; image.bytes[i + 2] = 0
                    }
                }
            }
        }
        return image
    }
}

/// The text cannot be encoded (too long, or libqrencode out of memory).
public struct QRCodeError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String { "cannot encode the text as a QR code" }
}
