// libFuzzer target: a parsed trace replayed through the engine, as `scratchcard render`
// does with a trace file: any brush radius and any coordinates the parser accepts
// (finite decimals up to 64 characters, so up to about ±1e308) reach the mask, the brush
// and the compositor. The canvas is small and fixed (97x61) so each input is quick;
// the events are capped at 4096. Each trace is replayed twice: keeping damage, and with
// the strokes painting as they go (the 4K path), which must leave the same pixels.
// Built by scripts/fuzz.sh replay; see FUZZING.md.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReplay(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    guard let text = String(validating: bytes, as: UTF8.self),
          var trace = try? Trace(parsing: text, name: "fuzz.trace") else { return 0 }
    trace.records = Array(trace.records.prefix(4096))
    let canvasSize = PixelSize(width: 97, height: 61)
    var cover = RGBAImage(size: canvasSize, filledWith: RGBA(r: 200, g: 200, b: 200))
    cover[3, 3] = RGBA(r: 0, g: 0, b: 0, a: 0)
    let prize = RGBAImage(size: canvasSize, filledWith: RGBA(r: 10, g: 20, b: 30))
    guard let canvas = try? ScratchCanvas(cover: cover, prize: prize, layout: .bgrx, brush: trace.initialBrush) else {
        preconditionFailure("a canvas of equal images")
    }
    let framebuffer = Framebuffer(size: canvasSize, layout: .bgrx)
    trace.replay(on: canvas) { dirty in
        precondition(dirty.isEmpty || dirty.intersection(PixelRect(size: canvasSize)) == dirty, "dirty rect off the canvas")
        _ = canvas.compositeChanges(into: framebuffer)
    }
    let fraction = canvas.revealedFraction
    precondition(fraction >= 0 && fraction <= 1)
    canvas.composite(PixelRect(size: canvasSize), into: framebuffer)

    // The same trace with the strokes painting as they go (the 4K path, forced on this
    // small canvas), a third of them keeping damage as while a put is in flight: the
    // same mask and the same pixels.
    guard let painting = try? ScratchCanvas(cover: cover, prize: prize, layout: .bgrx, brush: trace.initialBrush) else {
        preconditionFailure("a canvas of equal images")
    }
    painting.paintsDirectly = true
    let painted = Framebuffer(size: canvasSize, layout: .bgrx)
    painting.composite(PixelRect(size: canvasSize), into: painted)
    var events = 0
    trace.replay(on: painting, afterEvent: { _ in
        events += 1
        if events % 5 == 0 { _ = painting.compositeChanges(into: painted) }
    }, drawingInto: { $0 % 3 == 2 ? nil : painted })
    _ = painting.compositeChanges(into: painted)
    precondition(painting.mask.revealedPixels == canvas.mask.revealedPixels, "painting changed the meter")
    precondition(painted.rgbaImage() == framebuffer.rgbaImage(), "painting left other pixels than compositing")
    return 0
}
