@preconcurrency import Glibc
import Foundation
import ScratchCore
import ScratchImage
import ScratchSound
import ScratchX11
import CardRules
import Dealing

/// The window: one thread, one loop. Wait on the X connection (or until the next
/// animation frame), drain every pending event (a burst of motion becomes strokes into
/// the mask), then composite what changed and put it on screen in one request, never
/// writing into an image the server may still be reading (docs/ARCHITECTURE.md, The window's loop).
/// On a canvas over 4 million pixels the strokes write their pixels into the image
/// themselves while it is free (`drawable`), and the repaint only puts them.
///
/// The loop keeps its state in parts, each the owner of its own; the loop asks each and
/// passes each what it needs, and no part reads another's:
/// - `card`, the card on show (CardOnShow.swift): the card, its canvas and session;
/// - `dealing`, the next card on its way (CardDealing.swift, CardMaker.swift);
/// - `ledger`, every card's record: the store, the pool, the outcome log, claim tickets
///   (Sources/Dealing's Ledger);
/// - `kiosk`, kiosk mode's timers, attract band and exit chord (KioskTimers.swift);
/// - `effects`, the sound and the celebration (Effects.swift);
/// - `screen` and `changes`, the surface at the monitor's pace and what it does not
///   show yet (Screen/PacedScreen.swift, ScreenChanges.swift);
/// - `stats`, the counters for `--stats` (WindowStats.swift);
/// - `desktop`, drops, the clipboard, full screen, the launch (Desktop/DesktopSide.swift).
/// - `service`, systemd's notifications and watchdog (ServiceLink.swift).
final class WindowApp {
    private let options: WindowOptions
    private let display: X11Display
    private let window: X11Window
    /// Display pixels per point.
    private let scale: Double

    private let card: CardOnShow
    private let dealing: CardDealing
    private let ledger: Ledger
    /// Nil outside kiosk mode.
    private let kiosk: KioskTimers?
    private var effects: Effects
    private let screen: PacedScreen
    private var changes = ScreenChanges()
    /// A ticket's focus ring, which the keys move between its zones (ZoneKeys.swift).
    private var zoneFocus = ZoneFocus()
    private var stats = WindowStats()
    private let desktop: DesktopSide
    private let service = ServiceLink()
    private var running = true

    init(options: WindowOptions) throws(ExitError) {
        let startedAtWallClock = Date().timeIntervalSince1970, startedAt = monotonicSeconds()
        _ = launchStartupID         // taken from the environment before any thread starts
        var dealer: Dealer
        do { dealer = try Dealer(options: options.dealerOptions) } catch { throw ExitError(code: 2, message: "\(error)") }
        // A card file's own reveal-at, brush and celebrate, where the command line left the default.
        let options = options.applying(dealer.settings)
        self.options = options
        dealer.claims = try options.claimMaker(deck: dealer.deck)
        let ledger: Ledger
        do { ledger = try Ledger(options: options.ledgerOptions, dealer: dealer) } catch { throw ExitError(error) }
        self.ledger = ledger
        ledger.supply(&dealer)
        dealer.lookUpFonts(deckPath: options.deck)
        // The first card is dealt and committed here, before the window exists. The next
        // ones are made on the card maker's worker.
        let dealt: DealtCard
        do { dealt = try ledger.firstCard(dealer: dealer) } catch { throw ExitError(error) }

        let opened = try OpenedWindow(options: options, cardPoints: dealt.images.cover.size)
        (display, window, scale) = (opened.display, opened.window, opened.scale.factor)
        let drawnStraight: Bool
        (card, drawnStraight) = try firstCardOnShow(dealt, in: opened, ledger: ledger, options: options,
                                                    shownAtWallClock: ledger.resumed?.shownAt ?? startedAtWallClock)
        let now = monotonicSeconds()
        let lastTouch = ledger.resumed == nil ? startedAt : ledger.resumedLastTouch(now: now) ?? now
        effects = Effects(options: options, brushRadius: opened.brush.radius, scale: opened.scale.factor)
        dealing = CardDealing(maker: CardMaker(dealer: dealer, size: opened.size, layout: opened.layout, brush: opened.brush))
        screen = PacedScreen(window: window, surface: opened.surface, maxFPS: options.maxFPS)
        kiosk = options.kiosk
            ? KioskTimers(options: options, display: display, window: window, canvas: opened.size, lastTouch: lastTouch) : nil
        desktop = DesktopSide(window: window, takesPictures: !options.kiosk && !ledger.keepsStore, takesCardFiles: true,
                              verbose: options.verbose)
        let touch = window.enableTouch()
        if options.verbose { opened.logSetUp(options: options, touch: touch, screen: screen) }
        if drawnStraight { changes.drawnStraight(PixelRect(size: opened.size)) }
    }

