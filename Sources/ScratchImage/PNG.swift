// PNG in and out through libpng's simplified API (png_image_*), which reports errors
// as values: the classic API's setjmp/longjmp must never unwind Swift frames.
// C types and pointers stay in this file; callers see RGBAImage and ImageError.
@preconcurrency import Glibc
import CPNG
import ScratchCore

/// Why an image could not be read or written. Its description reads
/// `"<path>: <problem>"`, e.g. `"card.png: not a PNG file"`.
public struct ImageError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file (or the name given to `PNGFile.decode`).
    public let path: String
    /// What went wrong, in words for the user.
    public let problem: String

    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "\(path): \(problem)" }
}

/// Reads and writes PNG files as `RGBAImage`s (8-bit RGBA, straight alpha).
///
/// Any PNG loads: grey, grey+alpha, RGB, RGBA, palette, 1 to 16 bits, interlaced,
/// with or without tRNS. Input is untrusted: files over 256 MiB and images over
/// 16384 pixels on a side or 2^28 pixels are refused before anything big is allocated.
///
///     let cover = try PNGFile.read(path: "cover.png")
///     try PNGFile.write(cover.scaledToFill(PixelSize(width: 640, height: 400)), to: "small.png")
public enum PNGFile {
    /// The largest file `read` accepts, in bytes.
    static let maxFileBytes = 256 << 20
    /// The largest width or height accepted.
    static let maxSide = 16384
    /// The largest number of pixels accepted.
    static let maxPixels = 1 << 28

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Reads and decodes the PNG file at `path` (`open`, `fstat`, `read`, then `decode`).
    public static func read(path: String) throws(ImageError) -> RGBAImage {
        let bytes = try readFile(path)
        return try decode(bytes, name: path)
    }

