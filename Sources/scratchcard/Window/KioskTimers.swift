@preconcurrency import Glibc
import ScratchCore
import ScratchX11
import CardRules

/// Kiosk mode's part of the window: the exit chord (the keyboard held, so a window
/// manager's bindings do not fire), the screen kept from blanking, the unattended rhythm
/// (idle and abandon resets) and the band of light that invites a touch. The loop tells
/// it of touches, asks `nextWake` when to wake with no input and `due` what to do after
/// each wake, passing what the other parts say (`KioskSituation`).
final class KioskTimers {
    private let window: X11Window
    private let exitChord: KeyChord?
    private let idleReset: Double
    private let abandonReset: Double
    private var blankingInhibitor: ScreenBlankingInhibitor?
    /// The attract band and where it was last drawn.
    private var shimmer: Shimmer
    private var shimmerCentre: Double?
    /// The last touch, on the monotonic clock: the abandon timer counts from it.
    private var lastTouch: Double
    /// When to try the keyboard grab again, while another client holds it.
    private var retryKeyboardAt = 0.0

    /// Kiosk mode starts: full screen, the keyboard held (taken when the window is
    /// mapped), no cursor, no blanking.
    init(options: WindowOptions, display: X11Display, window: X11Window, canvas: PixelSize, lastTouch: Double) {
        self.window = window
        self.lastTouch = lastTouch
        idleReset = options.idleReset
        abandonReset = options.abandonReset
        shimmer = Shimmer(canvas: canvas)
        exitChord = KeyChord(parsing: options.exitChord)
        let method = window.makeFullScreen()
        window.holdKeyboard()
        window.hideCursor()
        blankingInhibitor = ScreenBlankingInhibitor(display: display)
        if options.verbose { log("kiosk: full screen \(method == .windowManager ? "through the window manager" : "without a window manager")") }
    }

    /// What the timers go by, gathered by the loop from the other parts at each wake.
    struct Situation {
        /// The card on show: its phase, when it appeared and was revealed (monotonic
        /// seconds), whether a pen is down on it.
        var phase: CardSession.Phase
        var shownAt: Double
        var revealedAt: Double
        var penDown: Bool
        /// The dealing: a card on its way, the time before which no deal is tried again,
        /// whether the next card was asked for ahead of time.
        var makingACard: Bool
        var retryDealAt: Double
        var askedForNextCard: Bool
        /// The store: the sold-out card is on show; SIGHUP brought stock meanwhile.
        var showsSoldOut: Bool
        var restocked: Bool
    }

    /// What `due` asks the loop to do.
    enum Due {
        case nothing
        /// A reset: a new card in place of this one.
        case dealNewCard
        /// Ask for the next card ahead of time, while the revealed one is on show.
        case prepareNextCard
    }

    /// In kiosk mode every key and the close button are ignored, but the operator's chord.
    func isExitChord(_ event: WindowEvent) -> Bool {
        guard case .key(let key, let modifiers) = event, let exitChord else { return false }
        return exitChord.matches(key, modifiers)
    }

    /// Someone is at the card: the abandon timer starts over.
    func touched() {
        lastTouch = monotonicSeconds()
    }

    /// When the loop must wake for the kiosk with no input: the keyboard grab's retry,
    /// the attract band's next frame (`frameWake`) or its next sweep, a reset. Nil: none.
    func nextWake(now: Double, _ situation: Situation, frameWake: () -> Double) -> Double? {
        var wake: Double?
        func atLatest(_ t: Double) { wake = Swift.min(wake ?? t, t) }
        if !window.holdsKeyboard { atLatest(retryKeyboardAt) }
        switch situation.phase {
        case .fresh:
            let t = now - situation.shownAt
            if shimmer.centre(at: t) != nil || shimmerCentre != nil {
                atLatest(frameWake())
            } else {
                let cycle = shimmer.sweep + shimmer.rest
                atLatest(situation.shownAt + ((t / cycle).rounded(.down) + 1) * cycle)
            }
        // While the card maker works, its card wakes the loop: a reset already due must
        // not make it spin meanwhile. Nor while a pen is down: a card in use is never
        // abandoned, and the release (a touch) starts the abandon time over.
        case .scratching where !situation.makingACard && !situation.penDown:
            atLatest(Swift.max(lastTouch + abandonReset, situation.retryDealAt))
        case .done where !situation.makingACard && !situation.showsSoldOut:
            // First ask for the next card, then wait for the reset.
            atLatest(situation.askedForNextCard ? Swift.max(situation.revealedAt + idleReset, situation.retryDealAt) : now)
        case .scratching, .done, .fading:
            break
        }
        return wake
    }

    /// Kiosk mode's unattended rhythm, after each wake: a revealed card makes way for a
    /// new one after `--idle-reset`; a card touched and left alone, after
    /// `--abandon-reset`. The new card comes from the card maker: when it is not ready
    /// yet, the reset happens on a later wake, once it is. The keyboard, refused while
    /// another client held it (a window manager busy with its own grab, say), is asked
    /// for again once a second until it is ours.
    func due(now: Double, _ situation: Situation) -> Due {
        if !window.holdsKeyboard && now >= retryKeyboardAt {
            if !window.holdKeyboard() { retryKeyboardAt = now + 1 }
        }
        switch situation.phase {
        case .scratching where !situation.penDown && now >= Swift.max(lastTouch + abandonReset, situation.retryDealAt):
            return .dealNewCard
        case .done where situation.showsSoldOut:
            // No resets: a deal only once SIGHUP brought stock (Ledger.reloadDeck).
            return situation.restocked ? .dealNewCard : .nothing
        case .done where now >= Swift.max(situation.revealedAt + idleReset, situation.retryDealAt):
            return .dealNewCard
        case .done:
            return .prepareNextCard
        default:
            return .nothing
        }
    }

    /// On a fresh card (shown at `shownAt`): the band of light sweeping the foil.
    /// Redraws where the band was and where it is now; returns that area.
    func drawAttract(over canvas: ScratchCanvas, into framebuffer: Framebuffer, fresh: Bool, shownAt: Double) -> PixelRect {
        let centre = fresh ? shimmer.centre(at: monotonicSeconds() - shownAt) : nil
        defer { shimmerCentre = centre }
        return shimmer.redraw(canvas, into: framebuffer, from: shimmerCentre, to: centre)
    }

    /// A new card is on show: the band starts over.
    func newCardShown() {
        shimmerCentre = nil
    }

    /// The window has a new size: the band is laid out for it.
    func resized(to size: PixelSize) {
        shimmer = Shimmer(canvas: size)
        shimmerCentre = nil
    }

    /// At the end: the screen may blank again.
    func restoreBlanking() {
        blankingInhibitor?.restore()
    }
}
