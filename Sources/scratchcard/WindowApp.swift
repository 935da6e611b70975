@preconcurrency import Glibc
import CardRules
import Foundation
import ScratchCore
import ScratchImage
import ScratchSound
import ScratchX11
import Threads

/// The window: one thread, one loop. Wait on the X connection (or until the next
/// animation frame), drain every pending event (a burst of motion becomes strokes into
/// the mask), then composite what changed and put it on screen in one request, never
/// writing into an image the server may still be reading (DESIGN.md, The display loop).
/// On a canvas over 4 million pixels the strokes write their pixels into the image
/// themselves while it is free (`drawable`), and the repaint only puts them.
final class WindowApp {
    let options: WindowOptions
    let display: X11Display
    let window: X11Window
    var surface: WindowSurface
    /// Deals and makes the next cards on a worker thread (CardMaker.swift).
    let cardMaker: CardMaker
    let scale: DisplayScale
    let brush: Brush

    /// The card on show: as dealt, the engine, its state machine, when it appeared.
    var card: DealtCard
    var canvas: ScratchCanvas
    var session: CardSession
    var shownAtWallClock = Date().timeIntervalSince1970
    let outcomeLog: OutcomeLog?
    /// The store of deals, stock and the card on show, if the window keeps one
    /// (WindowApp+Store.swift).
    let storeKeeper: StoreKeeper?

    /// Kiosk mode: the attract band and where it was last drawn; the last touch.
    var shimmer: Shimmer
    var shimmerCentre: Double?
    /// Kiosk mode: the next card was asked for ahead of time, while this one is on show.
    var triedNextCard = false
    /// A new card was asked for (`r`, a reset) and is on its way (WindowApp+Dealing.swift).
    var newCardWanted = false
    /// After a failed deal, the kiosk's resets wait until then.
    var retryDealAt = 0.0
    /// Kiosk mode: when to try the keyboard grab again, while another client holds it.
    var retryKeyboardAt = 0.0
    let exitChord: KeyChord?
    var blankingInhibitor: ScreenBlankingInhibitor?
    /// Fingers scratching now, each with its own pen (the mouse is pen 0).
    var fingers: Fingers
    /// The scratch's sound, the reveal's chime and burst (WindowApp+Sound.swift).
    var effects: Effects
    /// When the next animation frame is due, and the pace of frames: the pacer's.
    var nextFrameAt = 0.0
    var frameInterval: Double { pacer.animationInterval }
    /// At most one put per refresh interval (WindowApp+Pacing.swift); what set its rate.
    var pacer: FramePacer
    var pacerRateSource: String
    /// A move or a change of the monitors came: read the refresh rate again.
    var refreshRateStale = false
    /// Strokes changed the mask since the last put: a put is wanted.
    var changesWaiting = false
    /// The next put waits for a slot of the pacer (for --stats' held_puts).
    var putHeld = false
    var lastTouch = monotonicSeconds()

    var recording: [Trace.Record] = []
    var stats = Stats()
    var running = true
    /// Exposed or re-laid-out area still to composite in full.
    var exposed = PixelRect.empty
    /// Area the framebuffer already shows as the canvas has it, still to put on screen
    /// (the first frame of a card drawn straight into it).
    var drawnNotPut = PixelRect.empty
    /// When the program started setting up (images, display, window), for `first_frame_ms`.
    let startedMicroseconds = monotonicMicroseconds()