    /// Decodes PNG bytes (`png_image_begin_read_from_memory`, `png_image_finish_read`
    /// with `PNG_FORMAT_RGBA`). `name` is only used in error messages.
    public static func decode(_ bytes: [UInt8], name: String) throws(ImageError) -> RGBAImage {
        func failure(_ problem: String) -> ImageError { ImageError(path: name, problem: problem) }
        if bytes.isEmpty { throw failure("not a PNG file (the file is empty)") }
        if bytes.count < signature.count || !bytes.starts(with: signature) {
            throw failure("not a PNG file")
        }
        if bytes.count > maxFileBytes {
            throw failure("file is \(bytes.count) bytes; the limit is \(maxFileBytes)")
        }

        if let problem = chunkLayoutProblem(bytes) { throw failure(problem) }

        let result: Result<RGBAImage, ImageError> = bytes.withUnsafeBytes { raw in
            var image = png_image()
            image.version = cpng_image_version()
            // libpng keeps a pointer to `raw` until png_image_free: both happen in here.
            defer { png_image_free(&image) }

            if png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) == 0 {
                return .failure(failure(damaged(message(of: &image))))
            }
            let width = Int(image.width), height = Int(image.height)
            if width > maxSide || height > maxSide || width * height > maxPixels {
                return .failure(failure("image is \(width)x\(height); the limit is \(maxSide) on a side and \(maxPixels) pixels"))
            }
            if width < 1 || height < 1 {
                return .failure(failure("image is \(width)x\(height), which has no pixels"))
            }
            // A tiny file may claim a huge image: refuse it before allocating the
            // pixels (up to 1 GiB, 3 GiB for 16-bit) only to find the data missing.
            if let needed = minimumFileBytes(header: bytes, width: width, height: height), bytes.count < needed {
                return .failure(failure("image is \(width)x\(height) but the file has only \(bytes.count) bytes, "
                                        + "too few to hold it (truncated or damaged PNG)"))
            }

            if image.format & cpng_format_flag_linear() != 0 {
                return readDeep(&image, width: width, height: height, name: name)
            }
            image.format = cpng_format_rgba()
            let count = width * height * 4
            var ok = false
            let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                ok = png_image_finish_read(&image, nil, buffer.baseAddress, 0, nil) != 0
                if !ok { buffer.initialize(repeating: 0) }  // keep the array well-formed
                initialized = count
            }
            if !ok { return .failure(failure(damaged(message(of: &image)))) }
            guard let decoded = RGBAImage(size: PixelSize(width: width, height: height), bytes: pixels) else {
                return .failure(failure("decoded to the wrong number of bytes"))
            }
            return .success(decoded)
        }
        return try result.get()
    }

    /// Finishes reading a 16-bit PNG. libpng 1.6's simplified reader garbles interlaced
    /// 16-bit images when asked for 8-bit output (its 16-bit output is right), so such
    /// files are read as 16-bit linear premultiplied RGBA and converted here:
    /// unpremultiplied, then encoded with the inverse of the 2.2 power that libpng
    /// used to linearise them, so the file's own values come back.
    private static func readDeep(_ image: inout png_image, width: Int, height: Int, name: String) -> Result<RGBAImage, ImageError> {
        image.format = cpng_format_linear_rgb_alpha()
        let count = width * height * 4
        var ok = false
        let deep = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
            ok = png_image_finish_read(&image, nil, buffer.baseAddress, 0, nil) != 0
            if !ok { buffer.initialize(repeating: 0) }
            initialized = count
        }
        if !ok { return .failure(ImageError(path: name, problem: damaged(message(of: &image)))) }
        let encode = linearToEncoded
        var pixels = [UInt8](repeating: 0, count: count)
        deep.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                encode.withUnsafeBufferPointer { table in
                    for i in stride(from: 0, to: count, by: 4) {
                        let a = UInt32(src[i + 3])
                        if a == 0 { continue }
                        if a == 65535 {
                            // Opaque, as most pixels are: nothing to unpremultiply.
                            dst[i] = table[Int(src[i])]
                            dst[i + 1] = table[Int(src[i + 1])]
                            dst[i + 2] = table[Int(src[i + 2])]
                            dst[i + 3] = 255
                            continue
                        }
                        dst[i + 3] = UInt8((a * 255 + 32767) / 65535)
                        for c in 0..<3 {
                            // Straight linear value in 0...65535, rounded.
                            let straight = Swift.min((UInt32(src[i + c]) * 65535 + a / 2) / a, 65535)
                            dst[i + c] = table[Int(straight)]
                        }
                    }
                }
            }
        }
        guard let decoded = RGBAImage(size: PixelSize(width: width, height: height), bytes: pixels) else {
            return .failure(ImageError(path: name, problem: "decoded to the wrong number of bytes"))
        }
        return .success(decoded)
    }

    /// 16-bit linear light to 8-bit, encoded with a 1/2.2 power.
    private static let linearToEncoded: [UInt8] = (0...65535).map { v in
        UInt8((pow(Double(v) / 65535, 1 / 2.2) * 255).rounded())
    }

    /// Encodes an image as an 8-bit RGBA PNG (`png_image_write_to_memory`).
    public static func encode(_ image: RGBAImage) throws(ImageError) -> [UInt8] {
        func failure(_ problem: String) -> ImageError { ImageError(path: "<image \(image.size)>", problem: problem) }
        guard image.width <= Int(UInt32.max / 4), image.height <= Int(UInt32.max),
              image.bytes.count == image.size.pixelCount * 4 else {
            throw failure("cannot encode an image of \(image.size)")
        }
        let result: Result<[UInt8], ImageError> = image.bytes.withUnsafeBytes { pixels in
            var png = png_image()
            png.version = cpng_image_version()
            png.width = UInt32(image.width)
            png.height = UInt32(image.height)
            png.format = cpng_format_rgba()
            defer { png_image_free(&png) }

            // First call: ask for the size; second call: write.
            var size = 0
            if png_image_write_to_memory(&png, nil, &size, 0, pixels.baseAddress, 0, nil) == 0 || size == 0 {
                return .failure(failure("cannot encode: \(message(of: &png))"))
            }
            var ok = false
            var written = size
            var out = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                ok = png_image_write_to_memory(&png, buffer.baseAddress, &written, 0,
                                               pixels.baseAddress, 0, nil) != 0
                if !ok { buffer.initialize(repeating: 0) }
                initialized = size
            }
            if !ok || written > size { return .failure(failure("cannot encode: \(message(of: &png))")) }
            out.removeLast(size - written)
            return .success(out)
        }
        return try result.get()
    }

    /// Encodes a small image quickly, as a thumbnailer must: one pass into a buffer of the
    /// largest size it can take (`PNG_IMAGE_PNG_SIZE_MAX`), with libpng's fast settings
    /// (`PNG_IMAGE_FLAG_FAST`: a quicker filter choice and zlib level). `encode` compresses
    /// twice (once to learn the size) at the default settings: for a 256-pixel thumbnail
    /// that was most of the time after the decode.
    public static func encodeFast(_ image: RGBAImage) throws(ImageError) -> [UInt8] {
        func failure(_ problem: String) -> ImageError { ImageError(path: "<image \(image.size)>", problem: problem) }
        guard image.width <= 16384, image.height <= 16384, image.bytes.count == image.size.pixelCount * 4 else {
            throw failure("cannot encode an image of \(image.size)")
        }
        let result: Result<[UInt8], ImageError> = image.bytes.withUnsafeBytes { pixels in
            var png = png_image()
            png.version = cpng_image_version()
            png.width = UInt32(image.width)
            png.height = UInt32(image.height)
            png.format = cpng_format_rgba()
            png.flags = cpng_flag_fast()
            defer { png_image_free(&png) }
            let size = Int(cpng_png_size_max(&png))
            var ok = false
            var written = size
            var out = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                ok = png_image_write_to_memory(&png, buffer.baseAddress, &written, 0, pixels.baseAddress, 0, nil) != 0
                initialized = ok && written <= size ? written : 0
            }
            if !ok || out.count != written { return .failure(failure("cannot encode: \(message(of: &png))")) }
            out.removeLast(out.count - written)
            return .success(out)
        }
        return try result.get()
    }

    /// Encodes and writes atomically (see `AtomicFile`): a crash or a full disk leaves
    /// the old file whole. The new file has mode 0644.
    public static func write(_ image: RGBAImage, to path: String) throws(ImageError) {
        let bytes: [UInt8]
        do {
            bytes = try encode(image)
        } catch {
            throw ImageError(path: path, problem: error.problem)
        }
        do {
            try AtomicFile.write(bytes, to: path, mode: 0o644)
        } catch {
            throw ImageError(path: path, problem: error.message)
        }
    }

    // MARK: - Helpers

    /// Reads a whole regular file, refusing one over `maxFileBytes` before reading it.
    /// `kind` names what a folder is not, in its message.
    static func readFile(_ path: String, kind: String = "a PNG file") throws(ImageError) -> [UInt8] {
        func failure(_ problem: String) -> ImageError { ImageError(path: path, problem: problem) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { throw failure("no such file") }
            throw failure("cannot open: \(errorText(code))")
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { throw failure("cannot read: \(errorText(errno))") }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw failure("is a folder, not \(kind)") }
        if (info.st_mode & S_IFMT) != S_IFREG { throw failure("not a regular file") }
        let size = Int(info.st_size)
        if size > maxFileBytes {
            throw failure("file is \(size) bytes; the limit is \(maxFileBytes)")
        }

        // Read up to one byte more than fstat said, to notice a file that grows.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var filled = 0
        var readError: Int32 = 0
        bytes.withUnsafeMutableBytes { raw in
            while filled < raw.count {
                let n = Glibc.read(fd, raw.baseAddress! + filled, raw.count - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    readError = errno
                    return
                }
                if n == 0 { break }
                filled += n
            }
        }
        if readError != 0 { throw failure("cannot read: \(errorText(readError))") }
        if filled > size { throw failure("the file changed while being read") }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// Walks the chunks up to IEND as libpng will, and names the first whose length
    /// runs past the end of the bytes (or past 2^31 - 1, which PNG forbids). libpng
    /// allocates a chunk's buffer from its declared length before reading it, so a
    /// 300-byte file whose length field says 2 GB (found by the fuzzer, Fuzz/png/
    /// regressions/oom-*) would have it ask for 2 GB. Chunks cut short are refused here
    /// instead; libpng would refuse them too, only after the allocation.
    static func chunkLayoutProblem(_ bytes: [UInt8]) -> String? {
        var at = signature.count
        while at + 8 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let type = String(decoding: bytes[(at + 4)..<(at + 8)].map { (0x21...0x7E).contains($0) ? $0 : UInt8(ascii: "?") },
                              as: UTF8.self)
            if length > 0x7FFF_FFFF {
                return "damaged PNG (a \(type) chunk at byte \(at) claims \(length) bytes, more than PNG allows)"
            }
            if length + 12 > bytes.count - at {
                return "truncated PNG (the data ends too early: a \(type) chunk at byte \(at) claims \(length) bytes, "
                    + "the file has \(bytes.count - at - 8) after its header)"
            }
            if type == "IEND" { return nil }
            at += length + 12
        }
        return nil   // no IEND: libpng decides
    }

    /// The bytes with every whole chunk's CRC recomputed, so that a mutated chunk passes
    /// libpng's CRC check and reaches its parsers: for the fuzzer (Fuzz/png) and the
    /// tests that replay its inputs. Never used on a file being read.
    static func withChunkCRCsRecomputed(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        var at = signature.count
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let end = at + 8 + length
            guard end + 4 <= bytes.count else { break }
            var c: UInt32 = 0xFFFF_FFFF
            for i in (at + 4)..<end { c = crcTable[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8) }
            c ^= 0xFFFF_FFFF
            bytes[end] = UInt8(c >> 24); bytes[end + 1] = UInt8((c >> 16) & 0xFF)
            bytes[end + 2] = UInt8((c >> 8) & 0xFF); bytes[end + 3] = UInt8(c & 0xFF)
            at = end + 4
        }
        return bytes
    }

    /// PNG's CRC-32 (polynomial 0xEDB88320), a byte at a time.
    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The smallest file that can hold a `width` x `height` image with the bit depth and
    /// colour type of its IHDR (bytes 24 and 25: libpng has checked that IHDR comes
    /// first): the filtered rows (a filter byte and the packed samples per row, the
    /// least an interlaced image has too) compressed at deflate's best, 1032:1. Nil
    /// when the header is not where it should be (libpng would have refused it).
    static func minimumFileBytes(header bytes: [UInt8], width: Int, height: Int) -> Int? {
        guard bytes.count >= 33 else { return nil }
        let depth = Int(bytes[24])
        let channels: Int
        switch bytes[25] {
        case 0, 3: channels = 1
        case 4: channels = 2
        case 2: channels = 3
        case 6: channels = 4
        default: return nil
        }
        let rowBytes = 1 + (width * channels * depth + 7) / 8
        let rawBytes = height * rowBytes
        return rawBytes / 1032
    }

    /// libpng's message from the last call on `image`.
    static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            let chars = raw.prefix { $0 != 0 }
            return String(decoding: chars, as: UTF8.self)
        }
    }

    /// A user-facing description of a libpng read error: "truncated PNG" when the data
    /// ran out, "damaged PNG" otherwise, with libpng's own words in brackets.
    static func damaged(_ libpngMessage: String) -> String {
        let lower = libpngMessage.lowercased()
        let ranOut = ["end of data", "eof", "truncat", "not enough"].contains { lower.firstRange(of: $0) != nil }
        let kind = ranOut ? "truncated PNG (the data ends too early)" : "damaged PNG"
        return libpngMessage.isEmpty ? kind : "\(kind) (libpng: \(libpngMessage))"
    }

    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text).lowercased()
    }
}
