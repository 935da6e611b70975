import Testing
@testable import ScratchCore

/// Images already in the framebuffer's layout (LayoutImage) make the same canvas as RGBA
/// images converted by it, in every layout.
@Suite struct LayoutImageTests {
    static let layouts: [PixelLayout] = [.bgrx, .rgbx, .xrgb, .xbgr]

    /// An opaque image with every channel different from its neighbours'.
    static func pattern(_ size: PixelSize, seed: Int) -> RGBAImage {
        var image = RGBAImage(size: size, filledWith: .black)
        for y in 0..<size.height {
            for x in 0..<size.width {
                image[x, y] = RGBA(r: UInt8((x * 37 + y * 11 + seed) % 256), g: UInt8((x * 5 + y * 91 + seed * 3) % 256),
                                   b: UInt8((x * y + seed * 7) % 256), a: 255)
            }
        }
        return image
    }

    @Test("LayoutImage pairs are the RGBA path's pairs, in every layout, for a pixel count that is not a multiple of 4",
          arguments: layouts)
    func samePairs(layout: PixelLayout) throws {
        let size = PixelSize(width: 13, height: 7)        // 91 pixels: the interleave's tail too
        let cover = Self.pattern(size, seed: 1), prize = Self.pattern(size, seed: 2)
        let old = CardPixels(cover: cover, prize: prize, layout: layout)
        let new = CardPixels(cover: LayoutImage(cover, layout: layout), prize: LayoutImage(prize, layout: layout))
        #expect(new.layout == layout)
        #expect(new.bytes == old.bytes)
    }

    @Test("the padding byte is written as 255 whatever the images hold there")
    func paddingIsSet() {
        let size = PixelSize(width: 9, height: 3)
        for layout in Self.layouts {
            var bytes = [UInt8](repeating: 0, count: size.pixelCount * 4)
            for i in 0..<size.pixelCount { bytes[i * 4 + layout.redOffset] = UInt8(i) }
            let image = LayoutImage(size: size, layout: layout, bytes: bytes)!
            let pixels = CardPixels(cover: image, prize: image)
            for i in 0..<(size.pixelCount * 2) { #expect(pixels.bytes[i * 4 + layout.padOffset] == 255) }
            #expect(pixels.bytes[8 * 5 + layout.redOffset] == 5)
        }
    }

    @Test("a canvas over a cover taken from a framebuffer: the cover's words copied before the prize is asked for")
    func coverFromFramebuffer() throws {
        let size = PixelSize(width: 21, height: 5)
        let cover = Self.pattern(size, seed: 4), prize = Self.pattern(size, seed: 5)
        for layout in Self.layouts {
            let bytesPerRow = size.width * 4 + 12
            let memory = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * size.height, alignment: 16)
            defer { memory.deallocate() }
            let framebuffer = Framebuffer(borrowing: memory, size: size, bytesPerRow: bytesPerRow, layout: layout)
            let coverPixels = LayoutImage(cover, layout: layout)
            for y in 0..<size.height {
                coverPixels.bytes.withUnsafeBytes { row in
                    (memory + y * bytesPerRow).copyMemory(from: row.baseAddress! + y * size.width * 4, byteCount: size.width * 4)
                }
            }
            let brush = try Brush(radius: 3)
            let canvas = ScratchCanvas(coverShownIn: framebuffer, prize: {
                // By now the cover is copied: the framebuffer may change (it is drawn on).
                memory.initializeMemory(as: UInt8.self, repeating: 0, count: bytesPerRow * size.height)
                return LayoutImage(prize, layout: layout)
            }, brush: brush)
            let old = try ScratchCanvas(cover: cover, prize: prize, layout: layout, brush: brush)
            #expect(canvas.pixels.bytes == old.pixels.bytes, "\(layout)")
            #expect(canvas.mask.unscratchablePixels == 0)
        }
    }

    @Test("a fill colour lands in each layout's places")
    func filled() {
        for layout in Self.layouts {
            let image = LayoutImage(size: PixelSize(width: 3, height: 2), layout: layout, filledWith: RGBA(r: 1, g: 2, b: 3))
            #expect(image[2, 1] == RGBA(r: 1, g: 2, b: 3))
            #expect(image.bytes[layout.padOffset] == 255)
        }
    }
}
