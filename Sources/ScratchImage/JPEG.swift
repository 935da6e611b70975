// JPEG in and out through libjpeg-turbo's TurboJPEG API, which reports errors as values
// (-1, tjGetErrorStr2): libjpeg's classic API longjmps out of its error handler, which
// must never unwind Swift frames. C types and pointers stay in this file.
import CJPEG
import ScratchCore

/// Reads and writes JPEG files as `RGBAImage`s (opaque 8-bit RGBA).
///
/// Baseline, extended and progressive JPEGs load, in colour or grey; CMYK and YCCK
/// (Adobe's, as Photoshop writes them) are converted naively to RGB. The EXIF
/// orientation is applied, so a phone's portrait photo comes out upright. Refused with a
/// message: arithmetic-coded and lossless JPEGs, 12-bit samples, files truncated or
/// damaged, and the same sizes as PNG (16384 a side, 2^28 pixels) before anything big is
/// allocated.
///
///     let photo = try JPEGFile.decode(bytes, name: "IMG_0001.jpg")
///     try JPEGFile.write(photo, to: "copy.jpg")
public enum JPEGFile {
    /// The quality `write` uses, on libjpeg's 1-100 scale.
    public static let defaultQuality = 92

    /// Decodes JPEG bytes (`tjDecompressHeader3`, `tjDecompress2`) and turns the result
    /// upright by its EXIF orientation. `name` is only used in error messages.
    public static func decode(_ bytes: [UInt8], name: String) throws(ImageError) -> RGBAImage {
        try decode(bytes, name: name, maxPixels: PNGFile.maxPixels)
    }

    /// Decodes at the smallest of libjpeg-turbo's scales (1/8, 1/4, 3/8, 1/2, ... 1)
    /// whose longer side is still at least `longerSide` pixels: the IDCT makes the smaller
    /// image directly, much faster than decoding it whole (a thumbnail's decode).
    public static func decode(_ bytes: [UInt8], name: String, reducedTo longerSide: Int) throws(ImageError) -> RGBAImage {
        try decode(bytes, name: name, maxPixels: PNGFile.maxPixels, reducedTo: longerSide)
    }

