import CardRules
import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import XvfbSupport

/// The sound as a user hears it: the program on a private Xvfb, scratched through XTest,
/// its sound recorded where it goes. Through a private PulseAudio daemon's null sink
/// (parec on its monitor), and through ALSA's `file` plugin (an ~/.asoundrc of the test's
/// own, no pulse server reachable). Times are CLOCK_MONOTONIC on both sides: the
/// recording's bytes and the `--events` lines are stamped as they arrive.
@Suite(.serialized) struct SoundTests {
    static let cardSize = PixelSize(width: 600, height: 200)

    static func card() throws -> SolidCard {
        try SolidCard(cover: RGBA(r: 190, g: 190, b: 200), prize: RGBA(r: 30, g: 120, b: 60), size: cardSize)
    }

    /// When each part of the gesture happened (CLOCK_MONOTONIC seconds).
    struct Gesture {
        var slow: (start: Double, end: Double) = (0, 0)
        var fast: (start: Double, end: Double) = (0, 0)
        var still: (start: Double, end: Double) = (0, 0)
        var revealed: Double = 0
    }

    /// Press, hold still, a slow drag (3 px every 16 ms, ~190 px/s) over fresh foil, hold
    /// still, a fast drag (25 px every 16 ms, ~1500 px/s) over fresh foil, hold, release;
    /// then Space reveals the card. Each drag is one xdotool process, so its pace does not
    /// depend on starting processes.
    static func scratchAndReveal(_ server: Xvfb, window: UInt, app: RunningApp) throws -> Gesture {
        var gesture = Gesture()
        func moves(row: Int, from x: Int, step: Int, count: Int) -> [String] {
            (1...count).flatMap { ["mousemove", "--window", "\(window)", "\(x + $0 * step)", "\(row)", "sleep", "0.016"] }
        }
        try server.xdotool("mousemove", "--window", "\(window)", "20", "40")
        try server.xdotool("mousedown", "1")
        usleep(500_000)
        gesture.slow.start = monotonicNow()
        try server.run("xdotool", moves(row: 40, from: 20, step: 3, count: 40))
        gesture.slow.end = monotonicNow()
        usleep(700_000)
        // Still: from when the slow drag's sound has faded (a pen held still falls silent
        // within 200 ms: Synth.holdSamples) until just before the fast one. Not later: an
        // output that plays nothing for 0.25 s is paused (SoundPlayer.pauseAfterSeconds),
        // and through ALSA's file plugin nothing is written after that, so a window
        // starting later would hold few samples or none, as the load decides.
        gesture.still = (gesture.slow.end + 0.2, monotonicNow() - 0.05)
        gesture.fast.start = monotonicNow()
        try server.run("xdotool", moves(row: 140, from: 20, step: 25, count: 22))
        gesture.fast.end = monotonicNow()
        usleep(500_000)
        try server.xdotool("mouseup", "1")
        usleep(400_000)
        try server.press("space", in: window)
        #expect(waitUntil { app.eventNames.contains("revealed") }, "\(app.standardOutput)")
        gesture.revealed = try #require(app.arrival(ofLineContaining: "\"event\":\"revealed\""))
        usleep(1_500_000)
        return gesture
    }

    /// The middle of a span, where a drag's sound is steady.
    static func middle(_ span: (start: Double, end: Double)) -> (Double, Double) {
        let d = span.end - span.start
        return (span.start + 0.25 * d, span.end - 0.15 * d)
    }

