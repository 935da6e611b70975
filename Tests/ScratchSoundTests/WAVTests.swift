import Foundation
import Testing
@testable import ScratchSound

/// WAV files: every supported layout decodes to mono at 48 kHz; bad files are errors
/// naming the file, whatever their sizes claim.
struct WAVTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fuzz/wav/corpus").standardized

    @Test("the seeds (u8, s16 stereo, s24, s32, f32, f64, extensible 3-channel; 8 to 96 kHz) decode at 48 kHz to their full-scale tone",
          arguments: ["u8-mono-8k.wav", "s16-stereo-44k.wav", "s24-mono-48k.wav", "s32-mono-96k.wav", "f32-mono-22k.wav",
                      "f64-mono-8k.wav", "s16-3ch-extensible.wav"])
    func seeds(name: String) throws {
        let path = Self.corpus.appendingPathComponent(name).path
        let clip = try WAVFile.load(path: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(clip.samples.count > 48 && clip.samples.count < bytes.count * 48)
        let peak = clip.samples.map { abs($0) }.max() ?? 0
        #expect(peak > 0.5 && peak <= 1, "\(name): peak \(peak)")
    }

    @Test("the fuzz target's seeds and regressions: a clip in -1...1 or an error naming the file")
    func fuzzFiles() throws {
        for kind in ["corpus", "regressions"] {
            let folder = Self.corpus.deletingLastPathComponent().appendingPathComponent(kind)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
                let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
                do {
                    let clip = try WAVFile.decode(bytes, path: name)
                    #expect(!clip.samples.isEmpty && clip.samples.allSatisfy { $0.isFinite && abs($0) <= 1 }, "\(kind)/\(name)")
                } catch {
                    #expect(error.path == name && !error.message.isEmpty)
                }
            }
        }
    }

    static func wav(format: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 8000, bits: UInt16 = 16,
                    blockAlign: UInt16? = nil, dataBytes: [UInt8] = [0, 0, 0, 0], dataSize: UInt32? = nil) -> [UInt8] {
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8)] }
        func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }
        let align = blockAlign ?? channels * bits / 8
        let fmt = le16(format) + le16(channels) + le32(rate) + le32(rate * UInt32(align)) + le16(align) + le16(bits)
        let body = Array("WAVE".utf8) + Array("fmt ".utf8) + le32(16) + fmt + Array("data".utf8)
            + le32(dataSize ?? UInt32(dataBytes.count)) + dataBytes
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }

    static let badFileCases: [([UInt8], String)] = [
        (Array("not a wav at all".utf8), "not a WAV file"),
        (wav(format: 2), "format 2 is not supported"),
        (wav(bits: 12), "12-bit PCM"),
        (wav(channels: 0, blockAlign: 0), "0 channels"),
        (wav(channels: 9), "9 channels"),
        (wav(rate: 500_000), "500000 samples per second"),
        (wav(blockAlign: 3), "block align 3"),
        (wav(dataBytes: []), "no samples"),
        (wav(dataSize: 0x7FFF_FFF0), "claims 2147483632 bytes"),
        (Array(wav().prefix(36)), "no 'data' chunk"),
        (Array("RIFF".utf8) + [12, 0, 0, 0] + Array("WAVEdata".utf8) + [0, 0, 0, 0], "no 'fmt ' chunk"),
    ]

    @Test("bad files: an error naming the file and the problem", arguments: badFileCases)
    func badFiles(bytes: [UInt8], message: String) {
        do {
            _ = try WAVFile.decode(bytes, path: "/x/bad.wav")
            Issue.record("accepted")
        } catch {
            #expect(error.path == "/x/bad.wav")
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test("longer than 30 s is refused; 30 s of 8 kHz is not")
    func duration() throws {
        let long = Self.wav(bits: 8, dataBytes: [UInt8](repeating: 128, count: 8000 * 31))
        #expect(throws: WAVError.self) { try WAVFile.decode(long, path: "long.wav") }
        let ok = try WAVFile.decode(Self.wav(bits: 8, dataBytes: [UInt8](repeating: 128, count: 8000 * 30)), path: "ok.wav")
        #expect(ok.samples.count == 48_000 * 30)
    }

    @Test("a missing file, a folder: errors naming them")
    func paths() {
        #expect(throws: WAVError(path: "/nonexistent/x.wav", message: "cannot open the sound file (missing or not accessible)")) {
            try WAVFile.load(path: "/nonexistent/x.wav")
        }
        #expect(throws: WAVError(path: "/tmp", message: "not a regular file")) { try WAVFile.load(path: "/tmp") }
    }
}
