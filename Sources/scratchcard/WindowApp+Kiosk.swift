@preconcurrency import Glibc
import ScratchCore
import ScratchX11

/// Kiosk mode's part of the window: the exit chord (the keyboard held, so a window
/// manager's bindings do not fire), the unattended rhythm (idle and abandon resets) and
/// the band of light that invites a touch. The loop asks `nextWake`
/// when to wake with no input, and calls `runTimers` after each wake.
extension WindowApp {
    /// In kiosk mode every key and the close button are ignored, but the operator's chord.
    func handleKioskKey(_ event: WindowEvent) {
        if isExitChord(event) { running = false }
    }

    func isExitChord(_ event: WindowEvent) -> Bool {
        guard case .key(let key, let modifiers) = event, let exitChord else { return false }
        return exitChord.matches(key, modifiers)
    }

    /// Someone is at the card: the abandon timer starts over.
    func touched() {
        lastTouch = monotonicSeconds()
    }

    /// When the loop must wake without input: a put the pacer held back, the fade's next
    /// frame, the attract band's, or a kiosk reset. Nil: only input wakes it (idle means
    /// no CPU).
    func nextWake(now: Double) -> Double? {
        var wake: Double?
        func atLatest(_ t: Double) { wake = Swift.min(wake ?? t, t) }
        if let put = pacedPutWake(now: now) { atLatest(put) }
        if session.isAnimating || zonePlay?.isAnimating == true { atLatest(frameWake(now: now)) }
        if let frame = celebrationWake(now: now) { atLatest(frame) }
        guard options.kiosk else { return wake }
        if !window.holdsKeyboard { atLatest(retryKeyboardAt) }
        switch session.phase {
        case .fresh:
            let t = now - session.shownAt
            if shimmer.centre(at: t) != nil || shimmerCentre != nil {
                atLatest(frameWake(now: now))
            } else {
                let cycle = shimmer.sweep + shimmer.rest
                atLatest(session.shownAt + ((t / cycle).rounded(.down) + 1) * cycle)
            }
        // While the card maker works, its card wakes the loop: a reset already due must
        // not make it spin meanwhile. Nor while a pen is down: a card in use is never
        // abandoned, and the release (a touch) starts the abandon time over.
        case .scratching where !cardMaker.isMaking && !canvas.isPenDown:
            atLatest(Swift.max(lastTouch + options.abandonReset, retryDealAt))
        case .done where !cardMaker.isMaking && !showsSoldOut:
            // First ask for the next card, then wait for the reset.
            atLatest(triedNextCard ? Swift.max(revealedAt + options.idleReset, retryDealAt) : now)
        case .scratching, .done, .fading:
            break
        }
        return wake
    }

    /// When the card on show was revealed (monotonic seconds), if it was.
    var revealedAt: Double { session.shownAt + (session.reveal?.after ?? 0) }

    /// Kiosk mode's unattended rhythm: a revealed card makes way for a new one after
    /// `--idle-reset`; a card touched and left alone, after `--abandon-reset`. The new
    /// card comes from the card maker: when it is not ready yet, the reset happens on a
    /// later wake, once it is (WindowApp+Dealing.swift).
    func runTimers(now: Double) {
        guard options.kiosk else { return }
        // The keyboard, refused while another client held it (a window manager busy with
        // its own grab, say): asked for again once a second until it is ours.
        if !window.holdsKeyboard && now >= retryKeyboardAt {
            if !window.holdKeyboard() { retryKeyboardAt = now + 1 }
        }
        switch session.phase {
        case .scratching where !canvas.isPenDown && now >= Swift.max(lastTouch + options.abandonReset, retryDealAt):
            dealNewCard()
        case .done where showsSoldOut:
            // No resets: a deal only once SIGHUP brought stock (WindowApp+Store.swift).
            if storeKeeper?.restocked == true { dealNewCard() }
        case .done where now >= Swift.max(revealedAt + options.idleReset, retryDealAt):
            dealNewCard()
        case .done:
            prepareNextCard()
        default:
            break
        }
    }

    /// Kiosk mode, on a fresh card: the band of light sweeping the foil. Redraws where
    /// the band was and where it is now; returns that area.
    func drawAttract() -> PixelRect {
        let centre = session.phase == .fresh ? shimmer.centre(at: monotonicSeconds() - session.shownAt) : nil
        defer { shimmerCentre = centre }
        return shimmer.redraw(canvas, into: surface.framebuffer, from: shimmerCentre, to: centre)
    }
}