    /// Counters for `--stats`.
    struct Stats {
        var events = 0
        var repaints = 0
        var latency = LatencyHistogram()
        /// Arrival times (µs) of strokes on their way to the screen: composited and put
        /// (in flight), or not yet composited (waiting).
        var inFlight: [Int] = []
        var waiting: [Int] = []
        /// From the start of set-up to the first put on screen.
        var firstFrameMicroseconds: Int?
        /// The longest the loop spent on one wake (events, timers, repaint) before it
        /// waited again: how long input could go unread.
        var longestWakeMicroseconds = 0
        /// How many times the card was laid out again for a new window size.
        var relayouts = 0
        /// Puts that waited for the pacer, and the most strokes one put carried.
        var heldPuts = 0
        var mostStrokesInAPut = 0
        /// How often the pace changed because the window's monitor did.
        var rateChanges = 0
        /// Where a held put's latency goes: how late after its slot it went (the wake's
        /// lateness and the work before the put), and from the put to its completion.
        var slotLateness = LatencyHistogram()
        var putToShown = LatencyHistogram()
        var putAt: Int?
    }

    init(options: WindowOptions) throws(ExitError) {
        self.options = options
        var dealer: Dealer
        do { dealer = try Dealer(options: options) } catch { throw ExitError(code: 2, message: "\(error)") }
        do { outcomeLog = try options.log.map { path throws(OutcomeLogError) in try OutcomeLog(path: path) } } catch {
            throw ExitError(code: 2, message: "\(error)")
        }
        let keeper = try StoreKeeper.open(options: options, deck: dealer.deck, outcomeLog: outcomeLog)
        storeKeeper = keeper
        dealer.stock = keeper?.book
        dealer.pool = keeper?.pool
        // Fonts for every text of the deck are looked up on a thread of its own: 20,000
        // texts (a 10,000-card deck) take 2 s, which the first card need not wait for.
        let deckPath = options.deck
        if dealer.hasText {
            let fonts = dealer
            detachThread { for warning in fonts.missingGlyphWarnings(deckPath: deckPath) { log(warning) } }
        }
        // The first card is made here, before the window exists: bad input ends the
        // program with exit code 2 (1 when the installation's own card is damaged). The
        // next ones are made on the card maker's worker. With a store, it is the card the
        // store holds as on show, or a deal committed now.
        if let keeper {
            card = try keeper.firstCard(dealer: dealer, outcomeLog: outcomeLog)
        } else {
            do { card = try dealer.deal() } catch { throw ExitError(code: error.exitCode, message: "\(error)") }
        }

        do { display = try X11Display(name: options.display) } catch { throw ExitError(code: 1, message: "\(error)") }
        guard let layout = display.pixelLayout else {
            throw ExitError(code: 1, message: display.visualProblem ?? "no visual to draw with")
        }
        scale = display.scale(option: options.scale)
        do { brush = try Brush(radius: options.brushPoints * scale.factor) } catch {
            throw ExitError(code: 2, message: "--brush: \(error)")
        }
        let size = windowSize(kiosk: options.kiosk, screen: display.screenSize, requestedPoints: options.size,
                              cardPoints: card.images.cover.size, scale: scale.factor)
        do {
            window = try X11Window(display: display, size: size, title: options.title)
            surface = try WindowSurface(window: window, size: size, useSharedMemory: options.useSharedMemory)
        } catch { throw ExitError(code: 1, message: "\(error)") }
        // A fresh card with the built-in foil is drawn straight into the window's image:
        // its first frame is then ready once the canvas is (Card.swift).
        let images = card.images
        if keeper?.resumed == nil, let drawn = images.canvas(showingCoverIn: surface.framebuffer, brush: brush) {
            canvas = drawn
            drawnNotPut = PixelRect(size: size)
        } else {
            do {
                canvas = try images.canvas(at: size, layout: layout, brush: brush) { filledCover in
                    keeper?.resumedMask(size: size, images: images, filledCover: filledCover)
                }
            } catch {
                throw ExitError(code: 2, message: "\(error)")
            }
        }
        let now = monotonicSeconds()
        session = keeper?.firstSession(card: card, revealAt: options.revealAtPercent / 100, fraction: canvas.revealedFraction, now: now)
            ?? CardSession(cardID: card.id, revealAt: options.revealAtPercent / 100, now: now)
        if session.isRevealed { canvas.revealAll() }
        if let resumed = keeper?.resumed {
            shownAtWallClock = resumed.shownAt
            lastTouch = keeper?.resumedLastTouch(now: now) ?? now
        }
        effects = Effects(options: options, brushRadius: brush.radius, scale: scale.factor)
        cardMaker = CardMaker(dealer: dealer, size: size, layout: layout, brush: brush)
        shimmer = Shimmer(canvas: size)
        fingers = Fingers(maximum: options.maxFingers)
        (pacer, pacerRateSource) = framePacer(maxFPS: options.maxFPS, window: window)
        window.followMonitorChanges()
        exitChord = KeyChord(parsing: options.exitChord)
        if options.kiosk {
            let method = window.makeFullScreen()
            window.holdKeyboard()       // taken when the window is mapped
            window.hideCursor()
            blankingInhibitor = ScreenBlankingInhibitor(display: display)
            if options.verbose { log("kiosk: full screen \(method == .windowManager ? "through the window manager" : "without a window manager")") }
        }
        let touch = window.enableTouch()
        if options.verbose {
            log("touch: \(touch ? "XInput 2.2 touch events, up to \(options.maxFingers) fingers" : "none; the pointer only")")
            let measured = scale.raw == scale.factor ? ""
                : " (measured \(String(format4: scale.raw)), snapped to the nearest quarter)"
            log("scale \(scale.factor) from \(scale.source.rawValue)\(measured); brush \(options.brushPoints) pt = \(brush.radius) px")
            if !display.drawsWithDefaultVisual {
                log("visual: the default is \(display.defaultVisualDescription); drawing with a \(display.drawingDepth ?? 0)-bit TrueColor visual and a colormap of its own")
            }
            log("window \(size), pixel layout \(layout), drawing with \(surface.usesSharedMemory ? "MIT-SHM" : "XPutImage")"
                + (surface.fallbackReason.map { " (\($0))" } ?? ""))
            if let config = options.config { log("options from \(config)") }
            log("at most \(String(format4: pacer.rate)) puts a second (\(pacerRateSource))")
        }
    }

