@preconcurrency import Glibc
import CardRules
import ScratchCore
import ScratchSound

/// The window's sound and celebration: what the loop keeps of them (one stored value of
/// WindowApp), with what they cost, for `--stats`.
struct Effects {
    /// The sound thread; nil with `--sound off`.
    let player: SoundPlayer?
    /// Each pen's speed and the foil it takes, turned into its scratch's loudness.
    var motion: ScratchMotion
    /// The burst of flakes over a revealed card, while it lasts.
    var celebration: Celebration?

    /// Time spent on the sound per scratch event (the motion's measure and the handing
    /// over to the sound thread), and on the celebration per frame.
    var soundEvents = 0, soundNanoseconds = 0
    var celebrationFrames = 0, celebrationNanoseconds = 0, celebrationPixels = 0

    init(options: WindowOptions, brushRadius: Double, scale: Double) {
        motion = ScratchMotion(brushRadius: brushRadius, scale: scale)
        if options.sound {
            let verbose = options.verbose
            player = SoundPlayer(settings: SoundSettings(volume: options.volumePercent / 100)) { message in
                if verbose { log(message) }
            }
        } else {
            player = nil
            if options.verbose { log("sound: off (--sound off)") }
        }
    }
}

/// The loop's side of sound and celebration. A scratch goes through `scratchDown`,
/// `scratchMove` and `scratchUp`, which stroke the canvas as before and tell the sound
/// thread how this pen's scratch sounds now (from the pixels the stroke newly revealed:
/// over revealed foil, nothing); a `revealed` event plays the card's sound and starts the
/// burst, drawn on the loop's animation clock until it is over.
extension WindowApp {
    /// A pen (0: the mouse; a finger's) touched down at `point`: the stroke's dirty rectangle.
    func scratchDown(pen: Int, at point: Point) -> PixelRect {
        effects.motion.down(pen: pen, at: point, time: monotonicSeconds())
        return canvas.penDown(at: point, pen: pen, drawingInto: drawable)
    }

    /// The pen moved to `point`: strokes the canvas, and sounds the foil it took.
    func scratchMove(pen: Int, to point: Point) -> PixelRect {
        let before = canvas.mask.revealedPixels
        let dirty = canvas.penMove(to: point, pen: pen, drawingInto: drawable)
        if let player = effects.player {
            let started = monotonicNanoseconds()
            let revealed = canvas.mask.revealedPixels - before
            let (loudness, brightness) = effects.motion.move(pen: pen, to: point, time: monotonicSeconds(), revealed: revealed)
            player.motion(pen: pen, loudness: loudness, brightness: brightness)
            effects.soundEvents += 1
            effects.soundNanoseconds += monotonicNanoseconds() - started
        }
        return dirty
    }

    /// The pen went up: its scratch stops.
    func scratchUp(pen: Int) {
        effects.motion.up(pen: pen)
        effects.player?.release(pen: pen)
    }

    /// Called with every batch of card events: a reveal plays the card's sound (the
    /// chime, its own WAV, or none) and starts the burst (unless `--celebrate off` or
    /// the card says `"celebrate": false`).
    func react(to events: [CardEvent]) {
        for case .revealed in events {
            if let clip = card.revealSound?.clip { effects.player?.play(clip) }
            effects.motion.allUp()
            if options.celebrate && card.celebrate {
                effects.celebration = Celebration(canvas: canvas.size, start: monotonicSeconds())
            }
        }
    }

    /// A new card is on show: no burst left over from the last one.
    func endCelebration() {
        effects.celebration = nil
        effects.motion.allUp()
    }

    /// When the burst's next frame is due, if one is: the loop's animation clock, which
    /// the frame pacer keeps (`frameWake`, as the fade's). The one place that chooses it.
    func celebrationWake(now: Double) -> Double? {
        effects.celebration == nil ? nil : frameWake(now: now)
    }

    /// The burst's frame, when one is due: last frame's flakes composited away, the new
    /// ones drawn over the card. Returns the area to put on screen.
    func drawCelebration(frameDue: Bool) -> PixelRect {
        guard frameDue, var burst = effects.celebration else { return .empty }
        let started = monotonicNanoseconds()
        let now = monotonicSeconds()
        // While the cover fades, what a flake covered is put back faded as the rest (read
        // without moving the session on: the repaint owns the fade's end).
        var fade: Double?
        if case .fading(let clock) = session.phase { fade = clock.progress(at: now) }
        let area = burst.redraw(canvas, into: surface.framebuffer, at: now, fade: fade)
        effects.celebrationNanoseconds += monotonicNanoseconds() - started
        effects.celebrationFrames += 1
        effects.celebrationPixels += burst.lastFramePixels
        effects.celebration = burst.isFinished ? nil : burst
        return area
    }

    /// The `--stats` fields of sound and celebration (each with its leading space).
    func effectsStatsFields() -> String {
        var fields = ""
        if let player = effects.player {
            fields += " sound=\(player.status.map { $0.hasPrefix("sound: silent") || $0.hasPrefix("sound: off") ? "silent" : "on" } ?? "opening")"
            if let latency = player.latencyMilliseconds {
                fields += " sound_latency_p50_ms=\(String(format4: latency.median)) sound_latency_max_ms=\(String(format4: latency.maximum))"
            }
            if effects.soundEvents > 0 {
                fields += " sound_ns_per_event=\(effects.soundNanoseconds / effects.soundEvents)"
            }
        }
        if effects.celebrationFrames > 0 {
            fields += " celebration_frames=\(effects.celebrationFrames)"
                + " celebration_us_per_frame=\(String(format4: Double(effects.celebrationNanoseconds) / Double(effects.celebrationFrames) / 1000))"
                + " celebration_pixels_per_frame=\(effects.celebrationPixels / effects.celebrationFrames)"
        }
        return fields
    }

    /// The sound thread ends (what still sounds is cut short).
    func stopSound() {
        effects.player?.stop()
    }
}

func monotonicNanoseconds() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1_000_000_000 + t.tv_nsec
}
