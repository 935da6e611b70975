// libFuzzer target: saved strokes (the store's `strokes` rows, StrokeLog text) read and
// replayed through the mask, as a restarted kiosk does with the card on show. Canvas
// lines are accepted up to 256 pixels a side here so each input is quick (the parser's
// own limits, 16384 a side and 2^26 pixels, are checked by the parser before any
// allocation); the records are capped at 8192. Every mask the replay makes must have
// the size asked for and an exact meter: the fraction recounted from the bytes matches.
// Built by scripts/fuzz.sh strokes; see FUZZING.md.
import ScratchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStrokes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    guard let text = String(validating: bytes, as: UTF8.self),
          let log = try? StrokeLog(parsing: text, name: "fuzz") else { return 0 }
    for case let .canvas(canvas, _) in log.records where canvas.width > 256 || canvas.height > 256 { return 0 }
    let trimmed = StrokeLog(records: Array(log.records.prefix(8192)))
    // The text written back reads as the same records.
    guard let again = try? StrokeLog(parsing: trimmed.text, name: "fuzz"), again == trimmed else {
        preconditionFailure("saved strokes do not read back as written")
    }
    let target = PixelSize(width: 53, height: 37)
    let mask = trimmed.replay(to: target) { canvasSize, previous in
        var cover = RGBAImage(size: canvasSize, filledWith: RGBA(r: 200, g: 200, b: 200))
        cover[0, 0] = RGBA(r: 0, g: 0, b: 0, a: 0)
        let made = Mask(size: canvasSize, keeping: previous, cover: cover)
        precondition(made.size == canvasSize)
        return made
    }
    precondition(mask.size == target, "the replay did not end at the size asked for")
    precondition(mask.revealedPixels == mask.recountRevealedPixels(), "the meter drifted")
    let fraction = mask.revealedFraction
    precondition(fraction >= 0 && fraction <= 1)
    return 0
}
