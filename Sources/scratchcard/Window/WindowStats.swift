import ScratchCore
import ScratchX11

/// The scratch window's counters for `--stats`: the puts (shared with the doodle window,
/// `PutCounters`), the strokes' latency from arrival to the screen, the first frame, the
/// longest wake, the relayouts.
struct WindowStats {
    var counters = PutCounters()
    private var latency = LatencyHistogram()
    /// Arrival times (µs) of strokes on their way to the screen: composited and put
    /// (in flight), or not yet composited (waiting).
    private var inFlight: [Int] = []
    private var waiting: [Int] = []
    /// When the program started setting up (images, display, window), for `first_frame_ms`.
    private let startedMicroseconds = monotonicMicroseconds()
    /// From the start of set-up to the first put on screen.
    private(set) var firstFrameMicroseconds: Int?
    /// The longest the loop spent on one wake (events, timers, repaint) before it
    /// waited again: how long input could go unread.
    private var longestWakeMicroseconds = 0
    /// How many times the card was laid out again for a new window size.
    var relayouts = 0
    /// Where a held put's latency goes: how late after its slot it went (the wake's
    /// lateness and the work before the put), and from the put to its completion.
    private var slotLateness = LatencyHistogram()
    private var putToShown = LatencyHistogram()
    private var putAt: Int?

    /// A stroke went into the mask; `arrival`: when its event arrived (µs).
    mutating func stroke(arrivedAt arrival: Int) {
        counters.events += 1
        waiting.append(arrival)
    }

    /// A repaint found nothing to put: the strokes waiting changed nothing.
    mutating func strokesChangedNothing() {
        waiting.removeAll(keepingCapacity: true)
    }

    /// A put goes now with every stroke waiting; `held`: it waited for its slot, and
    /// went `slotLateness` µs after it.
    mutating func putting(held: Bool, slotLateness lateness: Int?) {
        counters.put(held: held, strokes: waiting.count)
        if held, let lateness { slotLateness.record(microseconds: lateness) }
        inFlight.append(contentsOf: waiting)
        waiting.removeAll(keepingCapacity: true)
        putAt = monotonicMicroseconds()
    }

    /// The last put is on screen: every stroke it carried has its latency. True the
    /// first time (the first frame).
    mutating func shown() -> Bool {
        let now = monotonicMicroseconds()
        let first = firstFrameMicroseconds == nil
        if first { firstFrameMicroseconds = now - startedMicroseconds }
        if let putAt { putToShown.record(microseconds: now - putAt) }
        putAt = nil
        for arrival in inFlight { latency.record(microseconds: now - arrival) }
        inFlight.removeAll(keepingCapacity: true)
        return first
    }

    /// A wake of the loop ended; it began at `woke` (µs).
    mutating func wakeEnded(wokeAt woke: Int) {
        longestWakeMicroseconds = Swift.max(longestWakeMicroseconds, monotonicMicroseconds() - woke)
    }

    /// The `--stats` line, up to the sound's and celebration's fields (without the newline).
    func line(pixelsPut: Int, window: PixelSize, sharedMemory: Bool, revealed: Double, maxFPS: Double) -> String {
        "events=\(counters.events) repaints=\(counters.puts) pixels_put=\(pixelsPut)"
            + " window=\(window) shm=\(sharedMemory)"
            + " latency_p50_us=\(percentile(latency, 0.5)) latency_p99_us=\(percentile(latency, 0.99)) revealed=\(String(format4: revealed))"
            + " first_frame_ms=\(firstFrameMicroseconds.map { String(format4: Double($0) / 1000) } ?? "-")"
            + " longest_wake_ms=\(String(format4: Double(longestWakeMicroseconds) / 1000))"
            + " relayouts=\(relayouts)"
            + counters.pacingFields(rate: maxFPS)
            + " slot_late_p50_us=\(percentile(slotLateness, 0.5)) slot_late_p99_us=\(percentile(slotLateness, 0.99))"
            + " put_to_shown_p50_us=\(percentile(putToShown, 0.5)) put_to_shown_p99_us=\(percentile(putToShown, 0.99))"
    }

    /// A percentile of `histogram` for the stats line, "-" when it is empty.
    private func percentile(_ histogram: LatencyHistogram, _ p: Double) -> String {
        histogram.percentile(p).map { "\($0)" } ?? "-"
    }
}

/// When a stroke's event arrived, in monotonic microseconds, for its latency: the
/// X event's time (milliseconds on the server's monotonic clock, which on Linux is
/// ours) when it is at most a minute old, else now. Read at a slot, the event may
/// have waited in the socket; its time tells since when. The server's milliseconds
/// are truncated: the middle of its millisecond is taken (within 0.5 ms of the
/// truth), or the time it was read, if that was sooner.
func arrivalMicroseconds(serverTime: UInt?) -> Int {
    let now = monotonicMicroseconds()
    guard let serverTime else { return now }
    let nowMilliseconds = now / 1000
    let age = Int(UInt32(truncatingIfNeeded: nowMilliseconds) &- UInt32(truncatingIfNeeded: serverTime))
    guard age < 60_000 else { return now }
    return Swift.min(now, (nowMilliseconds - age) * 1000 + 500)
}
