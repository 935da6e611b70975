import Dealing
import Foundation
import ScratchCore
import CardRules

/// The card on show: the card as dealt, its canvas (the engine: mask, pens,
/// compositing), its state machine, when it appeared, the fingers on it and, for
/// `--record`, the mouse's gesture. The loop strokes it, asks it for events and for its
/// outcome, and has it composite itself; a new card replaces it whole (`replace`).
final class CardOnShow {
    /// The card as dealt: its images, prize, sound.
    private(set) var dealt: DealtCard
    /// The engine, which the attract band and the celebration draw over.
    private(set) var canvas: ScratchCanvas
    private var session: CardSession
    /// When it appeared, on the wall clock (the outcome's time).
    private var shownAtWallClock: Double
    let brush: Brush
    /// `--reveal-at`, as a fraction.
    private let revealAt: Double
    /// Fingers scratching now, each with its own pen (the mouse is pen 0).
    private var fingers: Fingers
    /// `--record`: the mouse's gesture is kept (a kiosk running for weeks keeps nothing).
    private let recordsGesture: Bool
    private var recording: [Trace.Record] = []
    /// A zone card's rules on its canvas (ZonePlay); nil for a card that scratches anywhere.
    private(set) var zones: ZonePlay?

    /// `startedZones`: a resumed zone card's started zones, in order.
    init(dealt: DealtCard, canvas: ScratchCanvas, session: CardSession, shownAtWallClock: Double, brush: Brush,
         revealAt: Double, maxFingers: Int, recordsGesture: Bool, startedZones: [Int] = []) {
        self.dealt = dealt
        self.canvas = canvas
        self.session = session
        self.shownAtWallClock = shownAtWallClock
        self.brush = brush
        self.revealAt = revealAt
        self.recordsGesture = recordsGesture
        fingers = Fingers(maximum: maxFingers)
        if session.isRevealed { canvas.revealAll() }
        startZones(started: startedZones)
    }

    /// A zone card's rules go on the canvas (a new card, a resumed one, one laid out
    /// again); its reveal is theirs, not the fraction's.
    private func startZones(started: [Int] = [], open: Set<Int> = [], carrying previous: Mask? = nil) {
        guard let art = dealt.zoneArt else { zones = nil; return }
        zones = ZonePlay(card: art.card, canvas: canvas, revealAt: revealAt, started: started, open: open,
                         carrying: previous) { shows, size in
            art.draw(shows, size: size)
        }
        session.leaveRevealToRules()
        if session.isRevealed {
            zones?.finishFades()
            showTicketClaim()
        }
    }

    /// A revealed ticket with a claim shows its code over it: the decoys' fades end and
    /// the whole card becomes the ticket as it stands with the claim drawn on.
    private func showTicketClaim() {
        guard zones != nil, let claimed = dealt.images.claimedTicket(canvas.prizeImage()) else { return }
        zones?.finishFades()
        canvas.showWhole(claimed)
    }

    // MARK: What it is now

    var id: String { session.cardID }
    var size: PixelSize { canvas.size }
    var phase: CardSession.Phase { session.phase }
    var acceptsScratches: Bool { session.acceptsScratches }
    var isAnimating: Bool { session.isAnimating || zones?.isAnimating == true }
    var revealedFraction: Double { canvas.revealedFraction }
    var revealedPixels: Int { canvas.mask.revealedPixels }
    /// When it appeared, on the monotonic clock.
    var shownAt: Double { session.shownAt }
    /// When it was revealed (monotonic seconds), if it was.
    var revealedAt: Double { session.shownAt + (session.reveal?.after ?? 0) }
    /// Whether any pen, or pen `pen`, is down.
    var isPenDown: Bool { canvas.isPenDown }
    func isPenDown(_ pen: Int) -> Bool { canvas.isPenDown(pen) }

    /// The outcome record of the card, ending now (`quitting`: the program ends it).
    /// A zone card's carries the zones picked, in order, with their symbols.
    func outcome(now: Double, endedBy quitting: Bool) -> OutcomeRecord {
        var record = session.outcome(prize: dealt.prize, shownAtWallClock: shownAtWallClock, fraction: canvas.revealedFraction,
                                     now: now, endedBy: quitting)
        // A claim shown: its code in the log (a card never revealed showed none).
        if record.outcome == .revealed { record.claim = dealt.claim?.code }
        record.picks = zones.flatMap { play in dealt.zoneArt.map { play.ticket.picks(symbols: $0.card.symbols) } }
        return record
    }

    // MARK: Pens and the state machine

    /// Pen `pen` touched down at `point`: the stroke's dirty rectangle. `framebuffer`:
    /// where the stroke may paint its pixels at once (a 4K canvas does), if it is free.
    func penDown(_ pen: Int, at point: Point, drawingInto framebuffer: Framebuffer?) -> PixelRect {
        canvas.penDown(at: point, pen: pen, drawingInto: framebuffer)
    }

    func penMove(_ pen: Int, to point: Point, drawingInto framebuffer: Framebuffer?) -> PixelRect {
        canvas.penMove(to: point, pen: pen, drawingInto: framebuffer)
    }

    func penUp(_ pen: Int) { canvas.penUp(pen: pen) }

