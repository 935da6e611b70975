@preconcurrency import Glibc
import ScratchCore
import Threads

/// Whether the program sounds, and how loud.
public struct SoundSettings: Sendable, Equatable {
    public var enabled: Bool
    /// 0...1, applied to everything.
    public var volume: Double
    public init(enabled: Bool = true, volume: Double = 1) {
        self.enabled = enabled
        self.volume = volume
    }
}

/// The sound thread: takes what the window's loop asks for (a pen's scratch, a pen up,
/// a clip to play), renders it with `Synth` in 5 ms blocks and writes them to the
/// system's sound path: PulseAudio when a server answers, else ALSA's `default`, else
/// nothing (and `status` says why).
///
/// Idle stays idle: while nothing sounds the thread blocks on a condition variable, and
/// a quarter of a second after the last sound the stream is paused (corked, dropped), so
/// neither this thread nor libpulse's wakes. The loop's calls only take a lock, append
/// and signal: they never wait for the device.
///
///     let player = SoundPlayer(settings: SoundSettings(volume: 0.8)) { print($0) }
///     player.motion(pen: 0, loudness: 0.7, brightness: 0.4)
///     player.play(.chime)
public final class SoundPlayer: @unchecked Sendable {
    /// Samples per block: 240 = 5 ms at 48 kHz.
    public static let blockFrames = 240
    /// The buffer asked of the device: 15 ms. With the block being rendered, a motion is
    /// heard about 20 ms after it arrives.
    public static let latencyTarget = 0.015
    /// A stream silent this long is paused.
    static let pauseAfterSeconds = 0.25

    // Everything below is guarded by `condition`.
    private let condition = Condition()
    private var motions: [(pen: Int, loudness: Float, brightness: Float, time: Double)] = []
    private var releases: [Int] = []
    private var clips: [SoundClip] = []
    private var quitting = false
    private var finished = false
    private var statusText: String?
    private var latencies = LatencyRecord()

    private let settings: SoundSettings
    private let log: @Sendable (String) -> Void
    /// Set by the sound thread as it ends (guarded by `condition`), for `stop`.
    private var threadEnded = false

    /// Starts the sound thread, which opens the output; `log` hears which output it chose
    /// or why there is none (the caller decides whether to print it: `--verbose`).
    public init(settings: SoundSettings, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.log = log
        detachThread { [self] in
            run()
            condition.lock()
            threadEnded = true
            condition.broadcast()
            condition.unlock()
        }
    }

    /// A pen moved over the card: how loud (0: over revealed pixels, nothing) and how
    /// bright its scratch is now.
    public func motion(pen: Int, loudness: Float, brightness: Float) {
        condition.lock()
        if !finished {
            motions.append((pen, loudness, brightness, Self.now()))
            condition.signal()
        }
        condition.unlock()
    }

    /// A pen went up: its scratch fades out at once.
    public func release(pen: Int) {
        condition.lock()
        if !finished {
            releases.append(pen)
            condition.signal()
        }
        condition.unlock()
    }

    /// Plays a clip once (the chime, a card's WAV).
    public func play(_ clip: SoundClip) {
        condition.lock()
        if !finished, clips.count < 8 {
            clips.append(clip)
            condition.signal()
        }
        condition.unlock()
    }

    /// The output in use, or why there is none; nil while the output is being opened.
    public var status: String? {
        condition.lock(); defer { condition.unlock() }
        return statusText
    }

    /// From a motion's arrival to its sound leaving the output (the wait for the next
    /// block, plus the output's buffer), in milliseconds: the median and the largest,
    /// over the scratches that started a sound or changed it. Nil before any.
    public var latencyMilliseconds: (median: Double, maximum: Double)? {
        condition.lock(); defer { condition.unlock() }
        return latencies.summary
    }

