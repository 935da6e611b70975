import Foundation
@preconcurrency import Glibc
@testable import Claims
import Testing

@Suite("Claim keys: codes made and checked, key files")
struct ClaimKeyTests {
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "claimkey-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test("a code is the deal's, the same each time, and checks only under its key")
    func codesAndKeys() throws {
        let key = try ClaimKey.generate(), other = try ClaimKey.generate()
        let deal = "0123456789abcdef0123456789abcdef"
        let code = key.code(forDeal: deal)
        #expect(code == key.code(forDeal: deal))
        #expect(code.tag == [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd])
        try key.verify(code)
        #expect(throws: ClaimCodeError.Forged.self) { try other.verify(code) }
        #expect(other.code(forDeal: deal) != code)
        // A non-hex deal id still gets a code, checked the same way.
        let odd = key.code(forDeal: "not-hex-at-all")
        try key.verify(odd)
        // Every MAC bit matters: each one flipped is refused.
        for bit in 0..<(8 * ClaimCode.macBytes) {
            var payload = code.payload
            payload[ClaimCode.tagBytes + bit / 8] ^= UInt8(1 << (bit % 8))
            #expect(throws: ClaimCodeError.Forged.self) { try key.verify(ClaimCode(payload: payload)) }
        }
        // So does the tag: another deal's tag with this MAC is refused.
        var payload = code.payload
        payload[0] ^= 1
        #expect(throws: ClaimCodeError.Forged.self) { try key.verify(ClaimCode(payload: payload)) }
        #expect(key.fingerprint.count == 16 && key.fingerprint != other.fingerprint)
    }

    @Test("claim-key files: 0600, never overwritten, read back; loose modes, short and bad keys refused")
    func files() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/claim.key"
        let made = try ClaimKey.createFile(at: path)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.count == 65 && text.hasSuffix("\n"))
        let read = try ClaimKey(contentsOf: path)
        #expect(read.fingerprint == made.fingerprint)
        #expect(read.code(forDeal: "00112233445566778899aabbccddeeff") == made.code(forDeal: "00112233445566778899aabbccddeeff"))
        // Never overwritten.
        #expect(throws: ClaimKeyError.self) { try ClaimKey.createFile(at: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["claim.key"])
        // Readable by the group: refused, naming the mode.
        chmod(path, 0o640)
        #expect { try ClaimKey(contentsOf: path) } throws: { ($0 as? ClaimKeyError)?.message.contains("mode 640") == true }
        chmod(path, 0o604)
        #expect(throws: ClaimKeyError.self) { try ClaimKey(contentsOf: path) }
        // Too short, not hex, missing.
        let short = dir + "/short.key"
        try #require(FileManager.default.createFile(atPath: short, contents: Data("00112233445566778899aabbccddee\n".utf8), attributes: [.posixPermissions: 0o600]))
        #expect { try ClaimKey(contentsOf: short) } throws: { ($0 as? ClaimKeyError)?.message.contains("too short") == true }
        let bad = dir + "/bad.key"
        try #require(FileManager.default.createFile(atPath: bad, contents: Data(String(repeating: "zz", count: 32).utf8), attributes: [.posixPermissions: 0o600]))
        #expect { try ClaimKey(contentsOf: bad) } throws: { ($0 as? ClaimKeyError)?.message.contains("hex") == true }
        #expect { try ClaimKey(contentsOf: dir + "/missing.key") } throws: { ($0 as? ClaimKeyError)?.message.contains("no claim key") == true }
        #expect { try ClaimKey(contentsOf: dir) } throws: { $0 is ClaimKeyError }
    }
}
