import ScratchCore

/// The window's size in device pixels (docs/ARCHITECTURE.md, Pixel conventions: sizes are in
/// points). In kiosk mode the screen's; else `--size` (points) or the card's own size
/// in points (an image file is a 96-dpi picture: a 640x400 PNG is 640x400 pt), times
/// the display scale, rounded to whole pixels and kept within what X allows.
///
///     windowSize(kiosk: false, screen: screen, requestedPoints: nil,
///                cardPoints: PixelSize(width: 640, height: 400), scale: 2)   // 1280x800
func windowSize(kiosk: Bool, screen: PixelSize, requestedPoints: PixelSize?, cardPoints: PixelSize,
                scale: Double) -> PixelSize {
    if kiosk { return screen }
    let points = requestedPoints ?? cardPoints
    func pixels(_ p: Int) -> Int { Int(min(32767, max(1, (Double(p) * scale).rounded()))) }
    return PixelSize(width: pixels(points.width), height: pixels(points.height))
}
