import Foundation
@testable import ScratchImage
import ScratchCore
import Testing

/// The PNG fuzzer's inputs, replayed by the normal suite (FUZZING.md): the seeds in
/// `Fuzz/png/corpus` and the inputs kept in `Fuzz/png/regressions`, each decoded as it
/// is and with its chunk CRCs recomputed, as the fuzz target does. Each decodes to a
/// well-formed image or is refused with a message, quickly, and never allocates
/// pixels for a claimed size the file is too small to hold.
@Suite("PNG fuzz corpus and regressions replayed")
struct PNGFuzzRegressionTests {
    @Test("every seed decodes", arguments: ImageFuzzRegressionTests.inputs("png", "corpus"))
    func seedDecodes(file: URL) throws {
        let image = try PNGFile.read(path: file.path)
        #expect(image.bytes.count == image.width * image.height * 4)
    }

    @Test("kept inputs: decoded or refused, quickly, as they are and with CRCs fixed", arguments: ["corpus", "regressions"])
    func replay(kind: String) throws {
        for file in ImageFuzzRegressionTests.inputs("png", kind) {
            let raw = [UInt8](try Data(contentsOf: file))
            for bytes in [raw, PNGFile.withChunkCRCsRecomputed(raw)] {
                expectDecodedOrRefused(file, named: "fuzz.png") { try PNGFile.decode(bytes, name: "fuzz.png") }
            }
        }
    }

    @Test("a 60-byte file claiming 16384x16384 is refused before the pixels are allocated")
    func hugeClaimRefused() throws {
        for (depth, colour) in [(UInt8(8), UInt8(6)), (16, 6), (1, 0)] {
            var bytes = PNGFile.signature
            let ihdr: [UInt8] = [0, 0, 0x40, 0, 0, 0, 0x40, 0, depth, colour, 0, 0, 0]
            bytes += [0, 0, 0, 13] + Array("IHDR".utf8) + ihdr + [0, 0, 0, 0]
            bytes += [0, 0, 0, 10] + Array("IDAT".utf8) + [0x78, 0x9C, 0x63, 0, 0, 0, 0, 1, 0, 1] + [0, 0, 0, 0]
            bytes += [0, 0, 0, 0] + Array("IEND".utf8) + [0, 0, 0, 0]
            bytes = PNGFile.withChunkCRCsRecomputed(bytes)
            let before = residentBytes()
            #expect {
                try PNGFile.decode(bytes, name: "huge.png")
            } throws: { error in
                (error as? ImageError)?.problem.contains("too few to hold it") == true
            }
            #expect(residentBytes() - before < 64 << 20)
        }
    }

    @Test("a chunk whose length runs past the end is refused before libpng allocates that length (fuzzer find: oom, 2 GB)")
    func chunkLengthPastTheEnd() throws {
        let raw = [UInt8](try Data(contentsOf: ImageFuzzRegressionTests.fuzzFolder.appendingPathComponent("png/regressions/oom-itxt-length-2gb.png")))
        let error = #expect(throws: ImageError.self) { try PNGFile.decode(raw, name: "oom.png") }
        #expect(error?.problem.hasPrefix("truncated PNG") == true, "\(String(describing: error))")
        #expect(error?.problem.contains("claims 1950960965 bytes") == true, "\(String(describing: error))")
        // A length over 2^31 - 1 is damage, not truncation.
        var bytes = try PNGFile.encode(RGBAImage(size: PixelSize(width: 2, height: 2), filledWith: .white))
        bytes[33] = 0x80
        let damaged = #expect(throws: ImageError.self) { try PNGFile.decode(bytes, name: "big.png") }
        #expect(damaged?.problem.hasPrefix("damaged PNG") == true, "\(String(describing: damaged))")
    }

    func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else { return 0 }
        return kb * 1024
    }
}

