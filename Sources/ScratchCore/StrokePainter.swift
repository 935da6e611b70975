import CInstructions

/// What the brush does with the pixels it changes, besides the mask: keep them as damage
/// for a later composite (`MaskOnly`), or paint them at once while the brush is on their
/// row (`DirectPainter`). The brush is generic over it, so each is compiled in.
protocol StrokePainter {
    /// True when the painter writes the changed pixels itself, so the brush keeps no
    /// damage for them.
    static var paints: Bool { get }
    /// The brush is about to visit pixels `first ... last` of `row` (planning pass).
    func prefetch(row: Int, first: Int, last: Int)
    /// Pixel `x` of `row` has mask value `value` now (an anti-aliased edge pixel, which
    /// may or may not have changed).
    mutating func blend(row: Int, x: Int, value: UInt8)
    /// Pixels `first ... last` of `row` have mask value 255 (the inside of the stroke,
    /// from its first changed pixel to its last).
    mutating func reveal(row: Int, first: Int, last: Int)
}

/// The brush strokes the mask and keeps the damage; `compositeChanges` draws it later.
struct MaskOnly: StrokePainter {
    static var paints: Bool { false }
    @inline(__always) func prefetch(row: Int, first: Int, last: Int) {}
    @inline(__always) func blend(row: Int, x: Int, value: UInt8) {}
    @inline(__always) func reveal(row: Int, first: Int, last: Int) {}
}

/// The brush writes each pixel it visits into a framebuffer of the canvas's size and
/// layout as it goes: the inside is the prize, copied; an edge pixel is blended by its
/// new mask value, which the brush holds, so no mask byte is read again and no branch
/// classifies it. While it plans the rows, it asks for the cover/prize and framebuffer
/// lines of each row moved by `ahead`: the next stroke of a pen usually goes on the way
/// this one went, and its lines then arrive during this one. It does not ask for its own
/// rows' lines: the pen's last stroke mostly did, and asking again measured slower
/// (card-4k 3.9% on the median event), even for the first strokes, which it would help.
struct DirectPainter: StrokePainter {
    static var paints: Bool { true }
    /// The card's cover/prize pairs (CardPixels), rows `width * 8` bytes apart.
    let pairs: UnsafeRawPointer
    /// The framebuffer's first pixel, rows `bytesPerRow` apart.
    let pixels: UnsafeMutableRawPointer
    let width: Int
    let height: Int
    let bytesPerRow: Int
    /// This stroke's motion in whole pixels, when the lines it leads to are asked for.
    let ahead: (dx: Int, dy: Int)?
    /// How many pixels it wrote.
    private(set) var painted = 0

    init(pairs: UnsafeRawPointer, into framebuffer: Framebuffer, width: Int, height: Int, ahead: (dx: Int, dy: Int)?) {
        self.pairs = pairs
        self.pixels = framebuffer.baseAddress
        self.bytesPerRow = framebuffer.bytesPerRow
        self.width = width
        self.height = height
        self.ahead = ahead
    }

    @inline(__always) func prefetch(row: Int, first: Int, last: Int) {
        guard let ahead else { return }
        let next = row &+ ahead.dy
        let from = Swift.max(first &+ ahead.dx, 0), to = Swift.min(last &+ ahead.dx, width &- 1)
        guard next >= 0, next < height, from <= to else { return }
        let t = pairs + (next &* width) &* 8
        var x = from
        while x <= to { scratch_prefetch_read(t + x &* 8); x &+= 8 }
        scratch_prefetch_read(t + to &* 8)
        let o = pixels + next &* bytesPerRow
        x = from
        while x <= to { scratch_prefetch_write(o + x &* 4); x &+= 16 }     // 16 pixels per line
        scratch_prefetch_write(o + to &* 4)
    }

    @inline(__always) mutating func blend(row: Int, x: Int, value: UInt8) {
        Compositor.blend(UInt64(value), pairs + (row &* width &+ x) &* 8, pixels + (row &* bytesPerRow &+ x &* 4))
        painted &+= 1
    }

    @inline(__always) mutating func reveal(row: Int, first: Int, last: Int) {
        let s = pairs + (row &* width &+ first) &* 8, o = pixels + (row &* bytesPerRow &+ first &* 4)
        let count = last &- first &+ 1
        // The prizes of four pairs, one 16-byte store: two loads and one shuffle (shufps
        // on baseline x86-64), which measured 8% less time per event on card-4k than
        // two pairs per 8-byte store.
        @inline(__always) func four(_ k: Int) {
            let a = s.loadUnaligned(fromByteOffset: k &* 8, as: SIMD4<UInt32>.self)
            let b = s.loadUnaligned(fromByteOffset: k &* 8 &+ 16, as: SIMD4<UInt32>.self)
            o.storeBytes(of: SIMD4<UInt32>(a[1], a[3], b[1], b[3]), toByteOffset: k &* 4, as: SIMD4<UInt32>.self)
        }
        if count >= 4 {
            // The last four end at `last`, overlapping the ones before them when count is
            // not a multiple of four: the same prizes again, and no branches for a tail.
            var k = 0
            while k &+ 4 < count { four(k); k &+= 4 }
            four(count &- 4)
        } else {
            var k = 0
            while k < count { Compositor.copy(s + (k &* 8 &+ 4), o + k &* 4); k &+= 1 }
        }
        painted &+= count
    }
}