    /// Runs until the user quits; then writes the recording and the stats.
    func run() throws(ExitError) {
        // The first repaint composites the whole card (it starts out exposed): once; or,
        // when the card was drawn straight into the framebuffer, only puts it.
        window.map()
        if changes.nothingDrawnNotPut { changes.expose(PixelRect(size: card.size)) }
        // The handler before the ready line: a SIGTERM sent on seeing it (systemd's stop,
        // a script) ends the program as a quit, not by the signal's default.
        let signals = TerminationSignals.install()
        emit([.ready(cardID: card.id, width: card.size.width, height: card.size.height, scale: scale,
                     deal: ledger.deal, resumed: ledger.resumed != nil)])
        if ledger.showsSoldOut { emit([.soldOut]) }
        // A resumed card may have crossed its threshold in strokes saved just before the end.
        if ledger.resumed != nil { emit(card.scratched(now: monotonicSeconds())) }
        while running {
            // Block until something happens, or until the next frame or timer is due
            // (or strokes are due to be saved).
            let now = monotonicSeconds()
            let wake = [nextWake(now: now), ledger.flushDue, service.nextPingAt].compactMap { $0 }.min()
            let timeout = wake.map { Swift.max(0, $0 - now) }
            let events = screen.nextEvents(now: now, timeout: timeout, alsoWaitingOn: [signals, dealing.wakeDescriptor])
            let woke = monotonicMicroseconds()
            for event in events {
                screen.noticed(event)
                try handle(event)
            }
            if let source = screen.followTheMonitor() {
                stats.counters.rateChanges += 1
                if options.verbose { log("at most \(String(format4: screen.rate)) puts a second now (\(source))") }
            }
            if dealing.collect(kiosk: options.kiosk) { dealNewCard() }
            runTimers(now: monotonicSeconds())
            if let signal = TerminationSignals.take() {
                if signal == SIGHUP, ledger.keepsStore {
                    if ledger.reloadDeck(options.deck, asCardFile: options.openCardFile, cover: options.cover) {
                        dealing.dropSpare()     // a sold-out card made before the reload
                        dealNewCard()
                    }
                } else {
                    log("ending on \(TerminationSignals.name(signal))")
                    running = false
                }
            }
            if running, screen.canDraw { repaint() }
            // Strokes due to be saved: after the repaint, so a commit never holds back pixels.
            ledger.flushIfDue(now: monotonicSeconds())
            // The watchdog's ping, when due, after a round trip: XSync returns once the
            // server has answered; a stopped or hung server never does, and no ping goes.
            service.pingIfDue(now: monotonicSeconds()) { display.sync() }
            stats.wakeEnded(wokeAt: woke)
        }
        service.stopping()
        // A new card asked for and still on its way is shown, so that the events and the
        // outcome log tell what the user did (`r`, then `q`).
        desktop.leave()
        if dealing.waitForWantedCard() { dealNewCard() }
        dealing.endWanting()
        // The card on show ends: its outcome to the store, then to the outcome log.
        ledger.end(card.outcome(now: monotonicSeconds(), endedBy: true))
        ledger.closeAtQuit()
        emit([.quit])
        finish()
    }

