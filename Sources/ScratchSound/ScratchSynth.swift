@preconcurrency import Glibc

/// The sound of foil under a coin, synthesised: white noise through a band-pass filter
/// whose centre rises with the pen's speed, mixed with its high part chopped into short
/// grains (the crackle of foil tearing), at a loudness that follows the speed and how
/// much foil the stroke takes. Pure Swift, one voice per pen, rendered in blocks by the
/// sound thread (SoundPlayer) and by the tests on plain buffers.
///
/// Why synthesis and not a recorded sample: loudness and brightness must follow the
/// finger continuously, and each finger needs its own voice; a loop of a sample shows
/// its seams when it is slowed or filtered, and noise has no seams. Filtered noise with
/// a crackle is also what foil sounds like: broadband, brighter when faster.
public struct ScratchVoice: Sendable {
    /// The loudness and brightness (each 0...1) the voice moves toward.
    var targetGain: Float = 0
    var targetBrightness: Float = 0
    /// Where they are now, smoothed so that steps between motion events do not click.
    public private(set) var gain: Float = 0
    var brightness: Float = 0
    /// Samples since the last motion: past the hold the voice falls silent, so a pen held
    /// still (no motion events) is quiet.
    var samplesSinceMotion = Int.max / 2
    // The state-variable filter and the crackle's envelope.
    private var low: Float = 0, band: Float = 0, grain: Float = 0
    private var noise: UInt32

    init(seed: UInt32) { noise = seed | 1 }

    /// A motion event's loudness and brightness, both 0...1.
    mutating func motion(loudness: Float, brightness: Float) {
        targetGain = Swift.min(Swift.max(loudness, 0), 1)
        targetBrightness = Swift.min(Swift.max(brightness, 0), 1)
        samplesSinceMotion = 0
    }

    /// The pen went up: the voice fades out now, without waiting for the hold.
    mutating func release() { samplesSinceMotion = Int.max / 2 }

    /// True once the voice is quiet and has nothing to play until the next motion.
    var isSilent: Bool { gain < 1e-4 && (targetGain == 0 || samplesSinceMotion > Synth.holdSamples) }

    /// Adds `count` samples of this voice to `out`.
    mutating func render(adding out: UnsafeMutablePointer<Float>, count: Int) {
        let rate = Float(Synth.rate)
        // The filter's centre for this block: 900 Hz for a slow pen to 6.4 kHz for a fast one.
        brightness += (targetBrightness - brightness) * 0.3
        let centre = 900 + 5500 * brightness
        let f = 2 * Float.sinApprox(Float.pi * centre / rate)
        let damping: Float = 1.1
        let grainRate = (60 + 900 * brightness) / rate           // crackles per sample
        let grainDecay: Float = 0.986                             // ~1.5 ms at 48 kHz
        for i in 0..<count {
            let target = samplesSinceMotion > Synth.holdSamples ? 0 : targetGain
            gain += (target - gain) * (target > gain ? Synth.attack : Synth.releaseRate)
            samplesSinceMotion &+= 1
            // xorshift32: white noise in -1...1.
            noise ^= noise << 13; noise ^= noise >> 17; noise ^= noise << 5
            let white = Float(Int32(bitPattern: noise)) * (1 / 2_147_483_648)
            let high = white - low - damping * band
            band += f * high
            low += f * band
            noise ^= noise << 13; noise ^= noise >> 17; noise ^= noise << 5
            if Float(noise >> 8) * (1 / 16_777_216) < grainRate { grain = 1 }
            grain *= grainDecay
            out[i] += gain * (0.32 * band + 0.2 * high * (0.25 + 0.75 * grain))
        }
    }
}

/// A sound to play once, as mono samples at `Synth.rate`: the reveal's chime, or a
/// deck card's own WAV file.
public struct SoundClip: Sendable, Equatable {
    public let samples: [Float]
    public init(samples: [Float]) { self.samples = samples }

    /// The reveal chime: four bell notes rising (C6 E6 G6 C7) 80 ms apart, each a
    /// fundamental and two inharmonic partials decaying over about a second. The first
    /// note starts at sample 0 with a 2 ms attack, so the chime is heard at once.
    public static let chime: SoundClip = {
        let rate = Double(Synth.rate)
        let count = Int(rate * 1.1)
        var samples = [Float](repeating: 0, count: count)
        let notes = [1046.5, 1318.5, 1568.0, 2093.0]
        for (n, frequency) in notes.enumerated() {
            let start = Int(Double(n) * 0.08 * rate)
            for i in 0..<(count - start) {
                let t = Double(i) / rate
                let envelope = Swift.min(1, t / 0.002) * exp(-t / 0.22)
                let partials = sin(2 * .pi * frequency * t) + 0.35 * sin(2 * .pi * frequency * 2.76 * t) * exp(-t / 0.08)
                    + 0.18 * sin(2 * .pi * frequency * 5.4 * t) * exp(-t / 0.04)
                samples[start + i] += Float(0.3 * envelope * partials)
            }
        }
        return SoundClip(samples: samples)
    }()

