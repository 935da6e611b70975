import ScratchCore
import CardRules

/// A zone ticket being played on a canvas: the rules (`ZoneTicket`) joined to the pixels
/// (`ScratchCanvas` with zones). After each stroke it starts the zones that took their
/// first ink (choosing and drawing what they show before the composite that shows them),
/// locks the rest once every pick is started, reveals a zone when its own meter reaches
/// the threshold, and fades zones open on the clock. It draws what a zone shows through
/// `drawShows`, given by the caller (CardArt, or a test's flat colours).
///
///     let play = ZonePlay(card: zoneCard, canvas: canvas, revealAt: 0.6) { shows, size in art(shows, size) }
///     let dirty = canvas.penMove(to: point)
///     for event in play.afterStroke(now: t) { ... }
///     area.formUnion(play.animate(into: framebuffer, now: t))
final class ZonePlay {
    let card: ZoneCard
    let canvas: ScratchCanvas
    private(set) var ticket: ZoneTicket
    /// The fraction (0...1) of a zone's pixels at which it is revealed.
    let revealAt: Double
    /// How long a zone takes to fade open, in seconds.
    let fadeDuration: Double
    let drawShows: (ZoneTicket.Shows, PixelSize) -> RGBAImage
    /// Zones fading open, and when each began.
    private var fading: [(zone: Int, since: Double)] = []

    /// A fresh ticket, or one taken up again: `started` in the order they were started,
    /// `open` those that were revealed (both from the store, or the ticket before a
    /// resize, whose mask `carrying` is: its zones' scratches carried zone by zone).
    init(card: ZoneCard, canvas: ScratchCanvas, revealAt: Double, fadeDuration: Double = 0.3,
                started: [Int] = [], open: Set<Int> = [], carrying previous: Mask? = nil,
                drawShows: @escaping (ZoneTicket.Shows, PixelSize) -> RGBAImage) {
        self.card = card
        self.canvas = canvas
        self.revealAt = Swift.min(Swift.max(revealAt, 0), 1)
        self.fadeDuration = fadeDuration
        self.drawShows = drawShows
        ticket = ZoneTicket(resuming: started, open: [], zoneCount: card.zones.count, pick: card.pick)
        canvas.setZones(card.outlines(in: canvas.size), touchOrder: ticket.started, touchLimit: ticket.picks, carrying: previous)
        // Zones scratched past the threshold before (a resumed ticket) are open.
        let reached = ticket.started.filter { canvas.zones!.revealedFraction($0) >= self.revealAt }
        ticket = ZoneTicket(resuming: started, open: open.union(reached), zoneCount: card.zones.count, pick: card.pick)
        for zone in 0..<ticket.zoneCount where ticket.shows(zone) != nil { drawZone(zone) }
        for zone in 0..<ticket.zoneCount where ticket.open[zone] { canvas.revealZone(zone) }
        lockWhatTheRulesLock()
    }

    /// The canvas took a stroke: zones that took their first ink start (their symbol
    /// drawn now, before any of their pixels is composited), and zones whose meter
    /// reached the threshold are revealed. Returns the rules' events, in order.
    func afterStroke(now: Double) -> [ZoneTicket.Event] {
        guard let zones = canvas.zones else { return [] }
        var events: [ZoneTicket.Event] = []
        for zone in zones.touchOrder where ticket.shows(zone) == nil {
            let began = ticket.start(zone)
            events += began
            if !began.isEmpty { drawZone(zone) }
        }
        for zone in ticket.started where !ticket.open[zone] && zones.revealedFraction(zone) >= revealAt {
            events += reveal(zone, now: now)
        }
        lockWhatTheRulesLock()
        return events
    }

    /// A key opens `zone` whole: a pick, if it may still be picked, then its reveal.
    func open(_ zone: Int, now: Double) -> [ZoneTicket.Event] {
        guard zone >= 0, zone < ticket.zoneCount, ticket.isScratchable(zone) else { return [] }
        let began = ticket.start(zone)
        if !began.isEmpty {
            canvas.markTouched(zone)
            drawZone(zone)
        }
        let events = began + reveal(zone, now: now)
        lockWhatTheRulesLock()
        return events
    }

    /// True while a zone is fading open.
    var isAnimating: Bool { !fading.isEmpty }

    /// Draws the fading zones' next frame into `framebuffer`; a zone whose fade is over
    /// is revealed in the mask (composited by the next `compositeChanges`). Returns the
    /// area drawn.
    func animate(into framebuffer: Framebuffer, now: Double) -> PixelRect {
        var area = PixelRect.empty
        fading.removeAll { item in
            let t = fadeDuration > 0 ? (now - item.since) / fadeDuration : 1
            if t >= 1 {
                area.formUnion(canvas.revealZone(item.zone))
                return true
            }
            area.formUnion(canvas.composite(zone: item.zone, fade: t, into: framebuffer))
            return false
        }
        return area
    }

    /// Ends every fade at once (a card dealt away, a snapshot).
    func finishFades() {
        for item in fading { canvas.revealZone(item.zone) }
        fading.removeAll()
    }

    private func reveal(_ zone: Int, now: Double) -> [ZoneTicket.Event] {
        let events = ticket.reveal(zone)
        for case .zoneRevealed(let opened, let shows) in events {
            if case .decoy = shows { drawZone(opened) }
            fading.append((opened, now))
        }
        return events
    }

    /// Draws what `zone` shows into the canvas's prize, at the zone's pixel size.
    private func drawZone(_ zone: Int) {
        guard let shows = ticket.shows(zone), let bounds = canvas.zones?.bounds[zone], !bounds.isEmpty else { return }
        canvas.setPrize(drawShows(shows, bounds.size), x: bounds.x, y: bounds.y)
    }

    /// The brush writes only where the rules let the player scratch.
    private func lockWhatTheRulesLock() {
        for zone in 0..<ticket.zoneCount {
            canvas.setScratchable(zone, ticket.isScratchable(zone))
        }
    }
}