    /// Runs until the user quits; then writes the recording and the stats.
    func run() throws(ExitError) {
        // The first repaint composites the whole card (it starts out exposed): once; or,
        // when the card was drawn straight into the framebuffer, only puts it.
        window.map()
        if drawnNotPut.isEmpty { exposed = PixelRect(size: canvas.size) }
        emit([.ready(cardID: session.cardID, width: canvas.size.width, height: canvas.size.height, scale: scale.factor,
                     deal: storeKeeper?.deal, resumed: storeKeeper?.resumed != nil)])
        if showsSoldOut { emit([.soldOut]) }
        // A resumed card may have crossed its threshold in strokes saved just before the end.
        if storeKeeper?.resumed != nil { emit(session.scratched(fraction: canvas.revealedFraction, now: monotonicSeconds())) }
        let signals = TerminationSignals.install()
        while running {
            // Block until something happens, or until the next frame or timer is due
            // (or strokes are due to be saved).
            let now = monotonicSeconds()
            let wake = [nextWake(now: now), storeKeeper?.flushDue].compactMap { $0 }.min()
            let timeout = wake.map { Swift.max(0, $0 - now) }
            let events = nextEvents(now: now, timeout: timeout, signals: signals)
            let woke = monotonicMicroseconds()
            for event in events {
                if mayChangeRefreshRate(event) { refreshRateStale = true }
                try handle(event)
            }
            followTheMonitor()
            collectMadeCard()
            runTimers(now: monotonicSeconds())
            if let signal = TerminationSignals.take() {
                if signal == SIGHUP, storeKeeper != nil {
                    reloadDeck()
                } else {
                    log("ending on \(TerminationSignals.name(signal))")
                    running = false
                }
            }
            if running, surface.canDraw { repaint() }
            // Strokes due to be saved: after the repaint, so a commit never holds back pixels.
            storeKeeper?.flushIfDue(now: monotonicSeconds())
            stats.longestWakeMicroseconds = Swift.max(stats.longestWakeMicroseconds, monotonicMicroseconds() - woke)
        }
        finishNewCard()
        logOutcome(quitting: true)
        sendToPoolAtQuit()
        emit([.quit])
        finish()
    }