    /// The Done-when checks on a recording of `scratchAndReveal`.
    static func expectScratchAndChime(_ recording: SoundRecording, _ gesture: Gesture, path: String,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        typealias R = MonitorRecording
        let slowWindow = middle(gesture.slow), fastWindow = middle(gesture.fast)
        let still = recording.samples(from: gesture.still.start, to: gesture.still.end)
        let stillRMS = R.rms(still)
        let slowRMS = R.rms(recording.samples(from: slowWindow.0, to: slowWindow.1))
        let fastRMS = R.rms(recording.samples(from: fastWindow.0, to: fastWindow.1))
        let chime = recording.samples(from: gesture.revealed, to: gesture.revealed + 0.1)
        let chimeRMS = R.rms(chime)
        let threshold = stillRMS * 31.6          // 30 dB over the still level
        let onset = recording.onset(after: gesture.revealed - 0.1, threshold: threshold)
        let motionOnset = recording.onset(after: gesture.slow.start - 0.05, threshold: threshold)
        print("sound figures (\(path)): still RMS \(stillRMS) over \(still.count) samples; slow drag \(slowRMS) = "
              + "\(R.decibels(slowRMS, over: stillRMS)) dB over still; fast drag \(fastRMS) = \(R.decibels(fastRMS, over: stillRMS)) dB "
              + "over still, \(R.decibels(fastRMS, over: slowRMS)) dB over slow; chime onset "
              + "\(onset.map { "\(Int(($0 - gesture.revealed) * 1000)) ms" } ?? "none") after the revealed line, RMS of its first 100 ms \(chimeRMS); "
              + "first sound \(motionOnset.map { "\(Int(($0 - gesture.slow.start) * 1000)) ms" } ?? "none") after the slow drag's xdotool started")
        #expect(still.count > 1_000, "the still part holds \(still.count) samples", sourceLocation: sourceLocation)
        #expect(R.decibels(slowRMS, over: stillRMS) >= 30, "slow drag \(slowRMS) vs still \(stillRMS)", sourceLocation: sourceLocation)
        #expect(R.decibels(fastRMS, over: stillRMS) >= 30, "fast drag \(fastRMS) vs still \(stillRMS)", sourceLocation: sourceLocation)
        #expect(R.decibels(fastRMS, over: slowRMS) >= 6, "fast \(fastRMS) vs slow \(slowRMS)", sourceLocation: sourceLocation)
        #expect(R.decibels(chimeRMS, over: stillRMS) >= 30, "chime's first 100 ms \(chimeRMS)", sourceLocation: sourceLocation)
        if let onset {
            #expect(abs(onset - gesture.revealed) <= 0.1, "chime at \(onset - gesture.revealed) s", sourceLocation: sourceLocation)
        } else {
            Issue.record("no chime after the revealed event", sourceLocation: sourceLocation)
        }
    }

