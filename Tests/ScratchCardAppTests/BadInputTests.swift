import Foundation
import Testing
import ScratchCore
import ScratchImage

/// Bad input: exit code 2, a message naming the file or option and the problem, quickly,
/// and before any display is touched.
struct BadInputTests {
    static func folderWithBadFiles() throws -> URL {
        let folder = try App.scratchFolder()
        try Data("this is not a picture\n".utf8).write(to: folder.appendingPathComponent("text.png"))
        let good = try PNGFile.encode(RGBAImage(size: PixelSize(width: 64, height: 64), filledWith: .white))
        try Data(good.prefix(good.count / 2)).write(to: folder.appendingPathComponent("truncated.png"))
        try Data(hugePNGHeader()).write(to: folder.appendingPathComponent("huge.png"))
        return folder
    }

    /// A PNG signature and an IHDR chunk declaring 100000 x 100000 RGBA, with a true CRC.
    static func hugePNGHeader() -> [UInt8] {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        let body: [UInt8] = Array("IHDR".utf8) + be32(100_000) + be32(100_000) + [8, 6, 0, 0, 0]
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return [137, 80, 78, 71, 13, 10, 26, 10] + be32(13) + body + be32(crc ^ 0xFFFF_FFFF)
    }

    @Test("bad files and options: exit 2 with a message naming them", arguments: [
        (["--cover", "FOLDER/missing.png"], "missing.png"),
        (["--prize", "FOLDER/text.png"], "text.png"),
        (["--cover", "FOLDER/truncated.png"], "truncated.png"),
        (["--cover", "FOLDER/huge.png"], "huge.png"),
        (["--brush", "-5"], "--brush"),
        (["--brush", "nan"], "--brush"),
        (["--size", "0x0"], "--size"),
        (["--size", "100"], "--size"),
        (["--scale", "0"], "--scale"),
        (["--frobnicate"], "--frobnicate"),
        (["--cover"], "--cover"),
        (["render", "--trace", "FOLDER/missing.trace", "--out", "FOLDER/x.png"], "missing.trace"),
        (["render", "--trace", "FOLDER/text.png", "--out", "FOLDER/x.png"], "text.png:1"),
        (["render", "--out", "FOLDER/x.png"], "--trace"),
    ])
    func badInput(arguments: [String], named: String) throws {
        let folder = try Self.folderWithBadFiles()
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date()
        let result = try runToExit(arguments.map { $0.replacingOccurrences(of: "FOLDER", with: folder.path) })
        #expect(result.status == 2, "\(arguments): \(result.err)")
        #expect(result.err.contains(named), "\(result.err)")
        #expect(result.err.hasPrefix("scratchcard: "))
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.png").path))
    }

    @Test func helpAndVersionGoToStandardOutput() throws {
        let help = try runToExit(["--help"])
        #expect(help.status == 0 && help.out.contains("usage: scratchcard") && help.out.contains("--no-shm") && help.err.isEmpty)
        let version = try runToExit(["--version"])
        #expect(version.status == 0 && version.out.hasPrefix("scratchcard "))
    }

    @Test("no display: exit 1 with a message, not a crash")
    func noDisplay() throws {
        let result = try runToExit([])
        #expect(result.status == 1, "\(result.err)")
        #expect(result.err.contains(":9999"), "\(result.err)")
    }

    @Test("render replays a trace onto the built-in card with no display")
    func renderBuiltInCard() throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = Trace(canvas: PixelSize(width: 320, height: 200),
                          records: [.brush(12), .down(Point(x: 20, y: 100)), .move(Point(x: 300, y: 100)), .up])
        let tracePath = folder.appendingPathComponent("t.trace").path
        try trace.serialized().write(toFile: tracePath, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("card.png").path
        let result = try runToExit(["render", "--trace", tracePath, "--out", out])
        #expect(result.status == 0, "\(result.err)")
        let image = try ScratchImageReader.read(out)
        #expect(image.size == trace.canvas)
        // Along the stroke the card differs from the untouched cover beside it.
        #expect(image[160, 100] != image[160, 20])
    }
}

/// Reads a PNG for comparison.
enum ScratchImageReader {
    static func read(_ path: String) throws -> RGBAImage { try PNGFile.read(path: path) }
}
