import Foundation
import ScratchCore
import CardRules

/// The strokes of the card on show on their way to the store, in batches: one commit
/// (one fsync of the WAL) per batch, never one per event. A batch is due `flushInterval`
/// after its first record while a pen moves, and at once after a pen-up (at that wake,
/// after its repaint). Each batch starts with the canvas its strokes were made at.
struct StrokeBatch {
    /// The longest a stroke waits before it is saved: under the 250 ms promised, with
    /// room for a pacer's slot and the commit's fsync on a busy disk (tens of ms).
    static let flushInterval = 0.15

    private var lines = ""
    private var started: Double?
    /// The `canvas` line the batch's strokes are at, once one was written.
    private var canvasLine: String?
    /// When a pen last touched the card, on the wall clock: saved with the strokes.
    private(set) var lastTouchWallClock = 0.0

    var isEmpty: Bool { lines.isEmpty }

    /// When the strokes waiting must be saved, if any wait.
    var due: Double? { started.map { $0 + Self.flushInterval } }

    /// One stroke record, made on a canvas of `canvas` with a brush of `brush` pixels.
    mutating func add(_ record: StrokeLog.Record, canvas: PixelSize, brush: Double, now: Double) {
        let tag = StrokeLog.line(.canvas(canvas, brush: brush))
        if canvasLine != tag {
            lines += tag + "\n"
            canvasLine = tag
        }
        lines += StrokeLog.line(record) + "\n"
        if started == nil { started = now }
        lastTouchWallClock = Date().timeIntervalSince1970
        // A pen-up is saved at this wake, after its repaint.
        if case .up = record { started = now - Self.flushInterval }
    }

    /// The lines waiting, taken: the next batch starts empty.
    mutating func take() -> String {
        defer { drop() }
        return lines
    }

    /// The lines waiting are dropped (their card is ending).
    mutating func drop() {
        lines = ""
        started = nil
        canvasLine = nil
    }
}
