import Dealing
import ScratchCore
import ScratchX11
import CardRules
import Threads

/// The scratch window as set up for the first card: the display and its visual's pixel
/// layout, the scale and the brush at it, the window at its size and its surface. Bad
/// input ends the program with exit code 2; a display that cannot be used, 1.
struct OpenedWindow {
    let display: X11Display
    let layout: PixelLayout
    let scale: DisplayScale
    let brush: Brush
    let size: PixelSize
    let window: X11Window
    let surface: WindowSurface

    /// Opens the display and a window for a card of `cardPoints` (in kiosk mode, the screen).
    init(options: WindowOptions, cardPoints: PixelSize) throws(ExitError) {
        do { display = try X11Display(name: options.display) } catch { throw ExitError(code: 1, message: "\(error)") }
        guard let layout = display.pixelLayout else {
            throw ExitError(code: 1, message: display.visualProblem ?? "no visual to draw with")
        }
        self.layout = layout
        scale = display.scale(option: options.scale)
        do { brush = try Brush(radius: options.brushPoints * scale.factor) } catch {
            throw ExitError(code: 2, message: "--brush: \(error)")
        }
        size = windowSize(kiosk: options.kiosk, screen: display.screenSize, requestedPoints: options.size,
                          cardPoints: cardPoints, scale: scale.factor)
        do {
            window = try X11Window(display: display, size: size, title: options.title)
            surface = try WindowSurface(window: window, size: size, useSharedMemory: options.useSharedMemory)
        } catch { throw ExitError(code: 1, message: "\(error)") }
    }

    /// `--verbose`: how the window was set up (`touch`: XInput touch events came; the
    /// pace, from `screen`).
    func logSetUp(options: WindowOptions, touch: Bool, screen: PacedScreen) {
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
        log("at most \(String(format4: screen.rate)) puts a second (\(screen.rateSource))")
    }
}

/// The first card on show, when the window maps: a fresh card with the built-in foil is
/// drawn straight into the window's image (`drawnStraight`: its first frame is ready once
/// the canvas is, Card.swift); else its canvas is made at the window's size, with the
/// strokes and the state the store held, when it took the card up again.
func firstCardOnShow(_ dealt: DealtCard, in opened: OpenedWindow, ledger: Ledger, options: WindowOptions,
                     shownAtWallClock: Double) throws(ExitError) -> (card: CardOnShow, drawnStraight: Bool) {
    let images = dealt.images, size = opened.size, canvas: ScratchCanvas
    var drawnStraight = false
    if ledger.resumed == nil, let drawn = images.canvas(showingCoverIn: opened.surface.framebuffer, brush: opened.brush) {
        canvas = drawn
        drawnStraight = true
    } else {
        do {
            canvas = try images.canvas(at: size, layout: opened.layout, brush: opened.brush) { filledCover in
                ledger.resumedMask(size: size, images: images, filledCover: filledCover, zones: dealt.zoneArt?.card)
            }
        } catch { throw ExitError(code: 2, message: "\(error)") }
    }
    let now = monotonicSeconds(), revealAt = options.revealAtPercent / 100
    let session = ledger.firstSession(card: dealt, revealAt: revealAt, fraction: canvas.revealedFraction, now: now)
    let card = CardOnShow(dealt: dealt, canvas: canvas, session: session, shownAtWallClock: shownAtWallClock,
                          brush: opened.brush, revealAt: revealAt, maxFingers: options.maxFingers,
                          recordsGesture: options.record != nil, startedZones: ledger.resumedZoneOrder)
    return (card, drawnStraight)
}
