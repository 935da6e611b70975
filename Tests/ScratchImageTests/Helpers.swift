// Test-only helpers: PNGs in formats other than 8-bit RGBA, made with libpng's own
// simplified writer, and a scratch folder per test.
@preconcurrency import Glibc
import CPNG
import Foundation
import ScratchCore

enum TestPNG {
    /// Encodes raw pixels in a libpng simplified format (`cpng_format_*`). For colour-mapped
    /// formats `pixels` are indices and `colormap` holds the entries.
    static func encode(width: Int, height: Int, format: png_uint_32, pixels: UnsafeRawPointer,
                       colormap: [UInt8]? = nil, colormapEntries: Int = 0) -> [UInt8] {
        var png = png_image()
        png.version = cpng_image_version()
        png.width = UInt32(width)
        png.height = UInt32(height)
        png.format = format
        png.colormap_entries = UInt32(colormapEntries)
        defer { png_image_free(&png) }
        var size = 0
        let ok1 = colormap.withOptionalPointer { map in
            png_image_write_to_memory(&png, nil, &size, 0, pixels, 0, map)
        }
        precondition(ok1 != 0 && size > 0, "test PNG encode failed")
        var out = [UInt8](repeating: 0, count: size)
        let ok2 = out.withUnsafeMutableBytes { raw in
            colormap.withOptionalPointer { map in
                png_image_write_to_memory(&png, raw.baseAddress, &size, 0, pixels, 0, map)
            }
        }
        precondition(ok2 != 0, "test PNG encode failed")
        return Array(out.prefix(size))
    }

    static func encode8(width: Int, height: Int, format: png_uint_32, bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { encode(width: width, height: height, format: format, pixels: $0.baseAddress!) }
    }

    /// A PNG's chunk with its CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        var out = bigEndian(UInt32(data.count))
        out += typeBytes + data
        out += bigEndian(crc32(typeBytes + data))
        return out
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    /// CRC-32 as PNG uses it (polynomial 0xEDB88320, reflected).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A PNG whose IHDR declares the given size (8-bit RGBA), with a tiny IDAT and IEND.
    static func header(width: UInt32, height: UInt32) -> [UInt8] {
        let ihdr = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
        // A valid zlib stream of one empty stored block: enough to look like data.
        let idat: [UInt8] = [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]
        return signature + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
    }
}

extension Optional where Wrapped == [UInt8] {
    func withOptionalPointer<R>(_ body: (UnsafeRawPointer?) -> R) -> R {
        switch self {
        case .none: return body(nil)
        case .some(let array): return array.withUnsafeBytes { body($0.baseAddress) }
        }
    }
}

/// A fresh folder under the temporary directory, removed when the test is done.
final class ScratchFolder {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "/scratchimage-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

/// Deterministic pseudo-random bytes (xorshift64*).
struct TestRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next() >> 32) }
}