    @Test("PulseAudio: the scratch is 30 dB over a pen held still, faster is louder, the chime within 100 ms of revealed")
    func pulseScratchAndChime() throws {
        let pulse = try PulseServer(); defer { pulse.stop() }
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 800, height: 400); defer { server.stop() }
        var environment = server.environment
        environment["PULSE_SERVER"] = pulse.server
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--reveal-at", "100", "--events",
                                                   "--verbose", "--stats", "--celebrate", "off"], environment: environment, stampOutput: true)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.standardError.contains("sound: PulseAudio") }, "\(app.standardError)")
        let recording = try MonitorRecording(server: pulse); defer { recording.stop() }
        #expect(waitUntil { recording.data.count > 9_600 }, "parec records")
        let gesture = try Self.scratchAndReveal(server, window: window, app: app)
        recording.stop()
        Self.expectScratchAndChime(recording, gesture, path: "PulseAudio")
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        print("sound stats (PulseAudio): \(app.stats.filter { $0.key.hasPrefix("sound") })")
    }

    /// An ~/.asoundrc in a temp HOME: the default PCM is the `file` plugin over `null`,
    /// writing raw S16_LE what would be played.
    static func alsaHome(writingTo output: String) throws -> URL {
        let home = try App.scratchFolder()
        let config = """
            pcm.!default {
                type file
                slave.pcm "null"
                file "\(output)"
                format "raw"
            }
            """
        try Data(config.utf8).write(to: home.appendingPathComponent(".asoundrc"))
        return home
    }

    @Test("ALSA with no pulse server: the same scratch and chime, through the file plugin")
    func alsaScratchAndChime() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 800, height: 400); defer { server.stop() }
        let output = card.folder.appendingPathComponent("played.raw").path
        let home = try Self.alsaHome(writingTo: output); defer { try? FileManager.default.removeItem(at: home) }
        var environment = server.environment
        environment["HOME"] = home.path
        environment["PULSE_SERVER"] = "unix:\(card.folder.path)/no-such-socket"
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--reveal-at", "100", "--events",
                                                   "--verbose", "--stats", "--celebrate", "off"], environment: environment, stampOutput: true)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.standardError.contains("sound: ALSA") }, "\(app.standardError)")
        #expect(app.standardError.contains("no PulseAudio server"), "\(app.standardError)")
        let recording = FileRecording(path: output); defer { recording.stop() }
        let gesture = try Self.scratchAndReveal(server, window: window, app: app)
        recording.stop()
        Self.expectScratchAndChime(recording, gesture, path: "ALSA file plugin")
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        print("sound stats (ALSA): \(app.stats.filter { $0.key.hasPrefix("sound") })")
    }

    @Test("no sound server and no ALSA device: the card works silently and --verbose says why")
    func silentWithoutDevice() throws {
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 800, height: 400); defer { server.stop() }
        let home = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: home) }
        try Data("pcm.!default { type hw card 57 }\n".utf8).write(to: home.appendingPathComponent(".asoundrc"))
        var environment = server.environment
        environment["HOME"] = home.path
        environment["PULSE_SERVER"] = "unix:\(card.folder.path)/no-such-socket"
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--verbose", "--events"], environment: environment, stampOutput: true)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.standardError.contains("sound: silent: no PulseAudio server") }, "\(app.standardError)")
        #expect(app.standardError.contains("no ALSA device 'default'"), "\(app.standardError)")
        try server.drag(window: window, from: (50, 100), through: [(250, 100)])
        try server.press("space", in: window)
        #expect(waitUntil { app.eventNames.contains("revealed") })
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
    }

    /// Whether every playback stream on the server (ours) is corked: `pactl list sink-inputs`.
    static func corked(_ pulse: PulseServer) -> Bool {
        guard let text = try? pulse.run("pactl", ["list", "sink-inputs"]) else { return false }
        return text.contains("Corked: yes") && !text.contains("Corked: no")
    }

    /// Each thread's ticks, by thread id: which one woke, when one did.
    static func threadTicks(_ pid: Int32) throws -> [Int32: Int] {
        var ticks: [Int32: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            guard let thread = Int32(name) else { continue }
            ticks[thread] = try? cpuTicks(pid, thread: thread)
        }
        return ticks
    }

    @Test("with the sound on and a server running: idle is 0 ticks over 5 s, and 0 ticks again 2 s after a reveal (burst and chime over)")
    func idleWithSound() throws {
        let pulse = try PulseServer(); defer { pulse.stop() }
        let card = try Self.card(); defer { card.remove() }
        let server = try Xvfb(width: 800, height: 400); defer { server.stop() }
        var environment = server.environment
        environment["PULSE_SERVER"] = pulse.server
        let app = try RunningApp(card.arguments + ["--scale", "1", "--brush", "10", "--reveal-at", "100", "--events",
                                                   "--verbose", "--stats"], environment: environment, stampOutput: true)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.standardError.contains("sound: PulseAudio") }, "\(app.standardError)")
        // A client on the monitor keeps the null sink rendering in 10 ms steps, as a sound
        // card's timer does: left alone, module-null-sink sleeps in 2 s blocks and starts a
        // stream uncorked meanwhile only when it next wakes (its artefact, not ours).
        let recording = try MonitorRecording(server: pulse); defer { recording.stop() }
        try server.run("xdotool", ["mousemove", "--window", "\(window)", "20", "40", "mousedown", "1"]
                       + (1...20).flatMap { ["mousemove", "--window", "\(window)", "\(20 + $0 * 20)", "40", "sleep", "0.016"] }
                       + ["mouseup", "1"])
        // The scratch fades and the stream is corked.
        #expect(waitUntil { recording.data.count > 96_000 && Self.corked(pulse) }, "the stream is corked after the scratch")
        usleep(200_000)
        let before = try cpuTicks(app.pid), threadsBefore = try Self.threadTicks(app.pid)
        usleep(5_000_000)
        let idle = try cpuTicks(app.pid) - before
        let threadsIdle = try Self.threadTicks(app.pid)
        #expect(idle == 0, "\(idle) ticks in 5 idle seconds with the sound on; by thread \(threadsBefore) -> \(threadsIdle)")

        try server.press("space", in: window)
        #expect(waitUntil { app.eventNames.contains("revealed") })
        let revealed = try #require(app.arrival(ofLineContaining: "\"event\":\"revealed\""))
        while monotonicNow() < revealed + 2 { usleep(20_000) }
        #expect(Self.corked(pulse), "2 s after the reveal the chime is over and the stream corked")
        let after = try cpuTicks(app.pid), threadsAfter = try Self.threadTicks(app.pid)
        usleep(2_000_000)
        let later = try cpuTicks(app.pid) - after
        let threadsLater = try Self.threadTicks(app.pid)
        #expect(later == 0, "\(later) ticks in the 2 s from 2 s after the reveal; by thread \(threadsAfter) -> \(threadsLater)")
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        let frames = Int(app.stats["celebration_frames"] ?? "0") ?? 0
        #expect(CelebrationTests.isBurst(frames: frames), "\(frames) frames of the burst, 1.5 s at 30 a second")
    }
}