    /// A finger touched down: its pen, if a pen is free for it.
    func fingerDown(_ finger: Int) -> Int? { fingers.begin(finger) }
    func pen(ofFinger finger: Int) -> Int? { fingers.pen(of: finger) }
    /// A finger lifted: the pen it had.
    func fingerUp(_ finger: Int) -> Int? { fingers.end(finger) }

    /// The first press on the card.
    func pressed() -> [CardEvent] { session.pressed() }

    /// A stroke changed the mask: the reveal meter may have news.
    func scratched(now: Double) -> [CardEvent] {
        let events = session.scratched(fraction: canvas.revealedFraction, now: now)
        guard let zones else { return events }
        return events + cardEvents(zones.afterStroke(now: now), how: .threshold, now: now)
    }

    /// A key opens zone `zone` of a ticket whole (a pick, if it may still be picked).
    func openZone(_ zone: Int, now: Double) -> [CardEvent] {
        guard let zones else { return [] }
        canvas.allPensUp()
        return cardEvents(zones.open(zone, now: now), how: .keyboard, now: now)
    }

    /// The rules' events as the window reports them; the last pick's opening reveals the card.
    private func cardEvents(_ events: [ZoneTicket.Event], how: RevealCause, now: Double) -> [CardEvent] {
        events.flatMap { event -> [CardEvent] in
            switch event {
            case .zoneStart(let zone): return [.zoneStart(cardID: id, zone: zone)]
            case .zoneRevealed(let zone, let shows):
                if case .symbol(let i) = shows { return [.zoneRevealed(cardID: id, zone: zone, symbol: i)] }
                return [.zoneRevealed(cardID: id, zone: zone, symbol: nil)]
            case .cardRevealed:
                canvas.allPensUp()
                let events = session.reveal(by: how, fraction: canvas.revealedFraction, now: now)
                showTicketClaim()
                return events
            }
        }
    }

    /// Once revealed, no pen scratches on.
    func liftPensIfRevealed() {
        if session.isRevealed { canvas.allPensUp() }
    }

    /// Space or Enter: every pen up, the card revealed.
    func revealRequested(now: Double) -> [CardEvent] {
        canvas.allPensUp()
        return session.revealRequested(fraction: canvas.revealedFraction, now: now)
    }

    /// The mouse's gesture, for `--record`.
    func record(_ record: Trace.Record) {
        if recordsGesture { recording.append(record) }
    }

    // MARK: Compositing

    /// Composites what strokes changed into `framebuffer`; the area changed.
    func compositeChanges(into framebuffer: Framebuffer) -> PixelRect {
        canvas.compositeChanges(into: framebuffer).rect
    }

    /// Composites `rect` in full (an exposed area).
    func composite(_ rect: PixelRect, into framebuffer: Framebuffer) {
        canvas.composite(rect, into: framebuffer)
    }

    /// While the cover fades (an animation frame is due): the fade's frame, the whole
    /// card, composited into `framebuffer`; at its end the prize whole. Nil: no fade.
    func drawFade(now: Double, into framebuffer: Framebuffer) -> PixelRect? {
        // A ticket's zones fading open; one whose fade ended is revealed in the mask.
        var zoneArea: PixelRect?
        if let zones, zones.isAnimating {
            zoneArea = zones.animate(into: framebuffer, now: now).union(canvas.compositeChanges(into: framebuffer).rect)
        }
        guard let fade = session.fadeProgress(now: now) else { return zoneArea }
        if fade >= 1 {
            canvas.revealAll()
            _ = canvas.compositeChanges(into: framebuffer)
        } else {
            canvas.composite(PixelRect(size: canvas.size), into: framebuffer, fade: fade)
        }
        return PixelRect(size: canvas.size)
    }

    /// How far the fade is at `now`, if the cover fades, read without moving the state
    /// machine on (the repaint owns the fade's end).
    func fadeShown(at now: Double) -> Double? {
        if case .fading(let clock) = session.phase { return clock.progress(at: now) }
        return nil
    }

    // MARK: A new card, a new size

    /// The made card replaces this one, fresh (the sold-out card as done); a gesture in
    /// progress ends in the recording.
    func replace(with made: CardMaker.Made, now: Double) {
        canvas = made.canvas
        dealt = made.card
        session = made.card.dealsNothing ? Ledger.soldOutSession(revealAt: revealAt, now: now, cardID: made.card.id)
            : CardSession(cardID: made.card.id, revealAt: revealAt, now: now)
        shownAtWallClock = Date().timeIntervalSince1970
        if !recording.isEmpty, recording.last != .up { record(.up) }
        startZones()
    }

    /// A new size: the images laid out again to fill it, the scratched state carried over.
    func relayout(to size: PixelSize) throws(CanvasError) {
        let previous = canvas.mask
        let started = zones?.ticket.started ?? [], open = Set((0..<(zones?.ticket.zoneCount ?? 0)).filter { zones!.ticket.open[$0] })
        canvas = try dealt.images.canvas(at: size, layout: canvas.layout, brush: brush) { _ in previous }
        if session.isRevealed { canvas.revealAll() }
        startZones(started: started, open: open, carrying: previous)
    }

    /// `--record`: the gesture recorded, written to `path` as a trace (atomically).
    func saveRecording(to path: String) {
        let trace = Trace(canvas: canvas.size, records: [.brush(brush.radius)] + recording)
        do { try AtomicFile.write(Array(trace.serialized(comment: "recorded by \(versionText)").utf8), to: path) } catch {
            log("\(error)")
        }
    }
}
