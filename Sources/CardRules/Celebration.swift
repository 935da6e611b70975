import Foundation
import ScratchCore

/// The win, seen: flakes of foil and confetti burst from the card's middle when it is
/// revealed, fly out, tumble and fall for `duration` seconds, shrinking away at the end,
/// then nothing. Each frame puts back (through the compositor) what the last frame's
/// flakes covered and draws the new ones over the card, so a frame costs the flakes'
/// pixels twice, not the card's.
///
///     var burst = Celebration(canvas: size, start: now)
///     let area = burst.redraw(canvas, into: framebuffer, at: now + 1 / 30.0)
///     if burst.isFinished { /* drop it */ }
public struct Celebration: Sendable {
    public let canvas: PixelSize
    public let start: Double
    /// Seconds from the reveal to the last flake gone.
    public static let duration = 1.5

    struct Flake {
        var x, y, vx, vy: Double
        let width, height: Double
        let spin, phase: Double
        let colour: RGBA
    }
    private var flakes: [Flake] = []
    /// What the last frame drew, to be put back first.
    private var drawn: [PixelRect] = []
    public private(set) var isFinished = false
    /// Pixels written by the last frame (put back plus drawn): the cost figure.
    public private(set) var lastFramePixels = 0

    /// Gold, silver and pale foil, with a few bright confetti colours.
    static let palette: [RGBA] = [
        RGBA(r: 255, g: 209, b: 64), RGBA(r: 235, g: 235, b: 242), RGBA(r: 255, g: 240, b: 170),
        RGBA(r: 196, g: 200, b: 212), RGBA(r: 250, g: 90, b: 120), RGBA(r: 70, g: 190, b: 255),
        RGBA(r: 120, g: 230, b: 140),
    ]

    /// Whether a colour is one of the flakes' (tests look for them on screen).
    public static func isFlakeColour(_ colour: RGBA) -> Bool { palette.contains(colour) }

    /// A burst over a canvas of `size`, starting at `start` (seconds, the clock that
    /// `redraw` is given); `seed` makes it the same every time (tests).
    public init(canvas size: PixelSize, start: Double, seed: UInt64 = 0x5EED) {
        canvas = size
        self.start = start
        var rng = SplitMix64(seed: seed)
        func random(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * Double(rng.next() >> 11) / Double(1 << 53)
        }
        let w = Double(size.width), h = Double(size.height)
        let unit = Swift.max(1, Swift.min(w, h) / 400)            // sizes and speeds follow the card
        let count = Swift.min(360, Swift.max(60, size.pixelCount / 1500))
        flakes.reserveCapacity(count)
        for i in 0..<count {
            let angle = random(0...(2 * Double.pi))
            let speed = random(160...560) * unit
            flakes.append(Flake(x: w / 2 + random(-0.12...0.12) * w, y: h / 2 + random(-0.12...0.12) * h,
                                vx: cos(angle) * speed, vy: sin(angle) * speed - 260 * unit,
                                width: random(4...9) * unit, height: random(3...7) * unit,
                                spin: random(5...14), phase: random(0...6.3),
                                colour: Self.palette[i % Self.palette.count]))
        }
    }

    /// The flakes' rectangles at time `t` (seconds since the start): a flake falls under
    /// gravity with air drag, tumbles (its height swings with its spin) and shrinks to
    /// nothing over the last 0.4 s.
    func rectangles(at t: Double) -> [(PixelRect, RGBA)] {
        guard t >= 0, t < Self.duration else { return [] }
        let unit = Swift.max(1, Double(Swift.min(canvas.width, canvas.height)) / 400)
        let gravity = 900 * unit, drag = 1.6
        let decay = (1 - exp(-drag * t)) / drag               // ∫ e^(-drag s) ds from 0 to t
        let fade = Swift.min(1, (Self.duration - t) / 0.4)
        var out: [(PixelRect, RGBA)] = []
        out.reserveCapacity(flakes.count)
        for f in flakes {
            let x = f.x + f.vx * decay
            let y = f.y + f.vy * decay + gravity * (t - decay) / drag
            let width = f.width * fade
            let height = Swift.max(1, f.height * Swift.abs(cos(f.spin * t + f.phase))) * fade
            guard width >= 0.5, x.isFinite, y.isFinite else { continue }
            let rect = PixelRect(x: Int((x - width / 2).rounded()), y: Int((y - height / 2).rounded()),
                                 width: Swift.max(1, Int(width.rounded())), height: Swift.max(1, Int(height.rounded())))
                .intersection(PixelRect(size: canvas))
            if !rect.isEmpty { out.append((rect, f.colour)) }
        }
        return out
    }

    /// One frame at `now`: the last frame's flakes are composited away, the new ones
    /// drawn. Returns the rectangle written (to put on screen); past the end it puts the
    /// card back whole under the last flakes and is finished.
    ///
    /// `fade`: the cover's fade the card is shown with now, if it is still fading (what
    /// the flakes covered is put back as the rest of the card shows it).
    public mutating func redraw(_ card: ScratchCanvas, into framebuffer: Framebuffer, at now: Double,
                                fade: Double? = nil) -> PixelRect {
        var area = PixelRect.empty
        var pixels = 0
        for rect in drawn {
            if let fade { card.composite(rect, into: framebuffer, fade: fade) } else { card.composite(rect, into: framebuffer) }
            area.formUnion(rect)
            pixels += rect.area
        }
        drawn.removeAll(keepingCapacity: true)
        let t = now - start
        if t >= Self.duration { isFinished = true }
        let layout = framebuffer.layout
        let bounds = PixelRect(size: framebuffer.size)
        for (rect, colour) in rectangles(at: t) {
            let r = rect.intersection(bounds)
            guard !r.isEmpty else { continue }
            for y in r.y..<r.maxY {
                let row = (framebuffer.baseAddress + y * framebuffer.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                for x in r.x..<r.maxX {
                    let p = row + x * 4
                    p[layout.redOffset] = colour.r
                    p[layout.greenOffset] = colour.g
                    p[layout.blueOffset] = colour.b
                }
            }
            drawn.append(r)
            area.formUnion(r)
            pixels += r.area
        }
        lastFramePixels = pixels
        return area
    }
}
