import Foundation
@testable import ScratchCore
import Testing

/// The engine's fuzzers' inputs (trace, replay; the rules' in CardRulesTests), replayed by
/// the normal suite (FUZZING.md): every seed in `Fuzz/<target>/corpus` and every crashing,
/// slow or memory-hungry input kept in `Fuzz/<target>/regressions`. Each must be accepted
/// or refused with a message, never crash, and quickly. The checks are the fuzz targets' own (Fuzz/<target>/main.swift).
@Suite("Fuzz corpora and regressions replayed")
struct FuzzRegressionTests {
    /// The repository's Fuzz folder, found from this file's path.
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The files of `Fuzz/<target>/<kind>`, sorted; none when the folder is missing.
    static func inputs(_ target: String, _ kind: String) -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(target).appendingPathComponent(kind)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// The longest one input may take in a debug build; the fuzzers' timeout is 5 s.
    static let budget = Duration.seconds(2)

    @Test("the seed corpora exist and are small")
    func corporaExist() throws {
        for target in ["png", "trace", "config", "deck", "replay"] {
            let seeds = Self.inputs(target, "corpus")
            #expect(seeds.count >= 3, "Fuzz/\(target)/corpus has \(seeds.count) seeds")
            for seed in seeds {
                let size = try FileManager.default.attributesOfItem(atPath: seed.path)[.size] as? Int ?? 0
                #expect(size <= 16384, "\(seed.lastPathComponent) is \(size) bytes")
            }
        }
    }

    @Test("traces: parsed or refused with the line, quickly", arguments: ["corpus", "regressions"])
    func traces(kind: String) throws {
        for file in Self.inputs("trace", kind) {
            let bytes = try Data(contentsOf: file)
            let elapsed = ContinuousClock().measure {
                guard let text = String(validating: bytes, as: UTF8.self) else { return }
                do {
                    let trace = try Trace(parsing: text, name: file.lastPathComponent)
                    #expect((1...Trace.maximumSide).contains(trace.canvas.width))
                    #expect((1...Trace.maximumSide).contains(trace.canvas.height))
                    #expect(try Trace(parsing: trace.serialized(), name: "again") == trace, "\(file.lastPathComponent)")
                } catch let error as TraceError {
                    #expect(error.file == file.lastPathComponent && !error.problem.isEmpty)
                } catch {
                    Issue.record(error)
                }
            }
            #expect(elapsed < Self.budget, "\(file.lastPathComponent) took \(elapsed)")
        }
    }

    @Test("traces replayed through the engine (as render does), extreme radii and coordinates included", arguments: ["corpus", "regressions"])
    func replays(kind: String) throws {
        let size = PixelSize(width: 97, height: 61)
        let cover = RGBAImage(size: size, filledWith: RGBA(r: 200, g: 200, b: 200))
        let prize = RGBAImage(size: size, filledWith: RGBA(r: 10, g: 20, b: 30))
        for file in Self.inputs("replay", kind) {
            let bytes = try Data(contentsOf: file)
            guard let text = String(validating: bytes, as: UTF8.self),
                  var trace = try? Trace(parsing: text, name: file.lastPathComponent) else { continue }
            trace.records = Array(trace.records.prefix(4096))
            let canvas = try ScratchCanvas(cover: cover, prize: prize, layout: .bgrx, brush: trace.initialBrush)
            let framebuffer = Framebuffer(size: size, layout: .bgrx)
            let elapsed = ContinuousClock().measure {
                trace.replay(on: canvas) { dirty in
                    #expect(dirty.isEmpty || dirty.intersection(PixelRect(size: size)) == dirty)
                    _ = canvas.compositeChanges(into: framebuffer)
                }
            }
            #expect((0...1).contains(canvas.revealedFraction))
            #expect(elapsed < Self.budget, "\(file.lastPathComponent) took \(elapsed)")
            // Again with the strokes painting as they go (the 4K path, forced), a third
            // keeping damage: the same meter, the same pixels.
            let painting = try ScratchCanvas(cover: cover, prize: prize, layout: .bgrx, brush: trace.initialBrush)
            painting.paintsDirectly = true
            let painted = Framebuffer(size: size, layout: .bgrx)
            painting.composite(PixelRect(size: size), into: painted)
            trace.replay(on: painting, drawingInto: { $0 % 3 == 2 ? nil : painted })
            painting.compositeChanges(into: painted)
            canvas.composite(PixelRect(size: size), into: framebuffer)
            #expect(painting.mask.revealedPixels == canvas.mask.revealedPixels, "\(file.lastPathComponent)")
            #expect(painted.rgbaImage() == framebuffer.rgbaImage(), "\(file.lastPathComponent)")
        }
    }
}
