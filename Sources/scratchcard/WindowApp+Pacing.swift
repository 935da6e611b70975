import ScratchCore
import ScratchX11

/// Frame pacing (issue 19): at most one put per refresh interval of the monitor the
/// window is on, the first after a pause at once. `repaint` asks the pacer before it
/// composites; `nextWake` wakes the loop at the pacer's slot while a put is held back.
/// Animations (the fade, the attract band, a celebration) take their frames from the
/// same pacer (`frameWake`, `pacer.nextAnimationFrame`).
extension WindowApp {
    /// The pacer for these options: `--max-fps` when given, else the RandR rate of the
    /// monitor under the window, else 60 Hz; with a word on where the rate came from.
    static func pacer(options: WindowOptions, window: X11Window) -> (FramePacer, String) {
        if let fps = options.maxFPS { return (FramePacer(rate: fps), "--max-fps") }
        if let rate = window.refreshRate() { return (FramePacer(rate: rate.hertz), "refresh rate from \(rate.source)") }
        return (FramePacer(rate: 60), "60 Hz: RandR gives no refresh rate")
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