    func handle(_ event: WindowEvent) throws(ExitError) {
        switch event {
        case .press(let button, let point, let time) where button == 1:
            touched()
            guard session.acceptsScratches else { return }
            emit(session.pressed())
            stroke(scratchDown(pen: 0, at: point), serverTime: time)
            keep(.down(pen: 0, point))
            record(.down(point))
        case .motion(let point, let time) where canvas.isPenDown(0):
            touched()
            stroke(scratchMove(pen: 0, to: point), serverTime: time)
            keep(.move(pen: 0, point))
            record(.move(point))
        case .release(let button, _, _) where button == 1:
            touched()
            if canvas.isPenDown(0) { record(.up); keep(.up(pen: 0)) }
            canvas.penUp()
            scratchUp(pen: 0)
        case .expose(let rect):
            exposed.formUnion(rect)
        case .resized(let size) where size != canvas.size:
            try relayout(to: size)
        case .touchBegin(let id, let point):
            touched()
            guard session.acceptsScratches, let pen = fingers.begin(id) else { return }
            emit(session.pressed())
            stroke(scratchDown(pen: pen, at: point))
            keep(.down(pen: pen, point))
        case .touchUpdate(let id, let point):
            touched()
            guard let pen = fingers.pen(of: id), canvas.isPenDown(pen) else { return }
            stroke(scratchMove(pen: pen, to: point))
            keep(.move(pen: pen, point))
        case .touchEnd(let id, _):
            touched()
            if let pen = fingers.end(id) { canvas.penUp(pen: pen); scratchUp(pen: pen); keep(.up(pen: pen)) }
        case .putCompleted:
            shown()
        case .key, .closeRequested:
            if options.kiosk { handleKioskKey(event) } else { handleKey(event) }
        default:
            break
        }
    }

    func handleKey(_ event: WindowEvent) {
        switch event {
        case .key(.space, _), .key(.enter, _):
            canvas.allPensUp()
            emit(session.revealRequested(fraction: canvas.revealedFraction, now: monotonicSeconds()))
        case .key(.r, _):
            dealNewCard()
        case .key(.s, _):
            saveSnapshot()
        case .key(.q, _), .key(.escape, _), .closeRequested:
            running = false
        default:
            break
        }
    }

    /// The gesture, kept only for `--record`: a kiosk running for weeks keeps nothing.
    func record(_ record: Trace.Record) {
        if options.record != nil { recording.append(record) }
    }

    /// Where a stroke may paint the pixels it changes at once (a 4K canvas does): the
    /// framebuffer, unless the server may still be reading it.
    var drawable: Framebuffer? { surface.canDraw ? surface.framebuffer : nil }

    /// A stroke went into the mask: count it, and the reveal meter may have news.
    /// `serverTime`: the X event's time, which dates the stroke's arrival when the
    /// pacer left it waiting in the socket (see `arrivalMicroseconds`).
    func stroke(_ dirty: PixelRect, serverTime: UInt? = nil) {
        stats.events += 1
        stats.waiting.append(arrivalMicroseconds(serverTime: serverTime))
        guard !dirty.isEmpty else { return }
        changesWaiting = true
        emit(session.scratched(fraction: canvas.revealedFraction, now: monotonicSeconds()))
        if session.isRevealed { canvas.allPensUp() }
    }

