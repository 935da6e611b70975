import CPulse

/// A playback stream on a PulseAudio server (or PipeWire's pulse server) through
/// libpulse's asynchronous API and its threaded main loop (`pa_threaded_mainloop`,
/// `pa_context_connect` with PA_CONTEXT_NOAUTOSPAWN: a kiosk card never starts a sound
/// server of its own). The stream starts corked; `pause` corks and flushes it, so while
/// nothing sounds the main loop's thread sleeps in poll() with no timer (no
/// PA_STREAM_AUTO_TIMING_UPDATE, which would wake it every second).
///
/// The buffer asked for is small: `tlength` = the latency target, `prebuf` and
/// `minreq` = one block, with PA_STREAM_ADJUST_LATENCY so that the server sizes the sink's
/// own buffer to match.
final class PulseOutput: AudioOutput {
    private let mainloop: OpaquePointer
    private var context: OpaquePointer?
    private var stream: OpaquePointer?
    let name: String
    let pacesItself = true
    private(set) var latencySeconds = 0.0

    /// Connects to the default server (`$PULSE_SERVER`, else the user's) and opens a
    /// corked stream; throws why not (no server, refused, …).
    init(blockFrames: Int, latencySeconds target: Double) throws(AudioOutputError) {
        guard let mainloop = pa_threaded_mainloop_new() else { throw AudioOutputError(description: "PulseAudio: cannot make a main loop") }
        self.mainloop = mainloop
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), "ScratchCard") else {
            pa_threaded_mainloop_free(mainloop)
            throw AudioOutputError(description: "PulseAudio: cannot make a context")
        }
        self.context = context
        let userdata = UnsafeMutableRawPointer(mainloop)
        pa_context_set_state_callback(context, { _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, userdata)
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            let reason = String(cString: pa_strerror(pa_context_errno(context)))
            pa_context_unref(context)
            pa_threaded_mainloop_free(mainloop)
            throw AudioOutputError(description: "no PulseAudio server (\(reason))")
        }
        guard pa_threaded_mainloop_start(mainloop) >= 0 else {
            pa_context_unref(context)
            pa_threaded_mainloop_free(mainloop)
            throw AudioOutputError(description: "PulseAudio: cannot start the main loop")
        }
        pa_threaded_mainloop_lock(mainloop)
        var failure: String?
        while true {
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_READY { break }
            if !contextIsGood(state) {
                failure = "no PulseAudio server (\(String(cString: pa_strerror(pa_context_errno(context)))))"
                break
            }
            pa_threaded_mainloop_wait(mainloop)
        }
        var serverName = "?"
        if failure == nil, let server = pa_context_get_server(context) { serverName = String(cString: server) }
        name = "PulseAudio (server \(serverName))"
        if failure == nil {
            var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(Synth.rate), channels: 1)
            let block = UInt32(blockFrames * 2)
            var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32(target * Double(Synth.rate)) * 2,
                                            prebuf: block, minreq: block, fragsize: UInt32.max)
            stream = pa_stream_new(context, "scratch", &spec, nil)
            if let stream {
                pa_stream_set_state_callback(stream, { _, userdata in pa_threaded_mainloop_signal(OpaquePointer(userdata), 0) }, userdata)
                pa_stream_set_write_callback(stream, { _, _, userdata in pa_threaded_mainloop_signal(OpaquePointer(userdata), 0) }, userdata)
                let flags = pa_stream_flags_t(PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_START_CORKED.rawValue)
                if pa_stream_connect_playback(stream, nil, &attributes, flags, nil, nil) < 0 {
                    failure = "PulseAudio: cannot open a stream (\(String(cString: pa_strerror(pa_context_errno(context)))))"
                } else {
                    while true {
                        let state = pa_stream_get_state(stream)
                        if state == PA_STREAM_READY { break }
                        if !streamIsGood(state) {
                            failure = "PulseAudio: the stream failed (\(String(cString: pa_strerror(pa_context_errno(context)))))"
                            break
                        }
                        pa_threaded_mainloop_wait(mainloop)
                    }
                }
                if failure == nil, let granted = pa_stream_get_buffer_attr(stream) {
                    latencySeconds = Double(granted.pointee.tlength) / 2 / Double(Synth.rate)
                }
            } else {
                failure = "PulseAudio: cannot make a stream"
            }
        }
        pa_threaded_mainloop_unlock(mainloop)
        if let failure {
            close()
            throw AudioOutputError(description: failure)
        }
    }

    deinit { close() }

    /// Whether context and stream still work; called with the main loop locked.
    private var isGood: Bool {
        guard let context, let stream else { return false }
        return pa_context_get_state(context) == PA_CONTEXT_READY && pa_stream_get_state(stream) == PA_STREAM_READY
    }

    func resume() -> Bool {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard isGood, let operation = pa_stream_cork(stream, 0, nil, nil) else { return false }
        pa_operation_unref(operation)
        return true
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) -> Bool {
        guard let base = samples.baseAddress else { return true }
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        var offset = 0
        let total = samples.count * 2
        while offset < total {
            guard isGood else { return false }
            let writable = pa_stream_writable_size(stream)
            if writable == 0 || writable == Int.max {
                pa_threaded_mainloop_wait(mainloop)     // woken by the write callback (or a state change)
                continue
            }
            let n = Swift.min(writable, total - offset)
            guard pa_stream_write(stream, UnsafeRawPointer(base) + offset, n, nil, 0, PA_SEEK_RELATIVE) >= 0 else { return false }
            offset += n
        }
        return true
    }

    func pause() {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard isGood else { return }
        if let operation = pa_stream_cork(stream, 1, nil, nil) { pa_operation_unref(operation) }
        if let operation = pa_stream_flush(stream, nil, nil) { pa_operation_unref(operation) }
    }

    func close() {
        guard context != nil else { return }
        pa_threaded_mainloop_lock(mainloop)
        if let stream {
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_set_write_callback(stream, nil, nil)
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
        }
        stream = nil
        if let context {
            pa_context_set_state_callback(context, nil, nil)
            pa_context_disconnect(context)
            pa_context_unref(context)
        }
        context = nil
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }
}

// PA_CONTEXT_IS_GOOD and PA_STREAM_IS_GOOD of def.h, spelled out.
private func contextIsGood(_ state: pa_context_state_t) -> Bool {
    state == PA_CONTEXT_CONNECTING || state == PA_CONTEXT_AUTHORIZING || state == PA_CONTEXT_SETTING_NAME || state == PA_CONTEXT_READY
}

private func streamIsGood(_ state: pa_stream_state_t) -> Bool {
    state == PA_STREAM_CREATING || state == PA_STREAM_READY
}