    private func handle(_ event: WindowEvent) throws(ExitError) {
        switch event {
        case .press(let button, let point, let time) where button == 1:
            kiosk?.touched()
            guard card.acceptsScratches else { return }
            penDown(0, at: point, serverTime: time)
            card.record(.down(point))
        case .motion(let point, let time) where card.isPenDown(0):
            kiosk?.touched()
            penMove(0, to: point, serverTime: time)
            card.record(.move(point))
        case .release(let button, _, _) where button == 1:
            kiosk?.touched()
            if card.isPenDown(0) { card.record(.up); keep(.up(pen: 0)) }
            card.penUp(0)
            effects.penUp(0)
        case .expose(let rect):
            changes.expose(rect)
        case .resized(let size) where size != card.size:
            try relayout(to: size)
        case .touchBegin(let id, let point):
            kiosk?.touched()
            guard card.acceptsScratches, let pen = card.fingerDown(id) else { return }
            penDown(pen, at: point)
        case .touchUpdate(let id, let point):
            kiosk?.touched()
            guard let pen = card.pen(ofFinger: id), card.isPenDown(pen) else { return }
            penMove(pen, to: point)
        case .touchEnd(let id, _):
            kiosk?.touched()
            if let pen = card.fingerUp(id) { card.penUp(pen); effects.penUp(pen); keep(.up(pen: pen)) }
        case .putCompleted:
            shown()
        case .key(let key, let modifiers) where card.zones != nil && kiosk?.isExitChord(event) != true
                                                 && handleZoneKey(key, modifiers):
            break
        case .key, .closeRequested:
            // In kiosk mode every key and the close button are ignored, but the operator's chord.
            if let kiosk {
                if kiosk.isExitChord(event) { running = false }
            } else if !handleDesktop(event) {
                handleKey(event)
            }
        case .dropped, .pasted, .pasteFailed:
            _ = handleDesktop(event)
        default:
            break
        }
    }

    private func handleKey(_ event: WindowEvent) {
        switch event {
        case .key(.space, _), .key(.enter, _):
            emit(card.revealRequested(now: monotonicSeconds()))
        case .key(.r, _):
            dealNewCard()
        case .key(.s, _):
            if screen.canDraw { repaint(paced: false) }
            saveSnapshot(of: screen.framebuffer, in: options.snapshotDirectory ?? ".")
        case .key(.q, _), .key(.escape, _), .closeRequested:
            running = false
        default:
            break
        }
    }

    /// Where a stroke may paint the pixels it changes at once (a 4K canvas does): the
    /// framebuffer, unless the server may still be reading it.
    /// A ticket's key: the focus ring moved, or the focused zone opened (saved with the
    /// strokes, so that a restarted kiosk opens it again). False: not a ticket's key.
    private func handleZoneKey(_ key: Key, _ modifiers: KeyModifiers) -> Bool {
        guard let zones = card.zones, let bounds = card.canvas.zones?.bounds,
              let action = zoneFocus.handle(key, modifiers, ticket: zones.ticket, bounds: bounds, canvas: card.size, scale: scale)
        else { return false }
        switch action {
        case .moved(let area):
            changes.expose(area)
        case .open(let zone):
            let events = card.openZone(zone, now: monotonicSeconds())
            if !events.isEmpty {
                keep(.open(zone: zone))
                changes.stroked()
            }
            emit(events)
        }
        return true
    }

    private var drawable: Framebuffer? { screen.canDraw ? screen.framebuffer : nil }

    /// Pen `pen` (0: the mouse; a finger's) touched down at `point`: the press, the
    /// stroke, its sound, and its record for the store. `serverTime`: the X event's time.
    private func penDown(_ pen: Int, at point: Point, serverTime: UInt? = nil) {
        emit(card.pressed())
        effects.penDown(pen, at: point)
        stroke(card.penDown(pen, at: point, drawingInto: drawable), serverTime: serverTime)
        keep(.down(pen: pen, point))
    }

    /// The pen moved to `point`: strokes the card, and sounds the foil it took.
    private func penMove(_ pen: Int, to point: Point, serverTime: UInt? = nil) {
        let before = card.revealedPixels
        let dirty = card.penMove(pen, to: point, drawingInto: drawable)
        effects.penMoved(pen, to: point) { card.revealedPixels - before }
        stroke(dirty, serverTime: serverTime)
        keep(.move(pen: pen, point))
    }

    /// A stroke went into the mask: count it, and the reveal meter may have news.
    /// `serverTime`: the X event's time, which dates the stroke's arrival when the
    /// pacer left it waiting in the socket (see `arrivalMicroseconds`).
    private func stroke(_ dirty: PixelRect, serverTime: UInt? = nil) {
        stats.stroke(arrivedAt: arrivalMicroseconds(serverTime: serverTime))
        guard !dirty.isEmpty else { return }
        changes.stroked()
        emit(card.scratched(now: monotonicSeconds()))
        card.liftPensIfRevealed()
    }