    /// Ends the sound thread (what is playing is cut short) and waits for it.
    public func stop() {
        condition.lock()
        quitting = true
        condition.broadcast()
        while !threadEnded { condition.wait() }
        condition.unlock()
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    private func setStatus(_ text: String) {
        condition.lock()
        statusText = text
        condition.unlock()
        log(text)
    }

    /// PulseAudio, else ALSA.
    private func openOutput() -> AudioOutput? {
        guard settings.enabled else {
            setStatus("sound: off (--sound off)")
            return nil
        }
        let pulseProblem: String
        do {
            let output = try PulseOutput(blockFrames: Self.blockFrames, latencySeconds: Self.latencyTarget)
            setStatus("sound: \(output.name), \(Int((output.latencySeconds * 1000).rounded())) ms buffer")
            return output
        } catch { pulseProblem = error.description }
        do {
            let output = try ALSAOutput(latencySeconds: Self.latencyTarget)
            setStatus("sound: \(output.name) (\(pulseProblem))")
            return output
        } catch {
            setStatus("sound: silent: \(pulseProblem); \(error.description)")
            return nil
        }
    }

    private func run() {
        guard let output = openOutput() else {
            condition.lock()
            finished = true
            motions.removeAll()
            clips.removeAll()
            condition.unlock()
            return
        }
        defer { output.close() }
        var synth = Synth(volume: Float(Swift.min(1, Swift.max(0, settings.volume))))
        var samples = [Int16](repeating: 0, count: Self.blockFrames)
        var scratch = [Float](repeating: 0, count: Self.blockFrames)
        var playing = false
        var quietFrames = 0
        var startedAt = 0.0, framesSinceStart = 0
        while true {
            condition.lock()
            while !quitting && !playing && motions.isEmpty && releases.isEmpty && clips.isEmpty { condition.wait() }
            if quitting { condition.unlock(); break }
            let newMotions = motions, newReleases = releases, newClips = clips
            motions.removeAll(keepingCapacity: true)
            releases.removeAll(keepingCapacity: true)
            clips.removeAll(keepingCapacity: true)
            condition.unlock()

            // The earliest arrival among the motions that make a sound: for the latency.
            var soundingSince: Double?
            for m in newMotions {
                synth.motion(pen: m.pen, loudness: m.loudness, brightness: m.brightness)
                if m.loudness > 0 { soundingSince = Swift.min(soundingSince ?? m.time, m.time) }
            }
            for pen in newReleases { synth.release(pen: pen) }
            for clip in newClips { synth.play(clip) }
            if !playing {
                guard !synth.isSilent else { continue }
                guard output.resume() else { break }
                playing = true
                quietFrames = 0
                startedAt = Self.now()
                framesSinceStart = 0
            }
            samples.withUnsafeMutableBufferPointer { out in
                scratch.withUnsafeMutableBufferPointer { synth.render(into: out, scratch: $0) }
            }
            if let soundingSince {
                let delay = Self.now() - soundingSince + output.latencySeconds
                condition.lock()
                latencies.record(delay * 1000)
                condition.unlock()
            }
            guard samples.withUnsafeBufferPointer({ output.write($0) }) else {
                setStatus("sound: \(output.name) stopped working; silent from now on")
                break
            }
            framesSinceStart += Self.blockFrames
            if !output.pacesItself {
                // An output that takes everything at once: keep to the clock, at most the
                // latency target ahead of it.
                let ahead = Double(framesSinceStart) / Double(Synth.rate) - (Self.now() - startedAt)
                if ahead > Self.latencyTarget { usleep(UInt32((ahead - Self.latencyTarget) * 1_000_000)) }
            }
            if synth.isSilent {
                quietFrames += Self.blockFrames
                if Double(quietFrames) >= Self.pauseAfterSeconds * Double(Synth.rate) {
                    output.pause()
                    playing = false
                }
            } else {
                quietFrames = 0
            }
        }
        condition.lock()
        finished = true
        condition.unlock()
    }
}

/// The last 4,096 latencies, for their median and maximum.
struct LatencyRecord {
    private var values: [Double] = []
    private var next = 0

    mutating func record(_ value: Double) {
        if values.count < 4096 { values.append(value) } else { values[next] = value; next = (next + 1) % 4096 }
    }

    var summary: (median: Double, maximum: Double)? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return (sorted[sorted.count / 2], sorted.last!)
    }
}
