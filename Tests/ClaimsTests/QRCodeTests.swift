import Foundation
@testable import Claims
import QRCode
import CardRules
import ScratchCore
import ScratchImage
import Testing
import TestRequirementTrait

@Suite("QR codes of claim codes, read back by zbarimg")
struct QRCodeTests {
    @Test("a claim code's QR image decodes to the code", .requires(Requirement.zbarimg))
    func readBack() throws {
        let key = try ClaimKey.generate()
        let code = key.code(forDeal: DealIDText.random())
        let qr = try QRCode(encoding: code.grouped)
        #expect(qr.width >= 21)
        let image = qr.image(moduleSize: 4)
        #expect(image.width == (qr.width + 8) * 4)
        let path = NSTemporaryDirectory() + "qr-\(getpid())-\(UUID().uuidString).png"
        defer { unlink(path) }
        try PNGFile.write(image, to: path)
        let zbar = Process()
        zbar.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        zbar.arguments = ["--quiet", "--raw", path]
        let out = Pipe()
        zbar.standardOutput = out
        try zbar.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        zbar.waitUntilExit()
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == code.grouped)
        #expect(try ClaimCode(parsing: text.trimmingCharacters(in: .whitespacesAndNewlines)) == code)
    }
}

enum DealIDText {
    static func random() -> String { DealID.random().text }
}