/// A deck card's own reveal: a WAV of its own, or silence and no sparks for a miss; a bad
/// WAV ends the program at load with exit 2, naming the file.
@Suite(.serialized) struct DeckSoundAppTests {
    /// A 16-bit mono 48 kHz WAV: `seconds` of a sine at `frequency`, half scale.
    static func toneWAV(frequency: Double, seconds: Double) -> Data {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8((v >> 8) & 255)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        let count = Int(seconds * 48_000)
        var samples: [UInt8] = []
        for i in 0..<count { samples += le16(Int(16_000 * sin(2 * .pi * frequency * Double(i) / 48_000)) & 0xFFFF) }
        let fmt = le16(1) + le16(1) + le32(48_000) + le32(96_000) + le16(2) + le16(16)
        let body = Array("WAVEfmt ".utf8) + le32(16) + fmt + Array("data".utf8) + le32(samples.count) + samples
        return Data(Array("RIFF".utf8) + le32(body.count) + body)
    }

    /// Reveals the one card of `deck` with Space while the null sink is recorded; the
    /// recording from the `revealed` line on, and the window 0.5 s after it.
    static func reveal(deck: String, pulse: PulseServer) throws -> (sound: ArraySlice<Int16>, window: RGBAImage, app: RunningApp) {
        let server = try Xvfb(width: 800, height: 400); defer { server.stop() }
        var environment = server.environment
        environment["PULSE_SERVER"] = pulse.server
        let app = try RunningApp(["--deck", deck, "--scale", "1", "--events", "--verbose"], environment: environment, stampOutput: true)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { app.standardError.contains("sound: PulseAudio") }, "\(app.standardError)")
        let recording = try MonitorRecording(server: pulse); defer { recording.stop() }
        #expect(waitUntil { recording.data.count > 9_600 })
        try server.press("space", in: window)
        #expect(waitUntil { app.eventNames.contains("revealed") })
        let revealed = try #require(app.arrival(ofLineContaining: "\"event\":\"revealed\""))
        while monotonicNow() < revealed + 0.5 { usleep(10_000) }
        let image = try server.capture(window: window)
        while monotonicNow() < revealed + 1.2 { usleep(10_000) }
        recording.stop()
        try server.press("q", in: window)
        #expect(app.wait() == 0)
        return (recording.samples(from: revealed - 0.02, to: revealed + 1.2), image, app)
    }

    @Test("a card's own WAV plays on its reveal (its 440 Hz, not the chime); a miss with \"sound\": null is silent, with \"celebrate\": false still")
    func winAndMiss() throws {
        let pulse = try PulseServer(); defer { pulse.stop() }
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let size = PixelSize(width: 300, height: 200)
        _ = try App.solidPNG(RGBA(r: 30, g: 120, b: 60), size: size, in: folder, name: "win.png")
        _ = try App.solidPNG(RGBA(r: 90, g: 90, b: 90), size: size, in: folder, name: "sorry.png")
        _ = try App.solidPNG(RGBA(r: 190, g: 190, b: 200), size: size, in: folder, name: "foil.png")
        try Self.toneWAV(frequency: 440, seconds: 0.6).write(to: folder.appendingPathComponent("fanfare.wav"))
        let winDeck = folder.appendingPathComponent("win.json").path
        try Data(#"{"cards": [{"prize": "win.png", "cover": "foil.png", "sound": "fanfare.wav"}]}"#.utf8).write(to: URL(fileURLWithPath: winDeck))
        let missDeck = folder.appendingPathComponent("miss.json").path
        try Data(#"{"cards": [{"prize": "sorry.png", "cover": "foil.png", "sound": null, "celebrate": false}]}"#.utf8)
            .write(to: URL(fileURLWithPath: missDeck))

        let win = try Self.reveal(deck: winDeck, pulse: pulse)
        // The tone is read from where it begins in the recording, not from the revealed
        // line: a sound that starts late (a busy machine) is the same sound.
        let onset = try #require(MonitorRecording.onset(in: win.sound, threshold: 1_000), "no sound after the reveal")
        let tone = win.sound[onset...].prefix(Int(0.4 * 48_000))
        #expect(tone.count >= Int(0.3 * 48_000), "the recording holds \(tone.count) samples of the tone from its onset")
        #expect(MonitorRecording.rms(tone) > 3_000, "the fanfare is heard: RMS \(MonitorRecording.rms(tone))")
        let frequency = MonitorRecording.pitch(of: tone)
        #expect(frequency.map { abs($0 - 440) < 10 } == true, "its pitch is \(frequency.map { "\($0) Hz" } ?? "not found")")
        #expect(win.window.pixels(where: { Celebration.isFlakeColour($0) }) > 50, "the win bursts into flakes")

        let miss = try Self.reveal(deck: missDeck, pulse: pulse)
        #expect(MonitorRecording.rms(miss.sound) <= 1, "the miss is quiet: RMS \(MonitorRecording.rms(miss.sound))")
        #expect(miss.window.pixels(where: Celebration.isFlakeColour) == 0, "the miss shows no flakes")
    }

    @Test("a bad WAV in a deck: exit 2 at load, naming the deck, the card and the file")
    func badWAV() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        _ = try App.solidPNG(.white, size: PixelSize(width: 10, height: 10), in: folder, name: "a.png")
        try Data("RIFF\u{4}\0\0\0WAVEjunk".utf8).write(to: folder.appendingPathComponent("broken.wav"))
        let deck = folder.appendingPathComponent("deck.json").path
        try Data(#"{"cards": [{"id": "win", "prize": "a.png", "sound": "broken.wav"}]}"#.utf8).write(to: URL(fileURLWithPath: deck))
        let (status, _, err) = try runToExit(["--deck", deck])
        #expect(status == 2)
        #expect(err.contains("deck.json") && err.contains("cards[0] (\"win\")") && err.contains("broken.wav"), "\(err)")
    }
}

extension RGBAImage {
    /// How many pixels satisfy `test`.
    func pixels(where test: (RGBA) -> Bool) -> Int {
        var n = 0
        for y in 0..<height { for x in 0..<width where test(self[x, y]) { n += 1 } }
        return n
    }
}
