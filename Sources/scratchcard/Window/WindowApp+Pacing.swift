import ScratchCore
import ScratchX11

/// Frame pacing (issue 19): at most one put per refresh interval of the monitor the
/// window is on, the first after a pause at once. `repaint` asks the pacer before it
/// composites; `nextWake` wakes the loop at the pacer's slot while a put is held back.
/// Animations (the fade, the attract band, a celebration) take their frames from the
/// same pacer (`frameWake`, `pacer.nextAnimationFrame`). The rate follows the window's
/// monitor (`followTheMonitor`).
extension WindowApp {
    /// After a move or a change of the screen's monitors: the rate read again, and the
    /// pace changed when it differs (`--verbose` says so).
    func followTheMonitor() {
        guard refreshRateStale else { return }
        refreshRateStale = false
        guard let (changed, source) = framePacerFollowingTheMonitor(pacer, maxFPS: options.maxFPS, window: window) else { return }
        pacer = changed
        pacerRateSource = source
        stats.rateChanges += 1
        if options.verbose { log("at most \(String(format4: pacer.rate)) puts a second now (\(source))") }
    }

    /// Whether strokes or an exposed area wait to be put.
    func putWanted(now: Double) -> Bool {
        changesWaiting || !exposed.isEmpty
    }

    /// When the loop must wake for the put of waiting changes (nil: none wait, or a put
    /// is in flight and its completion will wake the loop).
    func pacedPutWake(now: Double) -> Double? {
        guard surface.canDraw, putWanted(now: now) else { return nil }
        return pacer.earliestPut(at: now)
    }

    /// When an animation's next frame can go: when it is due, but not before the
    /// pacer's next slot.
    func frameWake(now: Double) -> Double {
        Swift.max(nextFrameAt, pacer.earliestPut(at: now))
    }
}

extension WindowApp {
    /// Waits for events, as `X11Window.nextEvents`; but while the pacer holds the next
    /// put back and no put is in flight, it leaves the display's events in the socket
    /// until the slot (still waking for signals, the card maker, and timers), so a drag
    /// wakes the program once a frame instead of once an event. At the slot every event
    /// is read and stroked in order, so the meter, the events and the reveal threshold
    /// are exact. A put in flight is waited for as before: its completion is on the
    /// same connection, and dates the latency of the strokes it carried.
    func nextEvents(now: Double, timeout: Double?, signals: Int32) -> [WindowEvent] {
        guard surface.canDraw, !pacer.mayPut(at: now) else {
            return window.nextEvents(timeout: timeout, alsoWaitingOn: signals, cardMaker.wakeDescriptor)
        }
        putHeld = true
        let untilSlot = Swift.max(0, pacer.earliestPut(at: now) - now)
        let kept = window.nextEvents(timeout: Swift.min(timeout ?? untilSlot, untilSlot), readingDisplay: false,
                                     alsoWaitingOn: signals, cardMaker.wakeDescriptor)
        // At the slot (or woken sooner): everything that came meanwhile, before the put.
        return kept + window.nextEvents(timeout: 0, alsoWaitingOn: signals, cardMaker.wakeDescriptor)
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
}
