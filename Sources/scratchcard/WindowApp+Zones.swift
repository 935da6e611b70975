import ScratchCore
import ScratchSound
import ScratchX11

/// The window's side of a zone card (a ticket): its rules played on the canvas
/// (`ZonePlay`), their events, the keys that move a focus ring between zones and open
/// the focused one, the ring itself, each zone's small sound.
extension WindowApp {
    /// The card on show is a zone card: its rules go on its canvas (a new card, a resumed
    /// one, one laid out again). `started` and `open` carry over a ticket in play.
    func startZones(started: [Int] = [], open: Set<Int> = []) {
        zoneFocus = nil
        guard let art = card.zoneArt else { zonePlay = nil; return }
        zonePlay = ZonePlay(card: art.card, canvas: canvas, revealAt: options.revealAtPercent / 100,
                            started: started, open: open) { shows, size in art.draw(shows, size: size) }
        session.leaveRevealToRules()
        if session.isRevealed { zonePlay?.finishFades() }
    }

    /// The ticket in play's started zones and open ones, to carry over to a new canvas.
    var zonesInPlay: (started: [Int], open: Set<Int>) {
        guard let ticket = zonePlay?.ticket else { return ([], []) }
        return (ticket.started, Set((0..<ticket.zoneCount).filter { ticket.open[$0] }))
    }

    /// The card on show's record for the outcome log and the store, ending `now`: a zone
    /// card's with the zones picked, in order.
    func outcomeRecord(endedBy quitting: Bool, now: Double) -> OutcomeRecord {
        var record = session.outcome(prize: card.prize, shownAtWallClock: shownAtWallClock,
                                     fraction: canvas.revealedFraction, now: now, endedBy: quitting)
        record.picks = zonePlay?.ticket.started
        return record
    }

    /// After a stroke: zones started and opened by it, and the card's reveal.
    func zonesAfterStroke() {
        guard let play = zonePlay else { return }
        let now = monotonicSeconds()
        emit(cardEvents(play.afterStroke(now: now), how: .threshold, now: now))
    }

    /// The rules' events as the window reports them; a zone's opening sounds, the last
    /// one's reveals the card.
    func cardEvents(_ events: [ZoneTicket.Event], how: RevealCause, now: Double) -> [CardEvent] {
        var out: [CardEvent] = []
        var sounded = false
        for event in events {
            switch event {
            case .zoneStart(let zone):
                out.append(.zoneStart(cardID: card.id, zone: zone))
            case .zoneRevealed(let zone, let shows):
                var symbol: Int?
                if case .symbol(let i) = shows { symbol = i }
                out.append(.zoneRevealed(cardID: card.id, zone: zone, symbol: symbol))
                // One small sound per batch: six decoys open as one.
                if !sounded { effects.player?.play(.zoneOpen); sounded = true }
                changesWaiting = true
            case .cardRevealed:
                canvas.allPensUp()
                out += session.reveal(by: how, fraction: canvas.revealedFraction, now: now)
            }
        }
        return out
    }

    /// Tab, Shift+Tab and the arrows move the focus ring; Space and Enter open the
    /// focused zone. True when the key was a zone card's.
    func handleZoneKey(_ event: WindowEvent) -> Bool {
        guard let play = zonePlay, case .key(let key, let modifiers) = event else { return false }
        let count = play.ticket.zoneCount
        switch key {
        case .space, .enter:
            guard let zone = zoneFocus else {
                moveZoneFocus(to: firstOpenable(from: 0, step: 1) ?? 0)
                return true
            }
            canvas.allPensUp()
            let now = monotonicSeconds()
            let events = play.open(zone, now: now)
            // Saved with the strokes, so that a restarted kiosk opens it again, in order.
            if !events.isEmpty { keep(.open(zone: zone)) }
            emit(cardEvents(events, how: .keyboard, now: now))
            return true
        case .other("Tab"), .other("ISO_Left_Tab"):
            let step = modifiers.contains(.shift) || key == .other("ISO_Left_Tab") ? -1 : 1
            let from = zoneFocus.map { ($0 + step + count) % count } ?? (step > 0 ? 0 : count - 1)
            moveZoneFocus(to: firstOpenable(from: from, step: step) ?? from)
            return true
        case .other("Right"), .other("Left"), .other("Up"), .other("Down"):
            guard let zones = canvas.zones else { return true }
            let here = zoneFocus ?? 0
            guard zoneFocus != nil else { moveZoneFocus(to: 0); return true }
            moveZoneFocus(to: Self.neighbour(of: here, in: zones.bounds, towards: key.keysymName) ?? here)
            return true
        default:
            return false
        }
    }

