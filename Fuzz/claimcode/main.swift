// libFuzzer target: claim codes as a counter reads them (`scratchcard redeem CODE`, a
// barcode scanner's lines): ClaimCode(parsing:) in Sources/Claims/ClaimCode.swift, the
// pure-Swift part of the claims room (no key: the MAC is checked by ClaimKey, with
// libcrypto). Built by scripts/fuzz.sh claimcode; see FUZZING.md. The checks: no crash
// or hang; an accepted code is 25 characters of the alphabet, reads back as itself from
// its plain and grouped forms, and every one of its characters changed, and every two
// different ones swapped, is refused by the check character; a refusal has a message.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClaimCode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data!, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    checkClaimCode(text)
    return 0
}

func checkClaimCode(_ text: String) {
    do {
        let code = try ClaimCode(parsing: text)
        let plain = Array(code.text.utf8)
        precondition(plain.count == ClaimCode.length && plain.allSatisfy { ClaimCode.alphabet.contains($0) })
        precondition((try? ClaimCode(parsing: code.text)) == code, "the plain form does not read back")
        precondition((try? ClaimCode(parsing: code.grouped)) == code, "the grouped form does not read back")
        precondition((try? ClaimCode(parsing: code.grouped.lowercased())) == code, "lower case does not read back")
        for i in plain.indices {
            var changed = plain
            changed[i] = ClaimCode.alphabet[(Int(ClaimCode.value(of: plain[i])!) + 1 + i % 31) % 32]
            if changed[i] != plain[i] {
                precondition((try? ClaimCode(parsing: String(decoding: changed, as: UTF8.self))) == nil, "a changed character passed the check")
            }
            for j in (i + 1)..<plain.count where plain[j] != plain[i] {
                var swapped = plain
                swapped.swapAt(i, j)
                precondition((try? ClaimCode(parsing: String(decoding: swapped, as: UTF8.self))) == nil, "a swap passed the check")
            }
        }
    } catch {
        precondition(!error.description.isEmpty)
    }
}
