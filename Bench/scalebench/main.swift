// scalebench: how well and how fast covers and prizes are enlarged (issue 15, part 4).
//
//   swift run -c release scalebench [--factor F] [--repeat N] IMAGE.png...
//
// For each image (cropped to a multiple of F on each side): shrink it F times with the
// program's box filter, enlarge it back with each filter, and compare with the original:
// PSNR over R, G and B, and SSIM on luma (8x8 windows every 4 pixels, the usual
// constants). Higher is better for both. Then the time of 640x400 -> 3840x2160 (the
// first image's centre, best of N runs, wall clock and thread CPU time). Each filter is ours (EnlargingFilter) and
// pixman's (bilinear, and separable-convolution Lanczos-3 as cairo's "best" uses it),
// all in this process. One line of key=value pairs per image and filter.
@preconcurrency import Glibc
import CCairo
import ScratchCore
import ScratchImage

struct Options {
    var factor = 4
    var repeats = 5
    var images: [String] = []
    /// Where to write each enlargement, for looking at by eye.
    var outFolder: String?
}

func fail(_ message: String) -> Never {
    fputs("scalebench: \(message)\nusage: scalebench [--factor F] [--repeat N] [--out DIR] IMAGE.png...\n", stderr)
    exit(2)
}

/// The number after an option, within `range`.
func number(_ text: String?, _ name: String, _ range: ClosedRange<Int>) -> Int {
    guard let text, let n = Int(text), range.contains(n) else { fail("\(name) needs a number in \(range)") }
    return n
}

var options = Options()
var arguments = CommandLine.arguments.dropFirst()
while let a = arguments.popFirst() {
    switch a {
    case "--factor": options.factor = number(arguments.popFirst(), a, 2...16)
    case "--repeat": options.repeats = number(arguments.popFirst(), a, 1...100)
    case "--out":
        guard let folder = arguments.popFirst() else { fail("--out needs a folder") }
        options.outFolder = folder
    case "-h", "--help":
        print("usage: scalebench [--factor F] [--repeat N] [--out DIR] IMAGE.png...")
        exit(0)
    default:
        if a.hasPrefix("-") { fail("unknown option \(a)") }
        options.images.append(a)
    }
}
guard !options.images.isEmpty else { fail("no image") }

/// An enlarger under test: a name and a function from (image, target) to image.
struct Enlarger {
    let name: String
    let run: (RGBAImage, PixelSize) -> RGBAImage
}

let enlargers: [Enlarger] = EnlargingFilter.allCases.map { filter in
    Enlarger(name: "scratchcard-\(filter.rawValue)") { $0.scaledToFill($1, enlargingWith: filter) }
} + [
    Enlarger(name: "pixman-bilinear") { pixmanEnlarge($0, to: $1, lanczos: false) },
    Enlarger(name: "pixman-lanczos3") { pixmanEnlarge($0, to: $1, lanczos: true) },
]

/// `image` (opaque) enlarged to `target` by pixman, edges padded, centred as ours is.
func pixmanEnlarge(_ image: RGBAImage, to target: PixelSize, lanczos: Bool) -> RGBAImage {
    let sw = image.width, sh = image.height
    let source = UnsafeMutablePointer<UInt32>.allocate(capacity: sw * sh)
    defer { source.deallocate() }
    for i in 0..<(sw * sh) {
        let o = i * 4
        source[i] = 0xFF00_0000 | UInt32(image.bytes[o]) << 16 | UInt32(image.bytes[o + 1]) << 8 | UInt32(image.bytes[o + 2])
    }
    let destination = UnsafeMutablePointer<UInt32>.allocate(capacity: target.pixelCount)
    defer { destination.deallocate() }
    let src = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(sw), Int32(sh), source, Int32(sw * 4))!
    let dst = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(target.width), Int32(target.height), destination,
                                       Int32(target.width * 4))!
    defer { _ = pixman_image_unref(src); _ = pixman_image_unref(dst) }
    let scale = max(Double(target.width) / Double(sw), Double(target.height) / Double(sh))
    let ox = (Double(sw) - Double(target.width) / scale) / 2, oy = (Double(sh) - Double(target.height) / scale) / 2
    var transform = pixman_transform()
    pixman_transform_init_identity(&transform)
    _ = pixman_transform_scale(&transform, nil, fixed(1 / scale), fixed(1 / scale))
    _ = pixman_transform_translate(&transform, nil, fixed(ox), fixed(oy))
    _ = pixman_image_set_transform(src, &transform)
    pixman_image_set_repeat(src, PIXMAN_REPEAT_PAD)
    if lanczos {
        var count: Int32 = 0
        let params = pixman_filter_create_separable_convolution(&count, fixed(1 / scale),
                                                                fixed(1 / scale),
                                                                PIXMAN_KERNEL_LANCZOS3, PIXMAN_KERNEL_LANCZOS3,
                                                                PIXMAN_KERNEL_IMPULSE, PIXMAN_KERNEL_IMPULSE, 4, 4)
        _ = pixman_image_set_filter(src, PIXMAN_FILTER_SEPARABLE_CONVOLUTION, params, count)
        free(params)
    } else {
        _ = pixman_image_set_filter(src, PIXMAN_FILTER_BILINEAR, nil, 0)
    }
    pixman_image_composite32(PIXMAN_OP_SRC, src, nil, dst, 0, 0, 0, 0, 0, 0, Int32(target.width), Int32(target.height))
    var out = [UInt8](repeating: 255, count: target.pixelCount * 4)
    for i in 0..<target.pixelCount {
        let p = destination[i]
        out[i * 4] = UInt8(truncatingIfNeeded: p >> 16)
        out[i * 4 + 1] = UInt8(truncatingIfNeeded: p >> 8)
        out[i * 4 + 2] = UInt8(truncatingIfNeeded: p)
    }
    return RGBAImage(size: target, bytes: out)!
}

