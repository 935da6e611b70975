extension ScratchCanvas {
    /// Composites `rect` as if every mask value m were lifted toward 255 by `fade`
    /// (0...1): m + (255 - m) * fade. At 0 this is the card as scratched, at 1 the whole
    /// prize. The mask itself is not changed: the fade is only what is shown.
    public func composite(_ rect: PixelRect, into framebuffer: Framebuffer, fade: Double) {
        let f = Int((Swift.min(Swift.max(fade, 0), 1) * 255).rounded())
        if f == 0 { return composite(rect, into: framebuffer) }
        let rect = rect.intersection(PixelRect(size: size)).intersection(PixelRect(size: framebuffer.size))
        guard !rect.isEmpty else { return }
        // The lifted value for each of the 256 mask values, exactly rounded.
        var lifted = [UInt8](repeating: 0, count: 256)
        for m in 0..<256 { lifted[m] = UInt8(blend255(m, 255, f)) }
        let width = size.width
        mask.withUnsafeBytes { maskBytes in
            pixels.bytes.withUnsafeBytes { source in
                lifted.withUnsafeBufferPointer { table in
                    for row in rect.y..<rect.maxY {
                        let out = framebuffer.baseAddress + row * framebuffer.bytesPerRow
                        for x in rect.x..<rect.maxX {
                            let i = row * width + x
                            Compositor.blendPixel(UInt64(table[Int(maskBytes[i])]), source.baseAddress! + i * 8, out + x * 4)
                        }
                    }
                }
            }
        }
    }
}
