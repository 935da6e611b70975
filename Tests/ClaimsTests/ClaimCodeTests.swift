import Foundation
@testable import Claims
import Testing

@Suite("Claim codes: alphabet, check character, parsing")
struct ClaimCodeTests {
    static func randomCode() -> ClaimCode {
        var rng = SystemRandomNumberGenerator()
        return ClaimCode(payload: (0..<15).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    @Test("a code reads back as itself, grouped or plain")
    func roundTrip() throws {
        for _ in 0..<200 {
            let code = Self.randomCode()
            #expect(code.text.count == 25)
            #expect(code.grouped.count == 29)
            #expect(try ClaimCode(parsing: code.text) == code)
            #expect(try ClaimCode(parsing: code.grouped) == code)
        }
    }

    @Test("lower case, spaces and dashes anywhere, O for 0 and I/L for 1 are read")
    func forgiving() throws {
        // 8 zeros then 16 ones (5-bit groups 00001), and the check.
        let code = ClaimCode(payload: [0, 0, 0, 0, 0] + [0x08, 0x42, 0x10, 0x84, 0x21] + [0x08, 0x42, 0x10, 0x84, 0x21])
        #expect(code.text.hasPrefix("00000000" + String(repeating: "1", count: 16)))
        let text = code.grouped
        #expect(try ClaimCode(parsing: text.lowercased()) == code)
        #expect(try ClaimCode(parsing: " " + text.replacingOccurrences(of: "-", with: " ") + " ") == code)
        #expect(try ClaimCode(parsing: "-" + text.replacingOccurrences(of: "-", with: "") + "--") == code)
        #expect(try ClaimCode(parsing: text.replacingOccurrences(of: "0", with: "o").replacingOccurrences(of: "1", with: "l")) == code)
        #expect(try ClaimCode(parsing: text.replacingOccurrences(of: "1", with: "I")) == code)
    }

    @Test("every single character changed is caught by the check")
    func everySubstitutionCaught() throws {
        for _ in 0..<20 {
            let plain = Array(Self.randomCode().text.utf8)
            for i in plain.indices {
                for c in ClaimCode.alphabet where c != plain[i] {
                    var changed = plain
                    changed[i] = c
                    #expect(throws: ClaimCodeError.checkMismatch) { try ClaimCode(parsing: String(decoding: changed, as: UTF8.self)) }
                }
            }
        }
    }

    @Test("every two different characters swapped, adjacent or not, are caught")
    func everyTranspositionCaught() throws {
        for _ in 0..<20 {
            let plain = Array(Self.randomCode().text.utf8)
            for i in plain.indices {
                for j in plain.indices where j > i && plain[i] != plain[j] {
                    var swapped = plain
                    swapped.swapAt(i, j)
                    #expect(throws: ClaimCodeError.checkMismatch) { try ClaimCode(parsing: String(decoding: swapped, as: UTF8.self)) }
                }
            }
        }
    }

    @Test("the wrong length and foreign characters are named")
    func badInput() {
        let code = Self.randomCode().text
        #expect(throws: ClaimCodeError.wrongLength(found: 24)) { try ClaimCode(parsing: String(code.dropLast())) }
        #expect(throws: ClaimCodeError.wrongLength(found: 26)) { try ClaimCode(parsing: code + "7") }
        #expect(throws: ClaimCodeError.wrongLength(found: 0)) { try ClaimCode(parsing: "") }
        #expect(throws: ClaimCodeError.badCharacter("U", position: 3)) { try ClaimCode(parsing: "AbU" + code) }
        #expect(throws: ClaimCodeError.badCharacter("é", position: 1)) { try ClaimCode(parsing: "é") }
        #expect(throws: ClaimCodeError.badCharacter("U+7", position: 2)) { try ClaimCode(parsing: "A\u{7}B") }
        #expect(throws: ClaimCodeError.wrongLength(found: 201)) { try ClaimCode(parsing: String(repeating: "A", count: 201)) }
        #expect(ClaimCodeError.checkMismatch.description.contains("check character"))
    }

    @Test("GF(32): α has order 31, so positions 0 to 24 have distinct weights")
    func field() {
        #expect(Set(GF32.exp).count == 31)
        #expect(GF32.power(31) == 1)
        for a in UInt8(1)...31 {
            #expect(GF32.multiply(a, GF32.exp[(31 - GF32.log[Int(a)]) % 31]) == 1)
        }
    }
}
