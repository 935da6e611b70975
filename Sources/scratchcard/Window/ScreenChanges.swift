import ScratchCore

/// What the scratch window's screen does not show yet: strokes in the mask since the
/// last put, an area exposed or laid out again (to composite in full), and an area the
/// framebuffer already shows as the canvas has it but that is not on screen yet (the
/// first frame of a card drawn straight into it). The repaint composites them (`composite`).
struct ScreenChanges {
    /// Strokes changed the mask since the last put.
    private var strokesWaiting = false
    private var exposed = PixelRect.empty
    private var drawnNotPut = PixelRect.empty

    /// Whether strokes or an exposed area wait to be put.
    var putWanted: Bool { strokesWaiting || !exposed.isEmpty }

    /// True when nothing is drawn and waiting to be put only.
    var nothingDrawnNotPut: Bool { drawnNotPut.isEmpty }

    mutating func stroked() { strokesWaiting = true }

    /// `rect` is to be composited in full (an expose, a new card, a new size).
    mutating func expose(_ rect: PixelRect) { exposed.formUnion(rect) }

    /// The framebuffer shows `rect` already: it needs only a put.
    mutating func drawnStraight(_ rect: PixelRect) { drawnNotPut.formUnion(rect) }

    /// Composites into `framebuffer` what strokes changed on `card`, the fade's frame
    /// when an animation frame is due, and what was exposed; returns the area to put
    /// (with what was drawn and not put). Nothing waits after it.
    mutating func composite(_ card: CardOnShow, into framebuffer: Framebuffer, now: Double, frameDue: Bool) -> PixelRect {
        var area = card.compositeChanges(into: framebuffer)
        strokesWaiting = false
        // The fade's area joins the strokes': a ticket's zone fades open in its own
        // bounds while a pen scratches another zone, whose pixels must go up too.
        if frameDue, let faded = card.drawFade(now: now, into: framebuffer) { area.formUnion(faded) }
        if !exposed.isEmpty {
            card.composite(exposed, into: framebuffer)
            area.formUnion(exposed)
            exposed = .empty
        }
        area.formUnion(drawnNotPut)
        drawnNotPut = .empty
        return area
    }
}
