/// A claim code as a person reads, types or scans it: 25 characters from an alphabet
/// without look-alikes, shown in five groups of five (`K7Q2M-0TXH4-9CVBD-W3R8P-6GJZE`).
///
/// The 24 payload characters carry 120 bits: the deal's tag (56 bits, `ClaimCode.tagBytes`:
/// the start of the deal id) and the promotion key's HMAC-SHA256 of it truncated to 64 bits
/// (`ClaimCode.macBytes`; made and checked by `ClaimKey`). The 25th is a check character
/// over GF(32): any one character changed, and any two characters swapped (adjacent or
/// not), changes the check, so typing slips are told apart from forged codes.
///
/// Reading (`ClaimCode(parsing:)`) forgives what a person does: lower case, white space and
/// dashes anywhere, `O` for zero and `I`/`L` for one (the alphabet has none of the three).
/// Pure Swift: no key is needed to read a code or check its check character.
///
///     let code = try ClaimCode(parsing: "k7q2m 0txh4-9cvbd w3r8p 6gjze")
///     print(code.grouped)
public struct ClaimCode: Hashable, Sendable, CustomStringConvertible {
    /// The payload: `tagBytes` of the deal's tag, then `macBytes` of the MAC.
    public let payload: [UInt8]

    /// Crockford's base 32: digits and capitals without I, L, O, U.
    public static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    public static let tagBytes = 7
    public static let macBytes = 8
    /// 120 bits make 24 characters of 5 bits; one more is the check.
    public static let payloadCharacters = 24
    public static let length = payloadCharacters + 1

    /// The code for this payload (`tagBytes + macBytes` bytes).
    public init(payload: [UInt8]) {
        precondition(payload.count == Self.tagBytes + Self.macBytes, "a claim code's payload is 15 bytes")
        self.payload = payload
    }

    /// The deal's tag the code carries.
    public var tag: [UInt8] { Array(payload[..<Self.tagBytes]) }
    /// The truncated MAC the code carries.
    public var mac: [UInt8] { Array(payload[Self.tagBytes...]) }

    /// The 25 characters, no separators: the form stores and QR codes keep.
    public var text: String { String(decoding: Self.characters(of: payload), as: UTF8.self) }

