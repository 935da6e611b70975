@testable import CardRules
import Foundation
import ScratchCore
import Testing

@Suite struct StrokeLogTests {
    static let size = PixelSize(width: 120, height: 80)
    static func canvas(_ size: PixelSize = size, radius: Double = 6) throws -> ScratchCanvas {
        var cover = RGBAImage(size: size, filledWith: RGBA(r: 200, g: 200, b: 200))
        cover[5, 5] = RGBA(r: 0, g: 0, b: 0, a: 0)
        return try ScratchCanvas(cover: cover, prize: RGBAImage(size: size, filledWith: RGBA(r: 9, g: 9, b: 9)),
                                 layout: .bgrx, brush: Brush(radius: radius))
    }
    static func newMask(_ size: PixelSize, _ previous: Mask?) -> Mask {
        var cover = RGBAImage(size: size, filledWith: RGBA(r: 200, g: 200, b: 200))
        cover[5, 5] = RGBA(r: 0, g: 0, b: 0, a: 0)
        return Mask(size: size, keeping: previous, cover: cover)
    }
    static func bytes(_ mask: Mask) -> [UInt8] { mask.withUnsafeBytes { Array($0) } }

    @Test("strokes written as text and read back replay to the very mask the live canvas has, two pens and odd coordinates")
    func replayMatchesLive() throws {
        let live = try Self.canvas()
        var log = StrokeLog()
        func down(_ pen: Int, _ x: Double, _ y: Double) { _ = live.penDown(at: Point(x: x, y: y), pen: pen); log.append(.down(pen: pen, Point(x: x, y: y))) }
        func move(_ pen: Int, _ x: Double, _ y: Double) { _ = live.penMove(to: Point(x: x, y: y), pen: pen); log.append(.move(pen: pen, Point(x: x, y: y))) }
        log.append(.canvas(Self.size, brush: 6))
        down(0, 10.5, 10.5); down(3, 100.123456789, 70.000001)
        move(0, 40.25, 33.3333333333); move(3, 60.9, 10.1); move(0, 80.5, 20)
        log.append(.up(pen: 0)); live.penUp(pen: 0)
        move(3, 1e-7, 79.99999)
        let text = log.text
        let read = try StrokeLog(parsing: text, name: "t")
        #expect(read == log)
        let replayed = read.replay(to: Self.size, newMask: Self.newMask)
        #expect(Self.bytes(replayed) == Self.bytes(live.mask))
        #expect(replayed.revealedFraction == live.revealedFraction)
    }

    @Test("on a ticket, random presses (in zones, in gaps, with three pens) replay to the live canvas's mask and touch order")
    func replayKeepsPensToTheirZones() throws {
        var outlines: [ZoneOutline] = []
        for r in 0..<3 { for c in 0..<3 { outlines.append(ZoneOutline(x: 6 + Double(c) * 38, y: 4 + Double(r) * 25, width: 32, height: 20)) } }
        let live = try Self.canvas(radius: 9)
        live.setZones(outlines, touchLimit: 3)
        var log = StrokeLog()
        log.append(.canvas(Self.size, brush: 9))
        var noise = Noise(seed: 33)
        for _ in 0..<400 {
            let pen = Int(noise.next() % 3), p = Point(x: noise.between(-5, 125), y: noise.between(-5, 85))
            switch noise.next() % 4 {
            case 0: live.penDown(at: p, pen: pen); log.append(.down(pen: pen, p))
            case 1: live.penUp(pen: pen); log.append(.up(pen: pen))
            default: live.penMove(to: p, pen: pen); log.append(.move(pen: pen, p))
            }
        }
        let replayed = try StrokeLog(parsing: log.text, name: "t").replay(to: Self.size) { size, previous in
            var mask = Self.newMask(size, previous)
            mask.setZones(outlines, touchLimit: 3)
            return mask
        }
        #expect(live.zones!.touchOrder.count == 3)
        #expect(replayed.zones?.touchOrder == live.zones?.touchOrder)
        #expect(Self.bytes(replayed) == Self.bytes(live.mask))
    }

