@preconcurrency import Glibc
import CCrypto

/// A promotion's secret: the HMAC-SHA256 key that makes and checks its claim codes. It
/// lives in one file only (`scratchcard claim-key new FILE`: 32 random bytes from
/// OpenSSL's RAND_bytes, written as 64 hex digits and a newline, mode 0600), never on a
/// command line, in a log or an event. A file that others may read, or that holds fewer
/// than `minimumBytes`, is refused.
///
///     let key = try ClaimKey(contentsOf: "/etc/scratchcard/claim.key")
///     let code = key.code(forDeal: deal.text)
///     try key.verify(code)          // throws .forged for a code it did not make
public struct ClaimKey: Sendable {
    private let bytes: [UInt8]

    /// Fewer bits than this are refused (128).
    public static let minimumBytes = 16
    /// What `generate` makes (256 bits).
    public static let generatedBytes = 32
    /// A key file larger than this is not a key file.
    static let maximumFileBytes = 4096

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// A new key from the system's secure random source (RAND_bytes).
    public static func generate() throws(ClaimKeyError) -> ClaimKey {
        var bytes = [UInt8](repeating: 0, count: generatedBytes)
        guard RAND_bytes(&bytes, Int32(generatedBytes)) == 1 else {
            throw ClaimKeyError(path: "", message: "the system's random source failed (RAND_bytes)")
        }
        return ClaimKey(bytes: bytes)
    }

    /// The key as its file holds it: hex digits and a newline.
    var fileText: [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// Eight bytes of HMAC of a fixed label, in hex: names the key (a pool records it,
    /// `claim-key new` prints it) without telling anything about it.
    public var fingerprint: String {
        hmac(Array("scratchcard claim key fingerprint v1".utf8)).prefix(8).map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }

    // MARK: codes

    /// The claim code of a deal: its tag (the first 56 bits of the deal id when it is hex,
    /// as `DealID.random()` makes them; else an HMAC of the id) and the key's HMAC of the
    /// tag. The same deal always gives the same code: it can be made again from the deal.
    public func code(forDeal deal: String) -> ClaimCode {
        let tag = Self.tag(of: deal) ?? Array(hmac(Array("scratchcard deal tag v1\0".utf8) + Array(deal.utf8)).prefix(ClaimCode.tagBytes))
        return ClaimCode(payload: tag + mac(of: tag))
    }

    /// Throws `.forged` unless this key made `code` (compared in constant time).
    public func verify(_ code: ClaimCode) throws(ClaimCodeError.Forged) {
        let expected = mac(of: code.tag), given = code.mac
        let same = expected.withUnsafeBytes { e in given.withUnsafeBytes { g in CRYPTO_memcmp(e.baseAddress, g.baseAddress, e.count) } }
        guard same == 0 else { throw ClaimCodeError.Forged() }
    }

    /// The first 56 bits of a hex deal id (at least 14 hex digits), or nil.
    static func tag(of deal: String) -> [UInt8]? {
        let hex = Array(deal.utf8.prefix(2 * ClaimCode.tagBytes))
        guard hex.count == 2 * ClaimCode.tagBytes else { return nil }
        var tag: [UInt8] = []
        for i in stride(from: 0, to: hex.count, by: 2) {
            guard let hi = hexValue(hex[i]), let lo = hexValue(hex[i + 1]) else { return nil }
            tag.append(hi << 4 | lo)
        }
        return tag
    }

    private func mac(of tag: [UInt8]) -> [UInt8] {
        Array(hmac(Array("scratchcard claim v1\0".utf8) + tag).prefix(ClaimCode.macBytes))
    }

    private func hmac(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = bytes.withUnsafeBufferPointer { key in
            data.withUnsafeBufferPointer { d in
                scratchcard_hmac_sha256(key.baseAddress, Int32(key.count), d.baseAddress, d.count, &out)
            }
        }
        // HMAC-SHA256 fails only without memory: nothing sensible goes on from there.
        precondition(ok == 1, "HMAC-SHA256 failed")
        return out
    }
}

func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}

extension ClaimCodeError {
    /// A well-formed code this key did not make: forged, or another promotion's.
    public struct Forged: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String { "not a valid code" }
    }
}

/// Why a key file cannot be used or made; always the user's to fix (exit 2).
public struct ClaimKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let message: String
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
