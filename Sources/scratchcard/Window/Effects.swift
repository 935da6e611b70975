@preconcurrency import Glibc
import Dealing
import ScratchCore
import ScratchSound
import CardRules
import Threads

/// The window's sound and celebration, with what they cost, for `--stats`. Each pen's
/// scratch tells the sound thread how it sounds now (from the pixels the stroke newly
/// revealed: over revealed foil, nothing); a `revealed` event plays the card's sound and
/// starts the burst of flakes, drawn on the loop's animation clock until it is over.
struct Effects {
    /// The sound thread; nil with `--sound off`.
    private let player: SoundPlayer?
    /// Each pen's speed and the foil it takes, turned into its scratch's loudness.
    private var motion: ScratchMotion
    /// The burst of flakes over a revealed card, while it lasts.
    private var celebration: Celebration?
    /// `--celebrate`: off, no card bursts.
    private let celebrates: Bool

    /// Time spent on the sound per scratch event (the motion's measure and the handing
    /// over to the sound thread), and on the celebration per frame.
    private var soundEvents = 0, soundNanoseconds = 0
    private var celebrationFrames = 0, celebrationNanoseconds = 0, celebrationPixels = 0

    init(options: WindowOptions, brushRadius: Double, scale: Double) {
        motion = ScratchMotion(brushRadius: brushRadius, scale: scale)
        celebrates = options.celebrate
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

    // MARK: Scratches

    /// A pen (0: the mouse; a finger's) touched down at `point`.
    mutating func penDown(_ pen: Int, at point: Point) {
        motion.down(pen: pen, at: point, time: monotonicSeconds())
    }

    /// The pen moved to `point` and its stroke newly revealed `revealed()` pixels: the
    /// scratch sounds the foil it took.
    mutating func penMoved(_ pen: Int, to point: Point, revealed: () -> Int) {
        guard let player else { return }
        let started = monotonicNanoseconds()
        let (loudness, brightness) = motion.move(pen: pen, to: point, time: monotonicSeconds(), revealed: revealed())
        player.motion(pen: pen, loudness: loudness, brightness: brightness)
        soundEvents += 1
        soundNanoseconds += monotonicNanoseconds() - started
    }

    /// The pen went up: its scratch stops.
    mutating func penUp(_ pen: Int) {
        motion.up(pen: pen)
        player?.release(pen: pen)
    }

    // MARK: The reveal

    /// Called with every batch of card events: a reveal plays the card's sound (the
    /// chime, its own WAV, or none) and starts the burst over a canvas of `canvas`
    /// (unless `--celebrate off` or the card says `"celebrate": false`).
    mutating func react(to events: [CardEvent], of card: DealtCard, canvas: PixelSize) {
        // A ticket's zone opening: a small sound of its own (once for a batch: the
        // decoys open together).
        if events.contains(where: { if case .zoneRevealed = $0 { true } else { false } }) { player?.play(.zoneOpen) }
        for case .revealed in events {
            if let clip = card.revealSound?.clip { player?.play(clip) }
            motion.allUp()
            if celebrates && card.celebrate {
                celebration = Celebration(canvas: canvas, start: monotonicSeconds())
            }
        }
    }

    /// A new card is on show: no burst left over from the last one.
    mutating func newCardShown() {
        celebration = nil
        motion.allUp()
    }

    /// The first frame is on screen: the chime is made now, off the loop's thread,
    /// rather than at the reveal.
    func prepareChime() {
        if player != nil { detachThread { _ = SoundClip.chime } }
    }

    /// True while a burst is on: it wants animation frames.
    var isCelebrating: Bool { celebration != nil }

    /// The burst's frame (the loop calls it when an animation frame is due): last frame's
    /// flakes composited away, the new ones drawn over the card. `fade(now)`: how far
    /// the cover's fade is, if it fades (what a flake covered is put back faded as the
    /// rest). Returns the area to put on screen.
    mutating func drawCelebration(over canvas: ScratchCanvas, into framebuffer: Framebuffer,
                                  fade: (Double) -> Double?) -> PixelRect {
        guard var burst = celebration else { return .empty }
        let started = monotonicNanoseconds()
        let now = monotonicSeconds()
        let area = burst.redraw(canvas, into: framebuffer, at: now, fade: fade(now))
        celebrationNanoseconds += monotonicNanoseconds() - started
        celebrationFrames += 1
        celebrationPixels += burst.lastFramePixels
        celebration = burst.isFinished ? nil : burst
        return area
    }

    // MARK: The end

    /// The `--stats` fields of sound and celebration (each with its leading space).
    func statsFields() -> String {
        var fields = ""
        if let player {
            fields += " sound=\(player.status.map { $0.hasPrefix("sound: silent") || $0.hasPrefix("sound: off") ? "silent" : "on" } ?? "opening")"
            if let latency = player.latencyMilliseconds {
                fields += " sound_latency_p50_ms=\(String(format4: latency.median)) sound_latency_max_ms=\(String(format4: latency.maximum))"
            }
            if soundEvents > 0 {
                fields += " sound_ns_per_event=\(soundNanoseconds / soundEvents)"
            }
        }
        if celebrationFrames > 0 {
            fields += " celebration_frames=\(celebrationFrames)"
                + " celebration_us_per_frame=\(String(format4: Double(celebrationNanoseconds) / Double(celebrationFrames) / 1000))"
                + " celebration_pixels_per_frame=\(celebrationPixels / celebrationFrames)"
        }
        return fields
    }

    /// The sound thread ends (what still sounds is cut short).
    func stop() {
        player?.stop()
    }
}
