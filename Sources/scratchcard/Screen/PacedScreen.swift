import ScratchCore
import ScratchX11

/// A window's screen at its monitor's pace (issue 19): the surface the loop draws into,
/// and the frame pacer that lets at most one put go per refresh interval of the monitor
/// the window is on, the first after a pause at once. The scratch window and the doodle
/// window each keep one.
///
/// - The loop asks `mayPut` before it composites; while the pacer holds a put back
///   (`holdPut`), `nextEvents` leaves the display's events in the socket until the slot,
///   so a drag wakes the program once a frame instead of once an event.
/// - Animations (the fade, the attract band, a celebration) take their frames from the
///   same pacer: `frameDue` and `frameWake`, on the animation clock kept here.
/// - The rate follows the window's monitor: events that may move it (`noticed`) make
///   `followTheMonitor` read it again.
final class PacedScreen {
    private let surface: WindowSurface
    private let window: X11Window
    /// `--max-fps`: when given, the rate never follows the monitor.
    private let maxFPS: Double?
    private(set) var pacer: FramePacer
    /// Where the pacer's rate came from, for `--verbose`.
    private(set) var rateSource: String
    /// A move or a change of the monitors came: read the refresh rate again.
    private var refreshRateStale = false
    /// The next put waits for a slot of the pacer (for `--stats`' held_puts).
    private(set) var putHeld = false
    /// When the next animation frame is due.
    private var nextFrameAt = 0.0

    /// Reads the rate (`framePacer`) and asks the window to report monitor changes.
    init(window: X11Window, surface: WindowSurface, maxFPS: Double?) {
        self.window = window
        self.surface = surface
        self.maxFPS = maxFPS
        (pacer, rateSource) = framePacer(maxFPS: maxFPS, window: window)
        window.followMonitorChanges()
    }

    /// Whether the framebuffer is free to draw into (no put of it in flight).
    var canDraw: Bool { surface.canDraw }
    var framebuffer: Framebuffer { surface.framebuffer }
    var size: PixelSize { surface.size }
    var rate: Double { pacer.rate }
    var usesSharedMemory: Bool { surface.usesSharedMemory }
    var pixelsPut: Int { surface.pixelsPut }

    /// The window has a new size: so has the surface.
    func resize(to size: PixelSize) throws(X11Error) {
        try surface.resize(to: size)
    }

    // MARK: The pace

    /// Every event the loop reads comes here first: a move, a resize, a mode or CRTC
    /// change may have put the window on a monitor of another rate.
    func noticed(_ event: WindowEvent) {
        if mayChangeRefreshRate(event) { refreshRateStale = true }
    }

    /// After the events at hand: the rate read again if one may have changed it; the new
    /// rate's source when the pace changed (nil: the same, or `--max-fps` holds it).
    func followTheMonitor() -> String? {
        guard refreshRateStale else { return nil }
        refreshRateStale = false
        guard let (changed, source) = framePacerFollowingTheMonitor(pacer, maxFPS: maxFPS, window: window) else { return nil }
        pacer = changed
        rateSource = source
        return source
    }

    func mayPut(at now: Double) -> Bool { pacer.mayPut(at: now) }
    func earliestPut(at now: Double) -> Double { pacer.earliestPut(at: now) }

    /// Waits for events, as `X11Window.nextEvents`; but while the pacer holds the next
    /// put back and no put is in flight, it leaves the display's events in the socket
    /// until the slot (still waking for `others`: signals, the card maker), so a drag
    /// wakes the program once a frame instead of once an event. At the slot every event
    /// is read, in order. A put in flight is waited for as before: its completion is on
    /// the same connection, and dates the latency of the strokes it carried.
    func nextEvents(now: Double, timeout: Double?, alsoWaitingOn others: [Int32] = []) -> [WindowEvent] {
        guard surface.canDraw, !pacer.mayPut(at: now) else {
            return window.nextEvents(timeout: timeout, alsoWaitingOn: others)
        }
        putHeld = true
        let untilSlot = Swift.max(0, pacer.earliestPut(at: now) - now)
        let kept = window.nextEvents(timeout: Swift.min(timeout ?? untilSlot, untilSlot), readingDisplay: false,
                                     alsoWaitingOn: others)
        // At the slot (or woken sooner): everything that came meanwhile, before the put.
        return kept + window.nextEvents(timeout: 0, alsoWaitingOn: others)
    }

