// Rewrites the CRC of every whole chunk after the signature, so that mutated chunks
// pass libpng's CRC check and reach its parsers. The same transformation is in
// Tests/ScratchImageTests/FuzzRegressionTests.swift, which replays inputs both ways.
enum PNGChunkCRC {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func fixed(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        var at = 8
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let end = at + 8 + length
            guard length >= 0, end + 4 <= bytes.count else { break }
            var c: UInt32 = 0xFFFF_FFFF
            for i in (at + 4)..<end { c = table[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8) }
            c ^= 0xFFFF_FFFF
            bytes[end] = UInt8(c >> 24); bytes[end + 1] = UInt8((c >> 16) & 0xFF)
            bytes[end + 2] = UInt8((c >> 8) & 0xFF); bytes[end + 3] = UInt8(c & 0xFF)
            at = end + 4
        }
        return bytes
    }
}
