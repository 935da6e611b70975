import CardRules
import Testing
import CardArt
import ScratchCore

/// The built-in card drawn straight in cairo's own pixel order (the window's first frame
/// path): exactly the pixels the RGBA path gives once the canvas has converted them, and
/// every pixel painted, opaque.
@Suite struct NativeDrawingTests {
    static let sizes = [PixelSize(width: 640, height: 400), PixelSize(width: 333, height: 217), PixelSize(width: 1280, height: 720)]

    /// What a framebuffer shows for `canvas`: covered (`revealed` false) or revealed whole.
    static func shown(_ canvas: ScratchCanvas, revealed: Bool) -> RGBAImage {
        if revealed { canvas.revealAll() }
        let framebuffer = Framebuffer(size: canvas.size, layout: canvas.layout)
        canvas.composite(PixelRect(size: canvas.size), into: framebuffer)
        return framebuffer.rgbaImage()
    }

    /// Both sides of a card made by the RGBA path and by the native path, as shown.
    static func expectSameCard(old: ScratchCanvas, new: ScratchCanvas, _ what: String) {
        #expect(old.size == new.size && old.layout == new.layout)
        for revealed in [false, true] {
            let a = shown(old, revealed: revealed), b = shown(new, revealed: revealed)
            let differing = zip(a.bytes, b.bytes).filter { $0 != $1 }.count
            #expect(differing == 0, "\(what), \(revealed ? "prize" : "cover"): \(differing) bytes differ")
        }
    }

    /// Every pixel's fourth byte (cairo's alpha) is 255: the drawing painted all of it, opaque.
    static func expectOpaque(_ image: LayoutImage, _ what: String) {
        let pad = image.layout.padOffset
        let translucent = stride(from: pad, to: image.bytes.count, by: 4).filter { image.bytes[$0] != 255 }.count
        #expect(translucent == 0, "\(what): \(translucent) pixels not painted opaque")
    }

    @Test("the native cover and prize are the RGBA path's pixels in cairo's order, opaque, at several sizes",
          arguments: sizes)
    func sameAsRGBAPath(size: PixelSize) throws {
        let brush = try Brush(radius: 10)
        let layout = CardArt.nativeLayout
        let texts: [(String, CardText?)] = [("built-in prize", nil),
                                            ("text card", CardText(title: "Free coffee", subtitle: "Show this at the counter")),
                                            ("coloured text card", CardText(title: "恭喜中奖", colour: RGBA(r: 250, g: 220, b: 40),
                                                                            background: RGBA(r: 20, g: 120, b: 60)))]
        for prompt in [nil, "刮开这里"] as [String?] {
            let cover = CardArt.coverPixels(size: size, prompt: prompt)
            #expect(cover.layout == layout)
            Self.expectOpaque(cover, "cover \(prompt ?? "") at \(size)")
            for (name, text) in texts {
                let prize = CardArt.prizePixels(size: size, text: text)
                Self.expectOpaque(prize, "\(name) at \(size)")
                let old = try ScratchCanvas(cover: CardArt.cover(size: size, prompt: prompt), prize: CardArt.prize(size: size, text: text),
                                            layout: layout, brush: brush)
                let new = try ScratchCanvas(cover: cover, prize: prize, brush: brush)
                Self.expectSameCard(old: old, new: new, "\(name), cover \(prompt ?? "built-in") at \(size)")
            }
        }
    }

    @Test("a text card over a translucent image: the native path gives the straight colours the RGBA path shows")
    func translucentBackground() throws {
        let size = PixelSize(width: 320, height: 200)
        var background = RGBAImage(size: size, filledWith: .white)
        for y in 0..<size.height {
            for x in 0..<size.width {
                // Alpha from 0 to 255 across, colours that premultiplying rounds differently.
                background[x, y] = RGBA(r: UInt8(x % 256), g: UInt8((x * 7 + y) % 256), b: 201, a: UInt8(x * 255 / (size.width - 1)))
            }
        }
        let text = CardText(title: "Jackpot", subtitle: "over glass")
        let prize = CardArt.prizePixels(size: size, text: text, background: background)
        Self.expectOpaque(prize, "text card over a translucent image")
        let brush = try Brush(radius: 8)
        let old = try ScratchCanvas(cover: CardArt.cover(size: size), prize: CardArt.prize(size: size, text: text, background: background),
                                    layout: CardArt.nativeLayout, brush: brush)
        let new = try ScratchCanvas(cover: CardArt.coverPixels(size: size), prize: prize, brush: brush)
        Self.expectSameCard(old: old, new: new, "text card over a translucent image")
    }

    @Test("the cover drawn straight into a framebuffer (rows wider than the image) is the native cover, and its canvas the RGBA path's")
    func coverIntoFramebuffer() throws {
        let size = PixelSize(width: 401, height: 250)
        let bytesPerRow = size.width * 4 + 36
        let memory = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * size.height, alignment: 16)
        defer { memory.deallocate() }
        // Garbage first: the drawing must paint every pixel.
        memory.initializeMemory(as: UInt8.self, repeating: 0x5A, count: bytesPerRow * size.height)
        let framebuffer = Framebuffer(borrowing: memory, size: size, bytesPerRow: bytesPerRow, layout: CardArt.nativeLayout)
        #expect(CardArt.drawCover(prompt: "Free coffee", into: framebuffer))
        let cover = CardArt.coverPixels(size: size, prompt: "Free coffee")
        var differing = 0
        for y in 0..<size.height {
            for x in 0..<size.width {
                let word = memory.load(fromByteOffset: y * bytesPerRow + x * 4, as: UInt32.self)
                let expected = cover.bytes.withUnsafeBytes { $0.load(fromByteOffset: (y * size.width + x) * 4, as: UInt32.self) }
                if word != expected { differing += 1 }
            }
        }
        #expect(differing == 0, "\(differing) pixels of the framebuffer differ from the native cover")

        let brush = try Brush(radius: 10)
        var prizeAsked = false
        let canvas = ScratchCanvas(coverShownIn: framebuffer, prize: {
            prizeAsked = true
            return CardArt.prizePixels(size: size)
        }, brush: brush)
        #expect(prizeAsked)
        #expect(canvas.revealedFraction == 0)
        let old = try ScratchCanvas(cover: CardArt.cover(size: size, prompt: "Free coffee"), prize: CardArt.prize(size: size),
                                    layout: CardArt.nativeLayout, brush: brush)
        Self.expectSameCard(old: old, new: canvas, "cover drawn into a framebuffer")
    }

    @Test("a framebuffer in another layout is left alone")
    func otherLayoutRefused() {
        let other: PixelLayout = CardArt.nativeLayout == .bgrx ? .rgbx : .bgrx
        let framebuffer = Framebuffer(size: PixelSize(width: 64, height: 40), layout: other)
        #expect(!CardArt.drawCover(into: framebuffer))
        #expect(framebuffer[10, 10] == RGBA(r: 0, g: 0, b: 0))
    }
}