    // MARK: Puts

    /// A put is wanted but the pacer holds it back: it waits for the slot.
    func holdPut() { putHeld = true }

    /// The slot came and nothing was waiting for it.
    func dropHeldPut() { putHeld = false }

    /// How late after its slot a held put goes (µs), if it was held and a slot is known.
    func slotLateness(at now: Double) -> Int? {
        guard putHeld, let slot = pacer.lastSlot else { return nil }
        return Int((now - slot - pacer.interval) * 1e6)
    }

    /// Puts `area` on screen now, in the pacer's slot.
    func put(_ area: PixelRect, at now: Double) {
        putHeld = false
        pacer.didPut(at: now)
        surface.present(area)
    }

    // MARK: Animation frames

    /// Whether an animation frame is due at `now`; if so the next one is scheduled. A
    /// put's completion must not start the next frame early: frames come at their own pace.
    func frameDue(now: Double) -> Bool {
        let due = now >= nextFrameAt - FramePacer.slack
        if due { nextFrameAt = pacer.nextAnimationFrame(after: now) }
        return due
    }

    /// When an animation's next frame can go: when it is due, but not before the
    /// pacer's next slot.
    func frameWake(now: Double) -> Double {
        Swift.max(nextFrameAt, pacer.earliestPut(at: now))
    }
}

/// The pace for a window: `--max-fps` when given, else the RandR rate of the monitor
/// under the window, else 60 Hz; with a word on where the rate came from.
func framePacer(maxFPS: Double?, window: X11Window) -> (FramePacer, String) {
    if let fps = maxFPS { return (FramePacer(rate: fps), "--max-fps") }
    if let rate = window.refreshRate() { return (FramePacer(rate: rate.hertz), "refresh rate from \(rate.source)") }
    return (FramePacer(rate: 60), "60 Hz: RandR gives no refresh rate")
}

/// Whether an event may have put the window on a monitor of another rate (a move, a
/// resize, a mode or CRTC change): the rate is read again after the events at hand.
func mayChangeRefreshRate(_ event: WindowEvent) -> Bool {
    switch event {
    case .moved, .screenChanged, .resized: true
    default: false
    }
}

/// The pacer at the rate the window's monitor has now (nil: the same rate, or
/// `--max-fps` holds it). The slots already taken keep their grid.
func framePacerFollowingTheMonitor(_ pacer: FramePacer, maxFPS: Double?, window: X11Window) -> (FramePacer, String)? {
    guard maxFPS == nil else { return nil }
    let (fresh, source) = framePacer(maxFPS: nil, window: window)
    guard fresh.rate != pacer.rate else { return nil }
    return (pacer.changingRate(to: fresh.rate), source)
}

/// The counters of puts both windows' `--stats` lines carry.
struct PutCounters {
    /// Pen events (scratches, a doodle's strokes).
    var events = 0
    var puts = 0
    /// Puts that waited for the pacer's slot, and the most pen events one put carried.
    var heldPuts = 0
    var mostStrokesInAPut = 0
    /// How often the pace changed because the window's monitor did.
    var rateChanges = 0

    /// A put went, carrying `strokes` pen events; `held`: it waited for its slot.
    mutating func put(held: Bool, strokes: Int) {
        puts += 1
        if held { heldPuts += 1 }
        mostStrokesInAPut = Swift.max(mostStrokesInAPut, strokes)
    }

    /// The pacing fields both lines carry, each with its leading space.
    func pacingFields(rate: Double) -> String {
        " max_fps=\(String(format4: rate)) held_puts=\(heldPuts)"
            + " most_strokes_in_a_put=\(mostStrokesInAPut) rate_changes=\(rateChanges)"
    }
}