/// pixman's 16.16 fixed point (`pixman_double_to_fixed` is a macro).
func fixed(_ value: Double) -> pixman_fixed_t { pixman_fixed_t((value * 65536).rounded()) }

func psnr(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    var sum = 0.0
    for i in stride(from: 0, to: a.bytes.count, by: 4) {
        for c in 0..<3 {
            let d = Double(a.bytes[i + c]) - Double(b.bytes[i + c])
            sum += d * d
        }
    }
    let mse = sum / Double(a.size.pixelCount * 3)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

func luma(_ image: RGBAImage) -> [Double] {
    stride(from: 0, to: image.bytes.count, by: 4).map { (i: Int) -> Double in
        let r = Double(image.bytes[i]), g = Double(image.bytes[i + 1]), b = Double(image.bytes[i + 2])
        return 0.299 * r + 0.587 * g + 0.114 * b
    }
}

func ssim(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    let la = luma(a), lb = luma(b), w = a.width, h = a.height
    let c1 = pow(0.01 * 255, 2), c2 = pow(0.03 * 255, 2)
    var total = 0.0, windows = 0
    for y in stride(from: 0, through: h - 8, by: 4) {
        for x in stride(from: 0, through: w - 8, by: 4) {
            var sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0
            for j in y..<(y + 8) {
                for i in x..<(x + 8) {
                    let p = la[j * w + i], q = lb[j * w + i]
                    sa += p; sb += q; saa += p * p; sbb += q * q; sab += p * q
                }
            }
            let n = 64.0
            let ma = sa / n, mb = sb / n
            let va = saa / n - ma * ma, vb = sbb / n - mb * mb, cov = sab / n - ma * mb
            total += (2 * ma * mb + c1) * (2 * cov + c2) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
            windows += 1
        }
    }
    return total / Double(max(1, windows))
}

func crop(_ image: RGBAImage, _ rect: PixelRect) -> RGBAImage {
    var out = RGBAImage(size: rect.size, filledWith: .black)
    for y in 0..<rect.height { for x in 0..<rect.width { out[x, y] = image[rect.x + x, rect.y + y] } }
    return out
}

/// The wall-clock and this thread's CPU milliseconds `work` takes. On a shared machine
/// the CPU time is the steadier figure: it leaves out the time other processes had.
func milliseconds(_ work: () -> Void) -> (wall: Double, cpu: Double) {
    func now(_ clock: clockid_t) -> Double {
        var t = timespec()
        clock_gettime(clock, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
    let wall = now(CLOCK_MONOTONIC), cpu = now(CLOCK_THREAD_CPUTIME_ID)
    work()
    return (now(CLOCK_MONOTONIC) - wall, now(CLOCK_THREAD_CPUTIME_ID) - cpu)
}

func stem(_ path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    return name.split(separator: ".").first.map(String.init) ?? name
}

var first: RGBAImage?
for path in options.images {
    let loaded: RGBAImage
    do { loaded = try PNGFile.read(path: path) } catch { fail("\(error)") }
    if first == nil { first = loaded }
    let f = options.factor
    let original = crop(loaded, PixelRect(x: 0, y: 0, width: loaded.width / f * f, height: loaded.height / f * f))
    let small = original.scaledToFill(PixelSize(width: original.width / f, height: original.height / f))
    for enlarger in enlargers {
        let back = enlarger.run(small, original.size)
        if let folder = options.outFolder { try? PNGFile.write(back, to: "\(folder)/\(stem(path))-\(enlarger.name).png") }
        print("image=\(stem(path)) size=\(original.size) factor=\(f) filter=\(enlarger.name)"
              + " psnr_db=\(String(format: "%.2f", psnr(original, back))) ssim=\(String(format: "%.4f", ssim(original, back)))")
    }
}

// The time at 640x400 -> 3840x2160 (kiosk 4K), from the first image's centre.
if let image = first {
    let card = image.scaledToFill(PixelSize(width: 640, height: 400))
    let target = PixelSize(width: 3840, height: 2160)
    for enlarger in enlargers {
        var wall = Double.infinity, cpu = Double.infinity
        for _ in 0..<options.repeats {
            let t = milliseconds { _ = enlarger.run(card, target) }
            wall = min(wall, t.wall)
            cpu = min(cpu, t.cpu)
        }
        print("timing=640x400->3840x2160 filter=\(enlarger.name) best_wall_ms=\(String(format: "%.1f", wall))"
              + " best_cpu_ms=\(String(format: "%.1f", cpu)) runs=\(options.repeats)")
    }
}