    /// Records a stroke of the card on show for the store.
    private func keep(_ record: StrokeLog.Record) {
        ledger.keep(record, canvas: card.size, brush: card.brush.radius, now: monotonicSeconds())
    }

    /// Composites what changed (and what was exposed, or the fade's frame) and puts it
    /// on screen in one put, at the pacer's pace: while it holds the put back, the
    /// changes wait in the mask (and, on a 4K canvas, in the image), and the next wake
    /// (`nextWake`) is at its slot. `paced: false` (a snapshot) puts at once.
    private func repaint(paced: Bool = true) {
        let now = monotonicSeconds()
        if paced, !screen.mayPut(at: now) {
            if changes.putWanted { screen.holdPut() }
            return
        }
        let framebuffer = screen.framebuffer
        // Animation frames (the fade, the attract band, the burst) come at their own pace.
        let frameDue = screen.frameDue(now: now)
        var area = changes.composite(card, into: framebuffer, now: now, frameDue: frameDue)
        if let bounds = card.canvas.zones?.bounds {
            area.formUnion(zoneFocus.draw(into: framebuffer, over: area, bounds: bounds, canvas: card.size, scale: scale))
        }
        if frameDue, let kiosk {
            area.formUnion(kiosk.drawAttract(over: card.canvas, into: framebuffer, fresh: card.phase == .fresh, shownAt: card.shownAt))
        }
        if frameDue { area.formUnion(effects.drawCelebration(over: card.canvas, into: framebuffer, fade: card.fadeShown)) }
        if area.isEmpty {
            screen.dropHeldPut()                // the slot came and nothing was waiting for it
            stats.strokesChangedNothing()
            return
        }
        stats.putting(held: screen.putHeld, slotLateness: screen.slotLateness(at: now))
        screen.put(area, at: now)
        if !screen.usesSharedMemory {
            display.sync()          // a plain put is done once the server has answered
            shown()
        }
    }

    /// The last put is on screen: every stroke it carried has its latency.
    private func shown() {
        guard stats.shown() else { return }
        effects.prepareChime()
        desktop.firstFrameShown()
        service.firstFrameShown(serviceSituation(), now: monotonicSeconds())
    }

    /// When the loop must wake without input: a put the pacer held back, the fade's or
    /// the burst's next frame, the kiosk's timers. Nil: only input wakes it (idle means
    /// no CPU).
    private func nextWake(now: Double) -> Double? {
        let frameWake = { self.screen.frameWake(now: now) }
        let put = screen.canDraw && changes.putWanted ? screen.earliestPut(at: now) : nil
        let frame = card.isAnimating || effects.isCelebrating ? frameWake() : nil
        let timers = kiosk?.nextWake(now: now, kioskSituation(), frameWake: frameWake)
        return [put, frame, timers].compactMap { $0 }.min()
    }

    /// A new size: the card laid out again to fill it, the scratched state carried over.
    private func relayout(to size: PixelSize) throws(ExitError) {
        stats.relayouts += 1
        do {
            try card.relayout(to: size)
            try screen.resize(to: size)
        } catch { throw ExitError(code: 1, message: "\(error)") }
        dealing.resize(to: size)        // a card made for the old size is re-made
        kiosk?.resized(to: size)
        changes.expose(PixelRect(size: size))
    }

    /// `r`, or a kiosk reset: the next card shown now if it is made, else asked for.
    private func dealNewCard() {
        if let made = dealing.newCard() { show(made) }
    }

    /// The made card replaces the one on show, once the ledger has recorded it (the old
    /// card's outcome and the new deal, committed before the new card's first pixel); the
    /// old one's record goes to the outcome log before `new-card` is written.
    private func show(_ made: CardMaker.Made) {
        let now = monotonicSeconds()
        let shown = ledger.show(made.card, ending: card.outcome(now: now, endedBy: false), onShow: card.dealt.id, now: now)
        guard dealing.follow(shown) else { return }
        if case .show(announcingSoldOut: true, _) = shown { emit([.soldOut]) }
        dealing.cardShown()
        card.replace(with: made, now: monotonicSeconds())
        zoneFocus.reset()
        kiosk?.newCardShown()
        effects.newCardShown()
        changes.expose(PixelRect(size: card.size))
        emit([.newCard(cardID: made.card.id, deal: ledger.deal)])
    }

