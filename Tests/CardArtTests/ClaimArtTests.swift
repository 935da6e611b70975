import Foundation
@preconcurrency import Glibc
import CardArt
import Claims
import QRCode
import CardRules
import ScratchCore
import ScratchImage
import Testing
import TestRequirementTrait

/// The claim drawn on a prize and on a printed ticket, read back as a phone would:
/// zbarimg (zbar-tools) on the pixels, pdftoppm (poppler-utils) for the PDF.
@Suite struct ClaimArtTests {
    static func mark() throws -> (ClaimMark, ClaimCode) {
        let code = try ClaimKey.generate().code(forDeal: DealID.random().text)
        let qr = try QRCode(encoding: code.grouped)
        return (ClaimMark(code: code.grouped, qrModules: qr.modules, qrWidth: qr.width), code)
    }

    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "claimart-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test("the claim on the built-in prize and on a photo: the QR decodes to the code, its modules whole pixels, the prize still above",
          .requires(Requirement.zbarimg))
    func onThePrize() throws {
        let (mark, code) = try Self.mark()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, prize) in [("builtin", CardArt.prize(size: CardArt.designSize)),
                              ("photo", RGBAImage(size: PixelSize(width: 1280, height: 720), filledWith: RGBA(r: 30, g: 90, b: 200)))] {
            let claimed = CardArt.claimed(prize, claim: mark)
            #expect(claimed.size == prize.size)
            #expect(claimed[5, 5] == prize[5, 5])                          // the prize's top stays
            #expect(claimed[claimed.width - 3, claimed.height - 3] == .white)  // the band
            let path = "\(dir)/\(name).png"
            try PNGFile.write(claimed, to: path)
            let read = try Self.run("/usr/bin/zbarimg", ["--quiet", "--raw", path])
            #expect(read.status == 0 && read.out.trimmingCharacters(in: .whitespacesAndNewlines) == code.grouped, "\(name): \(read)")
        }
    }

    @Test("the ticket is a one-page PDF whose QR decodes to the code",
          .requires(Requirement.first(Requirement.zbarimg, Requirement.pdftoppm)))
    func ticket() throws {
        let (mark, code) = try Self.mark()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pdf = try #require(CardArt.ticketPDF(ClaimTicket(prize: CardArt.prize(size: CardArt.designSize), title: "bike", claim: mark,
                                                             kiosk: "hall-1", time: "2026-12-02T16:00:00Z")))
        #expect(pdf.starts(with: Array("%PDF-".utf8)))
        try Data(pdf).write(to: URL(fileURLWithPath: dir + "/ticket.pdf"))
        #expect(try Self.run("/usr/bin/pdftoppm", ["-r", "150", "-png", dir + "/ticket.pdf", dir + "/page"]).status == 0)
        let pages = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("page") }
        #expect(pages.count == 1)
        let read = try Self.run("/usr/bin/zbarimg", ["--quiet", "--raw", dir + "/" + (pages.first ?? "")])
        #expect(read.out.trimmingCharacters(in: .whitespacesAndNewlines) == code.grouped, "\(read)")
        let text = try Self.run("/usr/bin/pdftotext", [dir + "/ticket.pdf", "-"]).out
        #expect(text.contains(code.grouped) && text.contains("hall-1") && text.contains("bike"), "\(text)")
    }
}