    /// Composites what changed (and what was exposed, or the fade's frame) and puts it
    /// on screen in one put, at the pacer's pace: while it holds the put back, the
    /// changes wait in the mask (and, on a 4K canvas, in the image), and the next wake
    /// (`nextWake`) is at its slot. `paced: false` (a snapshot) puts at once.
    func repaint(paced: Bool = true) {
        let now = monotonicSeconds()
        if paced, !pacer.mayPut(at: now) {
            if putWanted(now: now) { putHeld = true }
            return
        }
        var area = canvas.compositeChanges(into: surface.framebuffer).rect
        changesWaiting = false
        // Animation frames (the fade, the attract band) come at their own pace, not on
        // every wake-up: a put's completion must not start the next frame early.
        let frameDue = now >= nextFrameAt - FramePacer.slack
        if frameDue { nextFrameAt = pacer.nextAnimationFrame(after: now) }
        if frameDue, let fade = session.fadeProgress(now: now) {
            if fade >= 1 {
                canvas.revealAll()
                _ = canvas.compositeChanges(into: surface.framebuffer)
            } else {
                canvas.composite(PixelRect(size: canvas.size), into: surface.framebuffer, fade: fade)
            }
            area = PixelRect(size: canvas.size)
        }
        if !exposed.isEmpty {
            canvas.composite(exposed, into: surface.framebuffer)
            area.formUnion(exposed)
            exposed = .empty
        }
        area.formUnion(drawnNotPut)
        drawnNotPut = .empty
        if options.kiosk, frameDue { area.formUnion(drawAttract()) }
        area.formUnion(drawCelebration(frameDue: frameDue))
        if area.isEmpty {
            putHeld = false         // the slot came and nothing was waiting for it
            stats.waiting.removeAll(keepingCapacity: true)     // strokes that changed nothing
            return
        }
        stats.repaints += 1
        if putHeld {
            stats.heldPuts += 1
            if let slot = pacer.lastSlot { stats.slotLateness.record(microseconds: Int((now - slot - pacer.interval) * 1e6)) }
        }
        putHeld = false
        stats.mostStrokesInAPut = Swift.max(stats.mostStrokesInAPut, stats.waiting.count)
        stats.inFlight.append(contentsOf: stats.waiting)
        stats.waiting.removeAll(keepingCapacity: true)
        pacer.didPut(at: now)
        stats.putAt = monotonicMicroseconds()
        surface.present(area)
        if !surface.usesSharedMemory {
            display.sync()          // a plain put is done once the server has answered
            shown()
        }
    }

    /// The last put is on screen: every stroke it carried has its latency.
    func shown() {
        let now = monotonicMicroseconds()
        if stats.firstFrameMicroseconds == nil {
            stats.firstFrameMicroseconds = now - startedMicroseconds
            // The chime is made now, off the loop's thread, rather than at the reveal.
            if effects.player != nil { detachThread { _ = SoundClip.chime } }
        }
        if let putAt = stats.putAt { stats.putToShown.record(microseconds: now - putAt) }
        stats.putAt = nil
        for arrival in stats.inFlight { stats.latency.record(microseconds: now - arrival) }
        stats.inFlight.removeAll(keepingCapacity: true)
    }

    /// A new size: the images re-laid out to fill it, the scratched state carried over.
    func relayout(to size: PixelSize) throws(ExitError) {
        stats.relayouts += 1
        do {
            let previous = canvas.mask
            canvas = try card.images.canvas(at: size, layout: canvas.layout, brush: brush) { _ in previous }
            try surface.resize(to: size)
        } catch { throw ExitError(code: 1, message: "\(error)") }
        if session.isRevealed { canvas.revealAll() }
        cardMaker.resize(to: size)      // a card made for the old size is re-made
        triedNextCard = false
        shimmer = Shimmer(canvas: size)
        shimmerCentre = nil
        exposed = PixelRect(size: size)
    }

    /// The card on show ends: its record goes to the outcome log, if there is one.
    func logOutcome(quitting: Bool) {
        let record = session.outcome(prize: card.prize, shownAtWallClock: shownAtWallClock,
                                     fraction: canvas.revealedFraction, now: monotonicSeconds(), endedBy: quitting)
        // With a store the outcome is committed there first, once (WindowApp+Store.swift).
        guard finishInStore(record), let outcomeLog else { return }
        do { try outcomeLog.append(record) } catch { log("\(error)") }
    }

