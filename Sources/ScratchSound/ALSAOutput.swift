import CALSA

/// ALSA's `default` PCM, for a bare kiosk session with no sound server: opened blocking,
/// S16_LE mono at `Synth.rate` through `snd_pcm_set_params` (ALSA's plug layer resamples
/// if the device wants another rate), with a latency of the given target. `pause` drops
/// the stream (`snd_pcm_drop`: the device stops, nothing of ours runs); `resume` prepares
/// it again.
final class ALSAOutput: AudioOutput {
    private var pcm: OpaquePointer?
    let name: String
    /// A real device blocks writes at its pace; ALSA's `null` and `file` plugins (what a
    /// test or a headless machine has) take everything at once.
    let pacesItself: Bool

    init(device: String = "default", latencySeconds target: Double) throws(AudioOutputError) {
        var handle: OpaquePointer?
        // ALSA's own messages never reach stderr: they go into the error's words.
        calsa_keep_errors()
        var status = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard status >= 0, let handle else {
            let said = String(cString: calsa_kept())
            throw AudioOutputError(description: "no ALSA device '\(device)' (\(String(cString: snd_strerror(status)))"
                                   + (said.isEmpty ? ")" : "; ALSA said: \(said))"))
        }
        status = snd_pcm_set_params(handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(Synth.rate), 1,
                                    UInt32(target * 1_000_000))
        guard status >= 0 else {
            snd_pcm_close(handle)
            throw AudioOutputError(description: "ALSA device '\(device)' refuses 16-bit mono at \(Synth.rate) Hz (\(String(cString: snd_strerror(status))))")
        }
        pcm = handle
        let type = snd_pcm_type(handle)
        pacesItself = !(type == SND_PCM_TYPE_NULL || type == SND_PCM_TYPE_FILE)
        name = "ALSA '\(device)' (\(String(cString: snd_pcm_name(handle))))"
    }

    deinit { close() }

    var latencySeconds: Double {
        guard let pcm else { return 0 }
        var delay: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(pcm, &delay) >= 0 else { return 0 }
        return Double(Swift.max(0, delay)) / Double(Synth.rate)
    }

    func resume() -> Bool {
        guard let pcm else { return false }
        return snd_pcm_prepare(pcm) >= 0
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) -> Bool {
        guard let pcm, var base = samples.baseAddress else { return pcm != nil }
        var left = samples.count
        while left > 0 {
            var written = snd_pcm_writei(pcm, base, snd_pcm_uframes_t(left))
            if written < 0 {
                // An underrun (the pen paused longer than the buffer) or a suspend: recover
                // and go on; anything else means the device is gone.
                written = snd_pcm_sframes_t(snd_pcm_recover(pcm, Int32(written), 1))
                guard written >= 0 else { return false }
                continue
            }
            left -= Int(written)
            base += Int(written)
        }
        return true
    }

    func pause() {
        guard let pcm else { return }
        snd_pcm_drop(pcm)
    }

    func close() {
        guard let pcm else { return }
        snd_pcm_close(pcm)
        self.pcm = nil
    }
}
