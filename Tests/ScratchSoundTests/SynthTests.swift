import Foundation
import Testing
import ScratchCore
@testable import ScratchSound

/// The synthesis on plain sample buffers: no device.
@Suite struct SynthTests {
    /// Renders `seconds` of the synthesiser, calling `each` before every 5 ms block.
    static func render(_ synth: inout Synth, seconds: Double, each: (inout Synth, Int) -> Void = { _, _ in }) -> [Float] {
        let blocks = Int(seconds * Double(Synth.rate)) / SoundPlayer.blockFrames
        var out: [Float] = []
        var block = [Float](repeating: 0, count: SoundPlayer.blockFrames)
        for b in 0..<blocks {
            each(&synth, b)
            block.withUnsafeMutableBufferPointer { synth.render(into: $0) }
            out += block
        }
        return out
    }

    static func rms(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    static func decibels(_ a: Double, over b: Double) -> Double { 20 * log10(max(a, 1e-9) / max(b, 1e-9)) }

    /// Sign changes per sample: a measure of brightness.
    static func crossings(_ samples: [Float]) -> Double {
        var n = 0
        for i in 1..<samples.count where (samples[i] >= 0) != (samples[i - 1] >= 0) { n += 1 }
        return Double(n) / Double(samples.count)
    }

    @Test("a moving pen sounds, louder for a higher loudness; a pen held still falls silent within 200 ms")
    func loudnessAndSilence() {
        func scratch(_ loudness: Float) -> [Float] {
            var synth = Synth()
            // Motion every 15 ms (3 blocks) for 0.5 s, then nothing for 0.5 s.
            return Self.render(&synth, seconds: 1) { synth, b in
                if b < 100 && b % 3 == 0 { synth.motion(pen: 0, loudness: loudness, brightness: 0.5) }
            }
        }
        let loud = scratch(0.9), quiet = scratch(0.2)
        let moving = Self.rms(loud[4800..<24000]), still = Self.rms(loud[(24000 + 9600)...])
        #expect(moving > 0.05)
        #expect(Self.decibels(moving, over: still) > 60, "\(moving) vs \(still)")
        #expect(Self.decibels(moving, over: Self.rms(quiet[4800..<24000])) > 10)
        #expect(loud.allSatisfy { abs($0) <= 1 })
    }

    @Test("nothing to hear over revealed foil (loudness 0), nor with the volume at 0")
    func silentCases() {
        var synth = Synth()
        let over = Self.render(&synth, seconds: 0.3) { synth, _ in synth.motion(pen: 0, loudness: 0, brightness: 1) }
        #expect(Self.rms(over[...]) == 0)
        var muted = Synth(volume: 0)
        let none = Self.render(&muted, seconds: 0.3) { synth, _ in synth.motion(pen: 0, loudness: 1, brightness: 1) }
        #expect(Self.rms(none[...]) == 0)
        #expect(muted.isSilent == false)
    }

    @Test("brighter means more high frequencies")
    func brightness() {
        func sound(_ brightness: Float) -> [Float] {
            var synth = Synth()
            return Self.render(&synth, seconds: 0.3) { synth, _ in synth.motion(pen: 0, loudness: 0.8, brightness: brightness) }
        }
        #expect(Self.crossings(sound(1)) > Self.crossings(sound(0)) * 1.3)
    }

    @Test("each pen has its own voice: two pens are louder than one, and one pen up leaves the other")
    func perPen() {
        var one = Synth(), two = Synth()
        let a = Self.render(&one, seconds: 0.3) { synth, _ in synth.motion(pen: 0, loudness: 0.5, brightness: 0.5) }
        let b = Self.render(&two, seconds: 0.6) { synth, block in
            synth.motion(pen: 1, loudness: 0.5, brightness: 0.5)
            if block < 60 { synth.motion(pen: 2, loudness: 0.5, brightness: 0.5) } else if block == 60 { synth.release(pen: 2) }
        }
        #expect(Self.rms(b[4800..<14400]) > Self.rms(a[4800...]) * 1.25)
        let afterRelease = Self.rms(b[(14400 + 4800)...])
        #expect(afterRelease > 0.02 && afterRelease < Self.rms(b[4800..<14400]))
    }

    @Test("the chime starts at once and fades; clips play once to their end")
    func chime() {
        var synth = Synth()
        synth.play(.chime)
        let out = Self.render(&synth, seconds: 1.5)
        #expect(Self.rms(out[0..<480]) > 0.05, "the first 10 ms")
        #expect(Self.rms(out[52_800...]) == 0, "over after 1.1 s")
        #expect(synth.isSilent)
    }
}

@Suite struct ScratchMotionTests {
    @Test("faster is louder and brighter; over revealed pixels silent; per pen")
    func speedAndFoil() {
        var motion = ScratchMotion(brushRadius: 10, scale: 1)
        func drag(pen: Int, step: Double, revealedPerPixel: Double) -> (Float, Float) {
            motion.down(pen: pen, at: Point(x: 0, y: 0), time: 0)
            var last: (Float, Float) = (0, 0)
            for i in 1...10 {
                last = motion.move(pen: pen, to: Point(x: Double(i) * step, y: 0), time: Double(i) * 0.016,
                                   revealed: Int(step * 20 * revealedPerPixel))
            }
            return last
        }
        let slow = drag(pen: 0, step: 2, revealedPerPixel: 1)
        let fast = drag(pen: 1, step: 20, revealedPerPixel: 1)
        let overRevealed = drag(pen: 2, step: 20, revealedPerPixel: 0)
        let half = drag(pen: 3, step: 20, revealedPerPixel: 0.5)
        #expect(fast.0 > slow.0 * 3 && fast.1 > slow.1)
        #expect(overRevealed.0 == 0)
        #expect(half.0 > 0.3 * fast.0 && half.0 < 0.7 * fast.0)
        // A pen that is up makes nothing.
        motion.up(pen: 1)
        #expect(motion.move(pen: 1, to: Point(x: 500, y: 0), time: 1, revealed: 400).loudness == 0)
    }
}
