// WebP in through libwebp (WebPGetFeatures, then WebPDecode into a buffer we own):
// errors come back as VP8StatusCode values. C types and pointers stay in this file.
import CWebP
import ScratchCore

/// Reads WebP files as `RGBAImage`s (8-bit RGBA, straight alpha).
///
/// Lossy, lossless, with or without alpha. An animated WebP shows its first frame
/// (ScratchCard shows still pictures). The same limits as PNG, checked on the header
/// (an animation's canvas) before the pixels are allocated.
///
///     let cover = try WebPFile.decode(bytes, name: "foil.webp")
public enum WebPFile {
    /// Decodes WebP bytes. `name` is only used in error messages.
    public static func decode(_ bytes: [UInt8], name: String) throws(ImageError) -> RGBAImage {
        try decode(bytes, name: name, maxPixels: PNGFile.maxPixels)
    }

    /// `maxPixels` lowers the pixel limit: the fuzz target's, to stay fast (a lossless
    /// WebP of a few hundred bytes can legitimately hold a 16383x16383 picture).
    static func decode(_ bytes: [UInt8], name: String, maxPixels: Int) throws(ImageError) -> RGBAImage {
        func failure(_ problem: String) -> ImageError { ImageError(path: name, problem: problem) }
        if bytes.count > PNGFile.maxFileBytes {
            throw failure("file is \(bytes.count) bytes; the limit is \(PNGFile.maxFileBytes)")
        }
        guard isWebP(bytes) else { throw failure("not a WebP file") }
        // The RIFF header's size: a file shorter than it says was cut short.
        let riffSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        let truncated = riffSize + 8 > bytes.count

        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { cwebp_get_features($0.baseAddress, $0.count, &features) }
        if status != VP8_STATUS_OK { throw failure(problem(status, truncated: truncated)) }
        let w = Int(features.width), h = Int(features.height)
        if w < 1 || h < 1 { throw failure("image is \(w)x\(h), which has no pixels") }
        if w > PNGFile.maxSide || h > PNGFile.maxSide || w * h > maxPixels {
            throw failure("image is \(w)x\(h); the limit is \(PNGFile.maxSide) on a side and \(maxPixels) pixels")
        }

        let count = w * h * 4
        if features.has_animation != 0 {
            // libwebpdemux composes the first frame of a file cut after it, so a cut
            // animation is told by its RIFF size, which counts every frame.
            if truncated { throw failure("truncated WebP (the data ends too early)") }
            return try firstFrame(bytes, width: w, height: h, name: name)
        }
        var decoded = VP8_STATUS_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            decoded = bytes.withUnsafeBufferPointer { raw in
                cwebp_decode_rgba_into(raw.baseAddress, raw.count, buffer.baseAddress, count, Int32(w * 4))
            }
            initialized = decoded == VP8_STATUS_OK ? count : 0
        }
        if decoded != VP8_STATUS_OK { throw failure(problem(decoded, truncated: truncated)) }
        guard let image = RGBAImage(size: PixelSize(width: w, height: h), bytes: pixels) else {
            throw failure("decoded to the wrong number of bytes")
        }
        return image
    }

    /// An animation's first frame on its `width` x `height` canvas (already checked
    /// against the limits): `WebPAnimDecoderNew`, `WebPAnimDecoderGetNext`.
    static func firstFrame(_ bytes: [UInt8], width: Int, height: Int, name: String) throws(ImageError) -> RGBAImage {
        let count = width * height * 4
        var ok = false
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            ok = bytes.withUnsafeBufferPointer { raw in
                cwebp_decode_first_frame(raw.baseAddress, raw.count, buffer.baseAddress, count, Int32(width), Int32(height)) != 0
            }
            initialized = ok ? count : 0
        }
        guard ok, let image = RGBAImage(size: PixelSize(width: width, height: height), bytes: pixels) else {
            throw ImageError(path: name, problem: "damaged animated WebP (libwebp could not decode its first frame)")
        }
        return image
    }

    /// "RIFF", a size, "WEBP".
    static func isWebP(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8)
    }

    /// The bytes with the RIFF size and each chunk's size made to fit the data (a chunk
    /// that runs past the end is cut to what is there), so that a mutated file passes
    /// libwebp's container checks and reaches its decoders: for the fuzzer (Fuzz/webp)
    /// and the tests that replay its inputs. Never used on a file being read.
    static func withRIFFSizesFixed(_ input: [UInt8]) -> [UInt8] {
        guard isWebP(input) else { return input }
        var bytes = input
        func put32(_ value: Int, at i: Int) {
            for k in 0..<4 { bytes[i + k] = UInt8((value >> (8 * k)) & 0xFF) }
        }
        put32(bytes.count - 8, at: 4)
        var at = 12
        while at + 8 <= bytes.count {
            var size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            if size > bytes.count - at - 8 {
                size = bytes.count - at - 8
                put32(size, at: at + 4)
            }
            at += 8 + size + (size & 1)
        }
        return bytes
    }

    /// A status from libwebp in words for the user.
    static func problem(_ status: VP8StatusCode, truncated: Bool) -> String {
        if status == VP8_STATUS_NOT_ENOUGH_DATA || truncated { return "truncated WebP (the data ends too early)" }
        switch status {
        case VP8_STATUS_UNSUPPORTED_FEATURE: return "a WebP with a feature ScratchCard's libwebp does not support"
        case VP8_STATUS_OUT_OF_MEMORY: return "not enough memory to decode the WebP"
        default: return "damaged WebP (libwebp: status \(status.rawValue))"
        }
    }
}
