/// Where the sound thread's samples go: mono, 16-bit signed, `Synth.rate` samples per
/// second. Called from the sound thread only.
protocol AudioOutput: AnyObject {
    /// What the output is, for `--verbose`: "PulseAudio (server …)", "ALSA default".
    var name: String { get }
    /// Whether writes are paced by the device (false: the sound thread keeps to the
    /// clock itself, as for ALSA's `file`/`null` plugins, which take any amount at once).
    var pacesItself: Bool { get }
    /// Starts the stream after a pause (uncorks, prepares). False when the device is gone.
    func resume() -> Bool
    /// Queues samples, blocking while the stream's buffer is full. False when the device
    /// is gone.
    func write(_ samples: UnsafeBufferPointer<Int16>) -> Bool
    /// Stops the stream after a silence (corks, drops): no thread of ours or the
    /// library's wakes for it until `resume`.
    func pause()
    /// Seconds between a sample queued now and its being heard, as far as the output
    /// knows (the buffer it was granted, or the queue it reports).
    var latencySeconds: Double { get }
    func close()
}

/// Why no sound can be played, said by `--verbose`.
struct AudioOutputError: Error, CustomStringConvertible {
    let description: String
}