    /// Five groups of five joined by dashes: the form shown and printed.
    public var grouped: String {
        let plain = Self.characters(of: payload)
        var out: [UInt8] = []
        for (i, c) in plain.enumerated() {
            if i > 0 && i % 5 == 0 { out.append(UInt8(ascii: "-")) }
            out.append(c)
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { grouped }

    /// Reads a code as typed or scanned. Throws `ClaimCodeError` naming what is wrong: a
    /// character outside the alphabet, the wrong length, or a check character that does
    /// not match (a slip: one character mistyped, or two swapped).
    public init(parsing input: String) throws(ClaimCodeError) {
        let bytes = Array(input.utf8)
        guard bytes.count <= 200 else { throw .wrongLength(found: bytes.count) }
        var values: [UInt8] = []
        values.reserveCapacity(Self.length)
        for (position, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "\t")
                || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { continue }
            guard let value = Self.value(of: byte) else {
                throw .badCharacter(Self.shown(input, at: position), position: position + 1)
            }
            values.append(value)
        }
        guard values.count == Self.length else { throw .wrongLength(found: values.count) }
        guard Self.checkSum(values) == 0 else { throw .checkMismatch }
        payload = Self.unpack(Array(values[..<Self.payloadCharacters]))
    }

    // MARK: the alphabet

    /// A character's 5-bit value, upper or lower case, with O read as 0 and I, L as 1.
    static func value(of byte: UInt8) -> UInt8? {
        var c = byte
        if c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z") { c -= 32 }
        switch c {
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        default: return alphabetIndex[Int(c)]
        }
    }

    private static let alphabetIndex: [UInt8?] = {
        var table = [UInt8?](repeating: nil, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// The character at a byte offset of the input, for a message (a multi-byte
    /// character shown whole, an unprintable byte as its code).
    private static func shown(_ input: String, at offset: Int) -> String {
        let utf8 = input.utf8
        let index = utf8.index(utf8.startIndex, offsetBy: offset)
        if let scalarIndex = index.samePosition(in: input.unicodeScalars) {
            let scalar = input.unicodeScalars[scalarIndex]
            if scalar.value >= 0x21 && scalar.value != 0x7f && !(0x80..<0xa0).contains(scalar.value) { return String(scalar) }
            return "U+" + String(scalar.value, radix: 16, uppercase: true)
        }
        return "byte " + String(utf8[index], radix: 16)
    }

    // MARK: packing

    /// The characters of a payload: 24 of 5 bits each, most significant first, then the check.
    static func characters(of payload: [UInt8]) -> [UInt8] {
        var values: [UInt8] = []
        var buffer = 0, bits = 0
        for byte in payload {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                values.append(UInt8((buffer >> (bits - 5)) & 31))
                bits -= 5
            }
            buffer &= (1 << bits) - 1
        }
        values.append(check(for: values))
        return values.map { alphabet[Int($0)] }
    }

    static func unpack(_ values: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = 0, bits = 0
        for value in values {
            buffer = (buffer << 5) | Int(value)
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> (bits - 8)) & 0xff))
                bits -= 8
            }
            buffer &= (1 << bits) - 1
        }
        return bytes
    }

    // MARK: the check character

    /// The check makes Σ αⁱ·vᵢ = 0 over GF(32) for all 25 values, α a primitive element
    /// (order 31 > 25): one changed value adds e·αⁱ ≠ 0; two swapped values add
    /// (a+b)(αⁱ+αʲ) ≠ 0 for a ≠ b, i ≠ j. Both are always caught.
    static func check(for values: [UInt8]) -> UInt8 {
        // Σ_{i<24} αⁱvᵢ + α²⁴c = 0  ⇒  c = S·α⁻²⁴ (addition is XOR, so −S = S).
        var sum: UInt8 = 0
        for (i, v) in values.enumerated() { sum ^= GF32.multiply(v, GF32.power(i)) }
        return GF32.multiply(sum, GF32.power(31 - payloadCharacters))
    }

    static func checkSum(_ values: [UInt8]) -> UInt8 {
        var sum: UInt8 = 0
        for (i, v) in values.enumerated() { sum ^= GF32.multiply(v, GF32.power(i)) }
        return sum
    }
}

/// GF(2⁵) with the primitive polynomial x⁵ + x² + 1; α = x (the value 2).
enum GF32 {
    static let exp: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 31)
        var x: UInt8 = 1
        for i in 0..<31 {
            table[i] = x
            x <<= 1
            if x & 32 != 0 { x ^= 0b100101 }
        }
        return table
    }()
    static let log: [Int] = {
        var table = [Int](repeating: 0, count: 32)
        for (i, v) in exp.enumerated() { table[Int(v)] = i }
        return table
    }()

    static func power(_ n: Int) -> UInt8 { exp[((n % 31) + 31) % 31] }

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exp[(log[Int(a)] + log[Int(b)]) % 31]
    }
}

/// Why a text is not a claim code.
public enum ClaimCodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A character outside the alphabet (position counted from 1 in the input).
    case badCharacter(String, position: Int)
    /// Not 25 characters once spaces and dashes are taken out.
    case wrongLength(found: Int)
    /// The check character does not match: a slip in typing.
    case checkMismatch

    public var description: String {
        switch self {
        case let .badCharacter(c, position):
            return "not a claim code: '\(c)' (character \(position)) is not one of its letters and digits (0-9, A-Z without I, L, O, U)"
        case let .wrongLength(found):
            return "not a claim code: it has \(ClaimCode.length) letters and digits (dashes and spaces aside), this one \(found)"
        case .checkMismatch:
            return "not a valid code: its check character does not match (a character mistyped, or two swapped?); read it again"
        }
    }
}
