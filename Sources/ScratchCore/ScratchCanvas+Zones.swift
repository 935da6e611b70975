extension ScratchCanvas {
    /// The card's scratch zones and their meters; nil when it scratches anywhere.
    public var zones: MaskZones? { mask.zones }

    /// Gives the card scratch zones (see `Mask.setZones`). A zone's prize is set when it
    /// is chosen (`setPrize`), after the stroke that first touched it and before the
    /// composite that shows it: the stroke that first touches a zone keeps its pixels
    /// there as damage even on a canvas that paints as it goes.
    public func setZones(_ outlines: [ZoneOutline], touchOrder: [Int] = [], touchLimit: Int? = nil, carrying previous: Mask? = nil) {
        mask.setZones(outlines, touchOrder: touchOrder, touchLimit: touchLimit, carrying: previous)
    }

    /// Locks zone `i` (the brush no longer writes there) or unlocks it.
    public func setScratchable(_ i: Int, _ scratchable: Bool) { mask.setScratchable(i, scratchable) }

    /// Counts zone `i` as having taken ink (a key opened it), for the touch limit.
    public func markTouched(_ i: Int) { mask.markTouched(i) }

    /// At most `limit` zones take ink.
    public func setTouchLimit(_ limit: Int?) { mask.setTouchLimit(limit) }

    /// Reveals every pixel of zone `i`; returns the rectangle that changed (composited
    /// by the next `compositeChanges`).
    @discardableResult
    public func revealZone(_ i: Int) -> PixelRect { mask.revealZone(i) }

    /// Replaces the prize under `image`'s pixels placed with their top-left corner at
    /// (`x`, `y`) (clipped to the card): what a zone shows, drawn when it is chosen. The
    /// image's alpha is ignored. Nothing on screen changes until the next composite.
    public func setPrize(_ image: RGBAImage, x: Int, y: Int) {
        let rect = PixelRect(x: x, y: y, width: image.size.width, height: image.size.height)
            .intersection(PixelRect(size: size))
        guard !rect.isEmpty else { return }
        let rs = UInt32(layout.redOffset * 8), gs = UInt32(layout.greenOffset * 8), bs = UInt32(layout.blueOffset * 8)
        let padding = ~(0xFF << rs | 0xFF << gs | 0xFF << bs) as UInt32
        let width = size.width, imageWidth = image.size.width
        image.bytes.withUnsafeBufferPointer { rgba in
            pixels.bytes.withUnsafeMutableBytes { pairs in
                for row in rect.y..<rect.maxY {
                    for column in rect.x..<rect.maxX {
                        let s = ((row - y) * imageWidth + (column - x)) * 4
                        let word = padding | UInt32(rgba[s]) << rs | UInt32(rgba[s + 1]) << gs | UInt32(rgba[s + 2]) << bs
                        pairs.storeBytes(of: word, toByteOffset: (row * width + column) * 8 + 4, as: UInt32.self)
                    }
                }
            }
        }
    }

    /// The prize as it stands, with what zones show drawn in (`setPrize`), as straight
    /// RGBA: on a ticket, whose prize is its cover outside the zones, what it shows
    /// once every zone is open.
    public func prizeImage() -> RGBAImage {
        let rs = UInt32(layout.redOffset * 8), gs = UInt32(layout.greenOffset * 8), bs = UInt32(layout.blueOffset * 8)
        var image = RGBAImage(size: size, filledWith: RGBA(r: 0, g: 0, b: 0))
        pixels.bytes.withUnsafeBytes { pairs in
            image.bytes.withUnsafeMutableBufferPointer { rgba in
                for i in 0..<size.pixelCount {
                    let word = pairs.load(fromByteOffset: i * 8 + 4, as: UInt32.self)
                    rgba[i * 4] = UInt8(truncatingIfNeeded: word >> rs)
                    rgba[i * 4 + 1] = UInt8(truncatingIfNeeded: word >> gs)
                    rgba[i * 4 + 2] = UInt8(truncatingIfNeeded: word >> bs)
                }
            }
        }
        return image
    }

    /// Shows `image` (the canvas's size) as the whole card from now on: the prize
    /// replaced, the card revealed, every pixel composited by the next
    /// `compositeChanges` (a revealed ticket with its claim drawn over it).
    public func showWhole(_ image: RGBAImage) {
        precondition(image.size == size, "the picture must be the canvas's size")
        setPrize(image, x: 0, y: 0)
        mask.revealAll()
        mask.damageAll()
    }

    /// Composites zone `i`'s pixels as if its mask were lifted toward 255 by `fade`
    /// (0...1): the zone fading open. The mask is not changed (`revealZone` does that at
    /// the end). Returns the zone's bounds.
    @discardableResult
    public func composite(zone i: Int, fade: Double, into framebuffer: Framebuffer) -> PixelRect {
        guard let zones = mask.zones, zones.outlines.indices.contains(i) else { return .empty }
        let f = Int((Swift.min(Swift.max(fade, 0), 1) * 255).rounded())
        var lifted = [UInt8](repeating: 0, count: 256)
        for m in 0..<256 { lifted[m] = UInt8(blend255(m, 255, f)) }
        let width = size.width
        let columns = Swift.min(width, framebuffer.size.width), rows = Swift.min(size.height, framebuffer.size.height)
        mask.withUnsafeBytes { maskBytes in
            pixels.bytes.withUnsafeBytes { source in
                zones.forEachSpan(of: i) { row, first, last in
                    guard row < rows else { return }
                    let out = framebuffer.baseAddress + row * framebuffer.bytesPerRow
                    for x in first...Swift.min(last, columns - 1) {
                        let k = row * width + x
                        Compositor.blendPixel(UInt64(lifted[Int(maskBytes[k])]), source.baseAddress! + k * 8, out + x * 4)
                    }
                }
            }
        }
        return zones.bounds[i]
    }
}
