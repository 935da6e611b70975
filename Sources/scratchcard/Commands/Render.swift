import ScratchCore
import ScratchImage

/// `scratchcard render`: replays a trace with no display and writes the final card.
func render(_ options: RenderOptions) throws(ExitError) {
    let trace: Trace
    do { trace = try Trace.load(path: options.trace) } catch { throw ExitError(code: 2, message: "\(error)") }
    let images: FilledImages
    do { images = try CardImages.load(cover: options.cover, prize: options.prize).filling(trace.canvas) } catch {
        throw ExitError(code: error.exitCode, message: "\(error)")
    }
    let canvas: ScratchCanvas
    do {
        canvas = try ScratchCanvas(cover: images.cover, prize: images.prize, layout: .rgbx, brush: trace.initialBrush)
    } catch { throw ExitError(code: 2, message: "\(error)") }
    trace.replay(on: canvas)
    let framebuffer = Framebuffer(size: trace.canvas, layout: .rgbx)
    canvas.composite(PixelRect(size: trace.canvas), into: framebuffer)
    do { try PNGFile.write(framebuffer.rgbaImage(), to: options.out) } catch {
        throw ExitError(code: 1, message: "\(error)")
    }
}

/// Ends the program with a message on stderr and an exit code.
struct ExitError: Error {
    let code: Int32
    let message: String
}
