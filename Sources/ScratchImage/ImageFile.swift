import ScratchCore

/// The kinds of image file ScratchCard reads, told apart by their first bytes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png = "PNG"
    case jpeg = "JPEG"
    case webp = "WebP"

    /// The format whose signature `bytes` start with: PNG's eight bytes, JPEG's SOI and
    /// a marker (FF D8 FF), or RIFF....WEBP. Nil for anything else.
    public init?(signatureOf bytes: [UInt8]) {
        if bytes.starts(with: PNGFile.signature) {
            self = .png
        } else if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF {
            self = .jpeg
        } else if WebPFile.isWebP(bytes) {
            self = .webp
        } else {
            return nil
        }
    }
}

/// Image files in any format ScratchCard reads (PNG, JPEG, WebP), picked by the file's
/// first bytes, never its name; and written as PNG or, when the name ends in `.jpg` or
/// `.jpeg`, as JPEG. Every reader follows PNGFile's rules: 8-bit RGBA out, sizes checked
/// before allocating (16384 a side, 2^28 pixels, 256 MiB files), errors naming the file.
///
///     let prize = try ImageFile.read(path: "IMG_0001.JPG")      // upright by its EXIF orientation
///     try ImageFile.write(prize, to: "prize.png")
public enum ImageFile {
    /// Reads and decodes the image file at `path`.
    public static func read(path: String) throws(ImageError) -> RGBAImage {
        let bytes = try PNGFile.readFile(path, kind: "an image file")
        return try decode(bytes, name: path)
    }

    /// Decodes image bytes in whichever format their signature names.
    public static func decode(_ bytes: [UInt8], name: String) throws(ImageError) -> RGBAImage {
        if bytes.isEmpty { throw ImageError(path: name, problem: "not an image file (the file is empty)") }
        switch ImageFormat(signatureOf: bytes) {
        case .png: return try PNGFile.decode(bytes, name: name)
        case .jpeg: return try JPEGFile.decode(bytes, name: name)
        case .webp: return try WebPFile.decode(bytes, name: name)
        case nil: throw ImageError(path: name, problem: "not an image file ScratchCard reads (PNG, JPEG or WebP)")
        }
    }

    /// Decodes image bytes for a picture whose longer side needs only `longerSide`
    /// pixels: a JPEG at libjpeg-turbo's smallest scale still that big (1/2, 1/4 or 1/8 of
    /// its size, decoded so directly), other formats whole.
    public static func decode(_ bytes: [UInt8], name: String, reducedTo longerSide: Int) throws(ImageError) -> RGBAImage {
        if ImageFormat(signatureOf: bytes) == .jpeg { return try JPEGFile.decode(bytes, name: name, reducedTo: longerSide) }
        return try decode(bytes, name: name)
    }

    /// The format `write` uses for `path`: JPEG for a name ending in .jpg or .jpeg (any
    /// case), PNG for any other.
    public static func outputFormat(for path: String) -> ImageFormat {
        let lower = path.lowercased()
        return lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") ? .jpeg : .png
    }

    /// Writes atomically, in the format `outputFormat(for:)` picks.
    public static func write(_ image: RGBAImage, to path: String) throws(ImageError) {
        switch outputFormat(for: path) {
        case .jpeg: try JPEGFile.write(image, to: path)
        default: try PNGFile.write(image, to: path)
        }
    }
}
