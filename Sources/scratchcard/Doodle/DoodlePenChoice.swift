import ScratchCore

/// The doodle's pen as the user chooses it with keys (1 to 9: a colour of the palette;
/// + and -: wider, narrower), and the swatch that shows it in the window's corner for a
/// second after each choice: a light square, and in it a dot of the pen's colour and width.
struct DoodlePenChoice {
    private(set) var colour: RGBA
    /// The pen's width in points.
    private(set) var widthPoints: Double
    /// The swatch is shown until this monotonic time, over `swatch`.
    private(set) var swatchUntil: Double?
    private(set) var swatch = PixelRect.empty
    static let swatchSeconds = 1.0

    init(colour: RGBA, widthPoints: Double) {
        self.colour = colour
        self.widthPoints = widthPoints
    }

    /// A key, by name: when it chooses the pen, the swatch shows the new pen until a
    /// second from `now` in a window of `window` pixels (`scale` pixels a point); the area
    /// to repaint (where the swatch was, where it is). Nil: not a pen key.
    mutating func choose(_ key: String, now: Double, scale: Double, window: PixelSize) -> PixelRect? {
        switch key {
        case "1", "2", "3", "4", "5", "6", "7", "8", "9", "KP_1", "KP_2", "KP_3", "KP_4", "KP_5", "KP_6", "KP_7", "KP_8", "KP_9":
            colour = DoodlePen.palette[Int(String(key.last!))! - 1]
        case "plus", "equal", "KP_Add":
            widthPoints = DoodlePen.wider(widthPoints)
        case "minus", "underscore", "KP_Subtract":
            widthPoints = DoodlePen.narrower(widthPoints)
        default:
            return nil
        }
        let old = swatch        // the old one, if it was larger
        swatchUntil = now + Self.swatchSeconds
        let diameter = widthPoints * scale
        let limit = Swift.max(8, Swift.min(window.width, window.height) - 16)
        let side = Swift.min(limit, Swift.max(40, Int(diameter.rounded(.up)) + 16))
        swatch = PixelRect(x: 8, y: 8, width: side, height: side).intersection(PixelRect(size: window))
        return old.union(swatch)
    }

    /// At `now`: the swatch's area to repaint, if its second is over.
    mutating func swatchEnded(now: Double) -> PixelRect? {
        guard let until = swatchUntil, now >= until else { return nil }
        swatchUntil = nil
        return swatch
    }

    /// The swatch's area, when it is shown and `area` (to repaint) meets it.
    func swatchShown(meeting area: PixelRect) -> PixelRect? {
        guard swatchUntil != nil, !swatch.intersection(area).isEmpty else { return nil }
        return swatch
    }

    /// The swatch drawn into `framebuffer` (at `scale` pixels a point), over the view
    /// composited there.
    func drawSwatch(into framebuffer: Framebuffer, scale: Double) {
        let r = swatch
        guard r.width > 4, r.height > 4 else { return }
        let border = RGBA(r: 0x20, g: 0x20, b: 0x20), paper = RGBA(r: 0xF4, g: 0xF4, b: 0xF4)
        let cx = Double(r.x) + Double(r.width) / 2, cy = Double(r.y) + Double(r.height) / 2
        let radius = Swift.min(widthPoints * scale, Double(r.width - 8)) / 2
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX {
                if x < r.x + 2 || y < r.y + 2 || x >= r.maxX - 2 || y >= r.maxY - 2 { framebuffer.put(border, x, y); continue }
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                let coverage = Swift.min(1, Swift.max(0, radius + 0.5 - (dx * dx + dy * dy).squareRoot()))
                let m = Int(coverage * 255 + 0.5)
                func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Int(a) * (255 - m) + Int(b) * m + 127) / 255) }
                framebuffer.put(RGBA(r: mix(paper.r, colour.r), g: mix(paper.g, colour.g), b: mix(paper.b, colour.b)), x, y)
            }
        }
    }
}