    /// The next zone from `from` (going by `step`) that a key may still open.
    func firstOpenable(from: Int, step: Int) -> Int? {
        guard let ticket = zonePlay?.ticket else { return nil }
        let count = ticket.zoneCount
        for k in 0..<count {
            let zone = ((from + k * step) % count + count) % count
            if ticket.isScratchable(zone) { return zone }
        }
        return nil
    }

    /// The nearest zone whose centre lies in `direction` ("Left", "Right", "Up", "Down").
    static func neighbour(of zone: Int, in bounds: [PixelRect], towards direction: String) -> Int? {
        func centre(_ r: PixelRect) -> (x: Double, y: Double) { (Double(r.x) + Double(r.width) / 2, Double(r.y) + Double(r.height) / 2) }
        let here = centre(bounds[zone])
        var best: (zone: Int, cost: Double)?
        for (i, r) in bounds.enumerated() where i != zone && !r.isEmpty {
            let c = centre(r), dx = c.x - here.x, dy = c.y - here.y
            let ahead: Double, aside: Double
            switch direction {
            case "Right": (ahead, aside) = (dx, dy)
            case "Left": (ahead, aside) = (-dx, dy)
            case "Down": (ahead, aside) = (dy, dx)
            default: (ahead, aside) = (-dy, dx)
            }
            guard ahead > 1 else { continue }
            let cost = ahead + 2 * Swift.abs(aside)
            if best == nil || cost < best!.cost { best = (i, cost) }
        }
        return best?.zone
    }

    /// Moves the ring: where it was is composited back from the canvas at the next
    /// repaint, which draws it around `zone`.
    func moveZoneFocus(to zone: Int) {
        if let old = zoneFocus { exposed.formUnion(focusRingRect(old)) }
        zoneFocus = zone
        exposed.formUnion(focusRingRect(zone))
        changesWaiting = true
    }

    /// The ring's rectangle around a zone: 3 to 6 device pixels outside its bounds.
    func focusRingRect(_ zone: Int) -> PixelRect {
        guard let bounds = canvas.zones?.bounds[zone], !bounds.isEmpty else { return .empty }
        let pad = Swift.max(4, Int((4 * scale.factor).rounded()))
        return PixelRect(x: bounds.x - pad - 2, y: bounds.y - pad - 2, width: bounds.width + 2 * pad + 4, height: bounds.height + 2 * pad + 4)
            .intersection(PixelRect(size: canvas.size))
    }

    /// Draws the focus ring (blue, 3 device pixels per point) into the framebuffer when
    /// `area` (what this repaint puts) meets it; returns what it drew.
    func drawZoneFocus(over area: PixelRect) -> PixelRect {
        guard let zone = zoneFocus else { return .empty }
        let ring = focusRingRect(zone)
        guard !ring.isEmpty, !ring.intersection(area).isEmpty else { return .empty }
        let thickness = Swift.max(3, Int((3 * scale.factor).rounded()))
        let framebuffer = surface.framebuffer
        var layoutBytes: [UInt8] = [0, 0, 0, 0]
        layoutBytes[framebuffer.layout.redOffset] = 0x15
        layoutBytes[framebuffer.layout.greenOffset] = 0x65
        layoutBytes[framebuffer.layout.blueOffset] = 0xC0
        layoutBytes[framebuffer.layout.padOffset] = 0xFF
        let word = layoutBytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        for y in ring.y..<ring.maxY {
            let edgeRow = y < ring.y + thickness || y >= ring.maxY - thickness
            let row = framebuffer.baseAddress + y * framebuffer.bytesPerRow
            for x in ring.x..<ring.maxX where edgeRow || x < ring.x + thickness || x >= ring.maxX - thickness {
                row.storeBytes(of: word, toByteOffset: x * 4, as: UInt32.self)
            }
        }
        return ring
    }
}