    /// Ctrl+C, Ctrl+V, F11, a drop, a paste (DesktopSide): false when the event is none of them.
    private func handleDesktop(_ event: WindowEvent) -> Bool {
        switch desktop.handle(event) {
        case nil:
            return false
        case .handled?:
            break
        case .copy?:
            if screen.canDraw { repaint(paced: false) }
            desktop.copy(screen.framebuffer)
        case .picture(let image, let name)?:
            showPrize(image, named: name)
        case .cardFile(let loaded, let path)?:
            openCardFile(loaded, path: path)
        }
        return true
    }

    /// A dropped card file replaces the card on show with a card dealt from it, made
    /// here as the first card at start is (its sounds checked first); `r` deals its next
    /// ones. The window keeps its own reveal-at, brush and celebrate.
    private func openCardFile(_ loaded: LoadedDeck, path: String) {
        let dealer = Dealer(deck: loaded.deck, source: loaded.source)
        do {
            try Dealer.check(loaded.deck, path: path, source: loaded.source, cover: nil)
            let dealt = try dealer.deal()
            let canvas = try dealt.images.canvas(at: card.size, layout: card.canvas.layout, brush: card.brush)
            dealing.replaceDealer(dealer)
            show(CardMaker.Made(card: dealt, canvas: canvas))
        } catch {
            log("\(path): \(error)")
        }
    }

    /// A dropped or pasted picture becomes the prize of a fresh card under the same
    /// cover, shown as `r` shows a card (the old one's outcome logged, `new-card`).
    private func showPrize(_ image: RGBAImage, named name: String) {
        let images = CardImages(cover: card.dealt.images.cover, prize: .image(image))
        do {
            let canvas = try images.canvas(at: card.size, layout: card.canvas.layout, brush: card.brush)
            show(CardMaker.Made(card: DealtCard(id: fileStem(name), prize: name, images: images), canvas: canvas))
        } catch {
            log("\(name): \(error)")
        }
    }

    /// Kiosk mode, after each wake: a reset due, or the next card to ask for ahead.
    private func runTimers(now: Double) {
        switch kiosk?.due(now: now, kioskSituation()) {
        case .dealNewCard?: dealNewCard()
        case .prepareNextCard?: dealing.prepareNextCard()
        case .nothing?, nil: break
        }
    }

    /// What the kiosk's timers go by, from the card on show, the dealing and the store.
    private func kioskSituation() -> KioskTimers.Situation {
        KioskTimers.Situation(phase: card.phase, shownAt: card.shownAt, revealedAt: card.revealedAt, penDown: card.isPenDown,
                              makingACard: dealing.isMaking, retryDealAt: dealing.retryDealAt,
                              askedForNextCard: dealing.askedForNextCard, showsSoldOut: ledger.showsSoldOut,
                              restocked: ledger.restocked)
    }

    /// What the service manager's status line says: the card and deal on show, sold out,
    /// the pool out of reach.
    private func serviceSituation() -> ServiceLink.Situation {
        ServiceLink.Situation(cardID: card.id, deal: ledger.deal?.text, soldOut: ledger.showsSoldOut, poolOffline: ledger.poolOffline)
    }

    private func finish() {
        effects.stop()
        kiosk?.restoreBlanking()
        if let path = options.record { card.saveRecording(to: path) }
        if options.stats {
            let line = stats.line(pixelsPut: screen.pixelsPut, window: card.size, sharedMemory: screen.usesSharedMemory,
                                  revealed: card.revealedFraction, maxFPS: screen.rate)
                + effects.statsFields() + "\n"
            // With --events, stdout is the JSON lines' alone.
            fputs(line, options.events ? stderr : stdout)
        }
    }

    /// Every batch of card events: the ledger and the effects hear of them; with
    /// `--events`, one JSON line per event on stdout, flushed at once.
    private func emit(_ events: [CardEvent]) {
        ledger.noticed(events, of: card.dealt)
        if events.contains(where: \.changesWhatIsOnShow) { service.update(serviceSituation()) }
        effects.react(to: events, of: card.dealt, canvas: card.size)
        guard options.events else { return }
        // A claim card's `revealed` carries its code; no other line does.
        for event in events { print(event.json(claim: card.dealt.claim?.code)) }
        fflush(stdout)
    }
}