    /// `s`: what the window shows, as a PNG named by the time, written atomically.
    func saveSnapshot() {
        if surface.canDraw { repaint(paced: false) }
        let folder = options.snapshotDirectory ?? "."
        let path = snapshotPath(in: folder)
        do {
            try PNGFile.write(surface.framebuffer.rgbaImage(), to: path)
            log("saved \(path)")
        } catch {
            log("snapshot not saved: \(error)")
        }
    }

    func finish() {
        stopSound()
        blankingInhibitor?.restore()
        if let path = options.record {
            let trace = Trace(canvas: canvas.size, records: [.brush(brush.radius)] + recording)
            do { try AtomicFile.write(Array(trace.serialized(comment: "recorded by \(versionText)").utf8), to: path) } catch {
                log("\(error)")
            }
        }
        if options.stats {
            let p50 = stats.latency.percentile(0.5).map { "\($0)" } ?? "-"
            let p99 = stats.latency.percentile(0.99).map { "\($0)" } ?? "-"
            let line = "events=\(stats.events) repaints=\(stats.repaints) pixels_put=\(surface.pixelsPut)"
                + " window=\(canvas.size) shm=\(surface.usesSharedMemory)"
                + " latency_p50_us=\(p50) latency_p99_us=\(p99) revealed=\(String(format4: canvas.revealedFraction))"
                + " first_frame_ms=\(stats.firstFrameMicroseconds.map { String(format4: Double($0) / 1000) } ?? "-")"
                + " longest_wake_ms=\(String(format4: Double(stats.longestWakeMicroseconds) / 1000))"
                + " relayouts=\(stats.relayouts)"
                + " max_fps=\(String(format4: pacer.rate)) held_puts=\(stats.heldPuts)"
                + " most_strokes_in_a_put=\(stats.mostStrokesInAPut) rate_changes=\(stats.rateChanges)"
                + " slot_late_p50_us=\(percentile(stats.slotLateness, 0.5)) slot_late_p99_us=\(percentile(stats.slotLateness, 0.99))"
                + " put_to_shown_p50_us=\(percentile(stats.putToShown, 0.5)) put_to_shown_p99_us=\(percentile(stats.putToShown, 0.99))"
                + effectsStatsFields() + "\n"
            // With --events, stdout is the JSON lines' alone.
            fputs(line, options.events ? stderr : stdout)
        }
    }

    /// A percentile of `histogram` for the stats line, "-" when it is empty.
    func percentile(_ histogram: LatencyHistogram, _ p: Double) -> String {
        histogram.percentile(p).map { "\($0)" } ?? "-"
    }

    /// With `--events`, one JSON line per event on stdout, flushed at once.
    func emit(_ events: [CardEvent]) {
        storeKeeper?.noticed(events)
        react(to: events)
        guard options.events else { return }
        for event in events { print(event.json) }
        fflush(stdout)
    }
}

/// `scratchcard-YYYYMMDD-HHMMSS.png` in `folder`, with `-2`, `-3`… when taken.
func snapshotPath(in folder: String) -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let count = strftime(&buffer, buffer.count, "%Y%m%d-%H%M%S", &parts)
    let stamp = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let base = (folder.hasSuffix("/") ? folder : folder + "/") + "scratchcard-\(stamp)"
    var path = base + ".png", n = 2
    while access(path, F_OK) == 0 {
        path = "\(base)-\(n).png"
        n += 1
    }
    return path
}

func monotonicMicroseconds() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1_000_000 + t.tv_nsec / 1000
}

func monotonicSeconds() -> Double { Double(monotonicMicroseconds()) / 1e6 }

func log(_ message: String) {
    fputs("scratchcard: \(message)\n", stderr)
}

extension String {
    init(format4 value: Double) {
        let scaled = Int((value * 10_000).rounded())
        let fraction = String(scaled % 10_000)
        self = "\(scaled / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
    }
}
