import Foundation
@testable import ScratchImage
import ScratchCore
import Testing

/// The JPEG and WebP fuzzers' inputs, replayed by the normal suite (FUZZING.md): the
/// seeds in `Fuzz/{jpeg,webp}/corpus` and the inputs kept in `regressions`. Each decodes
/// to a well-formed image within the limits or is refused with a message naming it,
/// quickly.
@Suite("JPEG and WebP fuzz corpora and regressions replayed")
struct ImageFuzzRegressionTests {
    /// The repository's Fuzz folder, found from this file's path (the PNG suite's too).
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The files of `Fuzz/<target>/<kind>`, sorted; none when the folder is missing.
    static func inputs(_ target: String, _ kind: String) -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(target).appendingPathComponent(kind)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test("every JPEG seed decodes", arguments: inputs("jpeg", "corpus"))
    func jpegSeedDecodes(file: URL) throws {
        let image = try ImageFile.read(path: file.path)
        #expect(image.bytes.count == image.width * image.height * 4)
    }

    @Test("every WebP seed decodes", arguments: inputs("webp", "corpus"))
    func webpSeedDecodes(file: URL) throws {
        let image = try ImageFile.read(path: file.path)
        #expect(image.bytes.count == image.width * image.height * 4)
    }

    @Test("kept inputs: decoded or refused, quickly", arguments: [("jpeg", "corpus"), ("jpeg", "regressions"), ("webp", "corpus"), ("webp", "regressions")])
    func replay(target: String, kind: String) throws {
        for file in Self.inputs(target, kind) {
            let raw = [UInt8](try Data(contentsOf: file))
            for bytes in target == "jpeg" ? [raw] : [raw, WebPFile.withRIFFSizesFixed(raw)] {
                expectDecodedOrRefused(file, named: "fuzz") {
                    target == "jpeg" ? try JPEGFile.decode(bytes, name: "fuzz")
                        : try WebPFile.decode(bytes, name: "fuzz", maxPixels: 1 << 22)
                }
            }
        }
    }

    @Test("kept by the truncation test: a progressive JPEG cut between two scans is refused as truncated (TurboJPEG's warning names another problem); stray bytes before a marker decode")
    func keptJPEGs() throws {
        let folder = Self.fuzzFolder.appendingPathComponent("jpeg/regressions")
        let cut = [UInt8](try Data(contentsOf: folder.appendingPathComponent("truncated-progressive-between-scans.jpg")))
        let error = #expect(throws: ImageError.self) { try JPEGFile.decode(cut, name: "cut.jpg") }
        #expect(error?.problem.hasPrefix("truncated JPEG") == true, "\(String(describing: error))")
        let stray = [UInt8](try Data(contentsOf: folder.appendingPathComponent("stray-bytes-before-sof.jpg")))
        #expect(try JPEGFile.decode(stray, name: "stray.jpg").size == PixelSize(width: 64, height: 48))
    }
}