    @Test("a resize in the middle: pens lifted, the mask carried over as the window does; a different final size resamples")
    func canvasChanges() throws {
        let small = PixelSize(width: 60, height: 40)
        var live = try Self.canvas(small)
        _ = live.penDown(at: Point(x: 5, y: 5)); _ = live.penMove(to: Point(x: 50, y: 30))
        var cover = RGBAImage(size: Self.size, filledWith: RGBA(r: 200, g: 200, b: 200))
        cover[5, 5] = RGBA(r: 0, g: 0, b: 0, a: 0)
        live = try ScratchCanvas(cover: cover, prize: RGBAImage(size: Self.size, filledWith: .black), layout: .bgrx,
                                 brush: Brush(radius: 6), keeping: live.mask)
        _ = live.penMove(to: Point(x: 100, y: 70))     // the pen was lifted by the resize: nothing
        _ = live.penDown(at: Point(x: 90, y: 10)); _ = live.penMove(to: Point(x: 110, y: 60))
        let text = """
            c 60 40 6
            d 0 5 5
            m 0 50 30
            c 120 80 6
            m 0 100 70
            d 0 90 10
            m 0 110 60

            """
        let log = try StrokeLog(parsing: text, name: "t")
        #expect(Self.bytes(log.replay(to: Self.size, newMask: Self.newMask)) == Self.bytes(live.mask))
        let other = PixelSize(width: 240, height: 160)
        let resampled = log.replay(to: other, newMask: Self.newMask)
        #expect(resampled.size == other)
        #expect(Self.bytes(resampled) == Self.bytes(Self.newMask(other, live.mask)))
        // No strokes: a fresh mask.
        #expect(Self.bytes(StrokeLog().replay(to: Self.size, newMask: Self.newMask)) == Self.bytes(Self.newMask(Self.size, nil)))
    }

    @Test("bad saved strokes name the line and the problem", arguments: [
        ("d 0 1 1\n", 1, "a stroke before the first canvas line"),
        ("c 10 10 2\nd 64 1 1\n", 2, "pen must be a number from 0 to 63"),
        ("c 10 10 2\nm 0 nan 1\n", 2, "coordinates must be plain finite decimals"),
        ("c 10 10 2\nm 0 1e999 1\n", 2, "coordinates must be plain finite decimals"),
        ("c 0 10 2\n", 1, "a canvas line is"),
        ("c 16384 16384 2\n", 1, "a canvas line is"),
        ("c 10 10 0\n", 1, "the brush radius must be"),
        ("c 10 10 2\nx\n", 2, "unknown record"),
        ("c 10 10 2\nu\n", 2, "an up line is"),
        ("c 10 10 2\nd 0 1\n", 2, "a pen line is"),
    ])
    func badLogs(text: String, line: Int, problem: String) {
        do {
            _ = try StrokeLog(parsing: text, name: "store, deal 1")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.line == line)
            #expect(error.problem.hasPrefix(problem), "\(error)")
            #expect(error.description.hasPrefix("store, deal 1: saved strokes, line \(line): "))
        }
    }

    @Test("more canvas sizes than allowed is an error, not a pile of masks")
    func tooManySizes() {
        let text = (0...StrokeLog.maximumCanvasChanges + 1).map { "c \(10 + $0) 10 2\n" }.joined()
        #expect(throws: StrokeLogError.self) { try StrokeLog(parsing: text, name: "t") }
    }
}

/// The strokes fuzzer's seeds and kept findings (Fuzz/strokes), replayed as the target
/// does: read or refused, replayed to an exact meter, quickly.
@Suite struct StrokeLogFuzzCorpusTests {
    @Test("saved strokes from Fuzz/strokes: read or refused with the line, replayed with an exact meter",
          arguments: ["corpus", "regressions"])
    func corpus(kind: String) throws {
        let inputs = FuzzRegressionTests.inputs("strokes", kind)
        if kind == "corpus" { #expect(inputs.count >= 3) }
        for file in inputs {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            let started = ContinuousClock.now
            if let log = try? StrokeLog(parsing: text, name: file.lastPathComponent) {
                let mask = log.replay(to: PixelSize(width: 53, height: 37)) { size, previous in Mask(size: size, keeping: previous, cover: nil) }
                #expect(mask.revealedPixels == mask.recountRevealedPixels(), "\(file.lastPathComponent)")
            }
            #expect(ContinuousClock.now - started < FuzzRegressionTests.budget, "\(file.lastPathComponent) was slow")
        }
    }
}