    /// A zone of a ticket opening: one short, soft bell note (G6, 0.25 s), smaller than
    /// the card's chime, which still comes at the card's reveal.
    public static let zoneOpen: SoundClip = {
        let rate = Double(Synth.rate)
        let count = Int(rate * 0.25)
        let samples = (0..<count).map { i -> Float in
            let t = Double(i) / rate
            let envelope = Swift.min(1, t / 0.002) * exp(-t / 0.06)
            return Float(0.18 * envelope * (sin(2 * .pi * 1568.0 * t) + 0.3 * sin(2 * .pi * 1568.0 * 2.76 * t)))
        }
        return SoundClip(samples: samples)
    }()
}

/// Everything that sounds, mixed: a scratch voice per pen and the clips playing.
///
///     var synth = Synth()
///     synth.motion(pen: 0, loudness: 0.8, brightness: 0.5)
///     synth.render(into: buffer)        // 240 samples = 5 ms
public struct Synth: Sendable {
    /// Samples per second, of everything the synthesiser makes and plays.
    public static let rate = 48_000
    /// A pen is heard for 45 ms after its last motion event, then fades out: motion
    /// events come every 8-16 ms from a moving mouse or finger, so a steady drag is one
    /// sound, and a pen held still falls silent within 200 ms.
    static let holdSamples = rate * 45 / 1000
    /// Smoothing per sample: rising within ~2 ms, falling with a 15 ms time constant.
    static let attack: Float = 1 - expf(-1 / (0.002 * Float(rate)))
    static let releaseRate: Float = 1 - expf(-1 / (0.015 * Float(rate)))

    private var voices: [Int: ScratchVoice] = [:]
    private var playing: [(clip: SoundClip, position: Int)] = []
    /// The master volume, 0...1.
    public var volume: Float

    public init(volume: Float = 1) { self.volume = volume }

    /// A motion of `pen` over the foil: loudness and brightness 0...1 (0 loudness: over
    /// what is already revealed, nothing to hear).
    public mutating func motion(pen: Int, loudness: Float, brightness: Float) {
        if voices[pen] == nil { voices[pen] = ScratchVoice(seed: UInt32(truncatingIfNeeded: 0x9E37_79B9 &* (pen + 1))) }
        voices[pen]!.motion(loudness: loudness, brightness: brightness)
    }

    /// The pen went up.
    public mutating func release(pen: Int) { voices[pen]?.release() }

    /// Starts a clip from its beginning (clips overlap: each plays to its end).
    public mutating func play(_ clip: SoundClip) {
        guard !clip.samples.isEmpty, playing.count < 8 else { return }
        playing.append((clip, 0))
    }

    /// True when nothing is sounding nor about to.
    public var isSilent: Bool { playing.isEmpty && voices.values.allSatisfy(\.isSilent) }

    /// Fills `out` with the next samples of everything, times the volume, in -1...1.
    public mutating func render(into out: UnsafeMutableBufferPointer<Float>) {
        guard let base = out.baseAddress else { return }
        out.update(repeating: 0)
        for pen in Array(voices.keys) {
            voices[pen]!.render(adding: base, count: out.count)
            if voices[pen]!.isSilent { voices[pen] = nil }       // forgotten until it moves again
        }
        var k = 0
        while k < playing.count {
            let (clip, position) = playing[k]
            let n = Swift.min(out.count, clip.samples.count - position)
            clip.samples.withUnsafeBufferPointer { samples in
                for i in 0..<n { base[i] += samples[position + i] }
            }
            if position + n >= clip.samples.count { playing.remove(at: k) } else { playing[k].position += n; k += 1 }
        }
        for i in 0..<out.count { base[i] = Swift.min(1, Swift.max(-1, base[i] * volume)) }
    }

    /// Renders into 16-bit signed samples (what the outputs take).
    public mutating func render(into out: UnsafeMutableBufferPointer<Int16>, scratch: UnsafeMutableBufferPointer<Float>) {
        precondition(scratch.count >= out.count)
        let block = UnsafeMutableBufferPointer(rebasing: scratch[..<out.count])
        render(into: block)
        for i in 0..<out.count { out[i] = Int16((block[i] * 32_767).rounded()) }
    }
}

extension Float {
    /// sin(x) for 0 <= x <= pi/2, to within 1e-3 (Bhaskara's formula is not enough; a
    /// 5th-order odd polynomial is): used once per block for the filter's coefficient.
    static func sinApprox(_ x: Float) -> Float {
        let x2 = x * x
        return x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42)))
    }
}
