import Foundation
@testable import Claims
import Testing

/// The claimcode fuzz target's seeds and kept findings (Fuzz/claimcode), replayed with
/// its checks: accepted codes read back and refuse every slip; refusals have a message.
@Suite("Fuzz/claimcode replayed")
struct ClaimCodeFuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/claimcode")

    @Test("every seed and kept finding: valid-* seeds accepted and checked, the rest refused with a message")
    func replay() throws {
        var files: [URL] = []
        for kind in ["corpus", "regressions"] {
            files += (try? FileManager.default.contentsOfDirectory(at: Self.folder.appendingPathComponent(kind), includingPropertiesForKeys: nil)) ?? []
        }
        #expect(files.count >= 8)
        for file in files where !file.lastPathComponent.hasPrefix(".") {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            do {
                let code = try ClaimCode(parsing: text)
                #expect(file.lastPathComponent.hasPrefix("valid-") || file.deletingLastPathComponent().lastPathComponent == "regressions",
                        "\(file.lastPathComponent) was accepted")
                #expect(try ClaimCode(parsing: code.grouped) == code)
                let plain = Array(code.text.utf8)
                for i in plain.indices {
                    for c in ClaimCode.alphabet where c != plain[i] {
                        var changed = plain
                        changed[i] = c
                        #expect(throws: ClaimCodeError.checkMismatch) { try ClaimCode(parsing: String(decoding: changed, as: UTF8.self)) }
                    }
                }
            } catch {
                #expect(!file.lastPathComponent.hasPrefix("valid-"), "\(file.lastPathComponent): \(error)")
                #expect(!error.description.isEmpty)
            }
        }
    }
}