    /// `maxPixels` lowers the pixel limit: the fuzz target's, to stay fast.
    static func decode(_ bytes: [UInt8], name: String, maxPixels: Int, reducedTo longerSide: Int? = nil) throws(ImageError) -> RGBAImage {
        func failure(_ problem: String) -> ImageError { ImageError(path: name, problem: problem) }
        if bytes.count > PNGFile.maxFileBytes {
            throw failure("file is \(bytes.count) bytes; the limit is \(PNGFile.maxFileBytes)")
        }
        let markers: JPEGMarkers
        switch JPEGMarkers.scan(bytes) {
        case .success(let found): markers = found
        case .failure(.notJPEG): throw failure("not a JPEG file")
        case .failure(.truncated(let at)):
            throw failure("truncated JPEG (the data ends too early: the segment at byte \(at) runs past the end of the file's \(bytes.count) bytes)")
        case .failure(.damaged(let what)): throw failure("damaged JPEG (\(what))")
        }
        guard let frame = markers.frame else { throw failure("damaged JPEG (no frame header before the image data)") }
        if frame.isArithmetic { throw failure("arithmetic-coded JPEG, which ScratchCard does not read (save it again as an ordinary JPEG)") }
        if frame.marker == 0xC3 { throw failure("lossless JPEG, which ScratchCard does not read") }
        if frame.precision != 8 { throw failure("\(frame.precision)-bit JPEG, which ScratchCard does not read (only 8-bit samples)") }

        guard let handle = tjInitDecompress() else { throw failure("cannot start the JPEG decoder") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer { raw in
            tjDecompressHeader3(handle, raw.baseAddress, UInt(raw.count), &width, &height, &subsampling, &colourspace)
        }
        // A warning here (stray bytes between markers) still leaves a header read.
        let headerRead = header == 0 || (tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) && width > 0 && height > 0)
        if !headerRead { throw failure(damaged(message(handle))) }
        let w = Int(width), h = Int(height)
        if w < 1 || h < 1 { throw failure("image is \(w)x\(h), which has no pixels") }
        if w > PNGFile.maxSide || h > PNGFile.maxSide || w * h > maxPixels {
            throw failure("image is \(w)x\(h); the limit is \(PNGFile.maxSide) on a side and \(maxPixels) pixels")
        }
        // The bound from the size libjpeg read and the components' sampling we read.
        let claimed = JPEGFrame(marker: frame.marker, precision: frame.precision, width: w, height: h, sampling: frame.sampling)
        if let needed = claimed.minimumEntropyBytes, bytes.count < needed {
            throw failure("image is \(w)x\(h) but the file has only \(bytes.count) bytes, too few to hold it (truncated or damaged JPEG)")
        }

        let cmyk = colourspace == Int32(TJCS_CMYK.rawValue) || colourspace == Int32(TJCS_YCCK.rawValue)
        let format = cmyk ? TJPF_CMYK : TJPF_RGBA
        let (outW, outH) = longerSide.map { scaledSize(width: w, height: h, longerSide: $0) } ?? (w, h)
        let count = outW * outH * 4
        var status: Int32 = 0
        var pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = bytes.withUnsafeBufferPointer { raw in
                tjDecompress2(handle, raw.baseAddress, UInt(raw.count), buffer.baseAddress, Int32(outW), 0, Int32(outH),
                              Int32(format.rawValue), cjpeg_flag_accurate_dct() | cjpeg_flag_limit_scans())
            }
            // On failure nothing is kept; no need to touch (and so commit) the pages.
            initialized = status == 0 || tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) ? count : 0
        }
        if status != 0 {
            // A warning (the image was decoded, -1 all the same): libjpeg fills the
            // missing part of a cut file with grey and says so in a warning, but the
            // message TurboJPEG 2.1 keeps is the first of any kind, not that one. So a
            // cut file is recognised by its missing EOI; other warnings (stray bytes
            // between markers, as some cameras write, a damaged block) leave a whole
            // picture, shown as viewers show it.
            if tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) { throw failure(damaged(message(handle))) }
            if !JPEGMarkers.hasEndOfImage(bytes, after: markers.firstScanData ?? bytes.count) {
                throw failure("truncated JPEG (the data ends too early: no end-of-image marker after the image data)")
            }
        }
        if cmyk { convertInvertedCMYKToRGBA(&pixels) }
        guard let decoded = RGBAImage(size: PixelSize(width: outW, height: outH), bytes: pixels) else {
            throw failure("decoded to the wrong number of bytes")
        }
        return markers.orientation.apply(to: decoded)
    }

    /// The size of the smallest scaled decode whose longer side is at least `longerSide`
    /// (the full size when none is smaller).
    static func scaledSize(width: Int, height: Int, longerSide: Int) -> (Int, Int) {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return (width, height) }
        var best = (width, height)
        for factor in UnsafeBufferPointer(start: factors, count: Int(count)) where factor.num <= factor.denom {
            let num = Int(factor.num), denom = Int(factor.denom)
            let w = (width * num + denom - 1) / denom, h = (height * num + denom - 1) / denom
            if max(w, h) >= min(longerSide, max(width, height)) && w * h < best.0 * best.1 { best = (w, h) }
        }
        return best
    }

    /// Encodes an image as a JPEG (`tjCompress2`, 4:2:0, `quality` 1-100). JPEG has no
    /// alpha: pixels that are not opaque are shown over white, as a viewer would.
    public static func encode(_ image: RGBAImage, quality: Int = defaultQuality) throws(ImageError) -> [UInt8] {
        func failure(_ problem: String) -> ImageError { ImageError(path: "<image \(image.size)>", problem: problem) }
        guard image.width <= 65535, image.height <= 65535, image.bytes.count == image.size.pixelCount * 4 else {
            throw failure("cannot encode an image of \(image.size) as JPEG (at most 65535 a side)")
        }
        var pixels = image.bytes
        flattenOverWhite(&pixels)
        guard let handle = tjInitCompress() else { throw failure("cannot start the JPEG encoder") }
        defer { tjDestroy(handle) }
        var jpeg: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer { src in
            tjCompress2(handle, src.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGBA.rawValue),
                        &jpeg, &size, Int32(TJSAMP_420.rawValue), Int32(Swift.min(100, Swift.max(1, quality))),
                        cjpeg_flag_accurate_dct())
        }
        defer { tjFree(jpeg) }
        guard status == 0, let jpeg, size > 0 else { throw failure("cannot encode: \(message(handle))") }
        return Array(UnsafeBufferPointer(start: jpeg, count: Int(size)))
    }

    /// Encodes and writes atomically (see `AtomicFile`), mode 0644.
    public static func write(_ image: RGBAImage, to path: String, quality: Int = defaultQuality) throws(ImageError) {
        let bytes: [UInt8]
        do { bytes = try encode(image, quality: quality) } catch { throw ImageError(path: path, problem: error.problem) }
        do { try AtomicFile.write(bytes, to: path, mode: 0o644) } catch { throw ImageError(path: path, problem: error.message) }
    }

    // MARK: - Helpers

    /// CMYK as Adobe stores it (inverted: 255 is no ink), the usual kind, to RGB without
    /// colour management: R = C' x K' / 255, and so on.
    static func convertInvertedCMYKToRGBA(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                let k = UInt32(p[i + 3])
                p[i] = UInt8((UInt32(p[i]) * k + 127) / 255)
                p[i + 1] = UInt8((UInt32(p[i + 1]) * k + 127) / 255)
                p[i + 2] = UInt8((UInt32(p[i + 2]) * k + 127) / 255)
                p[i + 3] = 255
            }
        }
    }

    /// Blends every pixel that is not opaque over white and makes it opaque.
    static func flattenOverWhite(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) where p[i + 3] != 255 {
                let a = UInt32(p[i + 3])
                for c in 0..<3 { p[i + c] = UInt8((UInt32(p[i + c]) * a + 255 * (255 - a) + 127) / 255) }
                p[i + 3] = 255
            }
        }
    }

    /// A user-facing description of a libjpeg error: "truncated JPEG" when the data ran
    /// out, "damaged JPEG" otherwise, with libjpeg's own words in brackets.
    static func damaged(_ libjpegMessage: String) -> String {
        let lower = libjpegMessage.lowercased()
        // firstRange(of:), the standard library's: String.contains(String) is Foundation's,
        // and one use of it links all of swift-corelibs-foundation into the static binary.
        let ranOut = ["premature end", "truncat", "insufficient"].contains { lower.firstRange(of: $0) != nil }
        let kind = ranOut ? "truncated JPEG (the data ends too early)" : "damaged JPEG"
        return libjpegMessage.isEmpty ? kind : "\(kind) (libjpeg: \(libjpegMessage))"
    }

    /// The handle's last error message.
    static func message(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "" }
        return String(cString: text)
    }
}
