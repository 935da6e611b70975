// What ScratchCard reads from a JPEG's markers itself, before libjpeg-turbo sees the
// bytes: the frame header (size, coding, components: to refuse a file too small for
// the image it claims before anything is allocated) and the EXIF orientation (APP1).
// Pure Swift over the bytes, every length and offset checked: outside input, fuzzed
// through Fuzz/jpeg.

/// The frame header (SOFn) of a JPEG.
struct JPEGFrame: Equatable {
    /// The SOF marker's second byte: 0xC0 baseline, 0xC1 extended, 0xC2 progressive,
    /// 0xC3 lossless, 0xC9...0xCF arithmetic-coded (0xCC, DAC, is not a frame).
    let marker: UInt8
    let precision: Int
    let width: Int
    let height: Int
    /// Each component's horizontal and vertical sampling factors (1...4).
    let sampling: [(h: Int, v: Int)]

    static func == (a: JPEGFrame, b: JPEGFrame) -> Bool {
        a.marker == b.marker && a.precision == b.precision && a.width == b.width && a.height == b.height
            && a.sampling.map { [$0.h, $0.v] } == b.sampling.map { [$0.h, $0.v] }
    }

    var isArithmetic: Bool { marker >= 0xC9 }
    var isProgressive: Bool { marker == 0xC2 || marker == 0xCA }

    /// The smallest file that can hold the entropy-coded data of one full scan of the
    /// component with the fewest 8x8 blocks: in Huffman coding every block's DC
    /// coefficient takes a code of at least one bit, in every JPEG process, so a file
    /// under blocks / 8 bytes cannot hold the image (libjpeg would find it truncated
    /// only after allocating the pixels and, for a progressive file, a coefficient
    /// buffer of 2 bytes per sample). Nil when the header is not one to count on.
    var minimumEntropyBytes: Int? {
        guard width > 0, height > 0, !sampling.isEmpty,
              sampling.allSatisfy({ (1...4).contains($0.h) && (1...4).contains($0.v) }) else { return nil }
        let hMax = sampling.map(\.h).max()!, vMax = sampling.map(\.v).max()!
        let fewest = sampling.map { s -> Int in
            let columns = (width * s.h + hMax - 1) / hMax, rows = (height * s.v + vMax - 1) / vMax
            return ((columns + 7) / 8) * ((rows + 7) / 8)
        }.min()!
        return fewest / 8
    }
}

/// The markers of a JPEG up to its first scan, as far as ScratchCard needs them.
struct JPEGMarkers: Equatable {
    var frame: JPEGFrame?
    /// The EXIF orientation (1...8); 1 when there is none or it cannot be read.
    var orientation: ImageOrientation = .up
    /// Whether an APP1 Exif block was there but could not be read (the image still loads,
    /// as photo viewers do, upright as stored).
    var exifUnreadable = false
    /// Where the first scan's entropy-coded data begins (after its SOS segment).
    var firstScanData: Int?

    /// Walks the segments from SOI to the first SOS (start of scan) or the end of the
    /// bytes. Returns the problem, in words for the user, when a segment's length runs
    /// past the end of the file (truncated) or the bytes are not a JPEG.
    static func scan(_ bytes: [UInt8]) -> Result<JPEGMarkers, JPEGMarkerProblem> {
        guard bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return .failure(.notJPEG) }
        var found = JPEGMarkers()
        var sawExif = false
        var at = 2
        while true {
            // A marker: 0xFF, any number of 0xFF fill bytes, then the marker's code.
            // Stray bytes before it (some cameras write them) are skipped, as libjpeg
            // skips them with a warning.
            while at < bytes.count && bytes[at] != 0xFF { at += 1 }
            guard at < bytes.count else { return .failure(.truncated(at: at)) }
            while at < bytes.count && bytes[at] == 0xFF { at += 1 }
            guard at < bytes.count else { return .failure(.truncated(at: at)) }
            let code = bytes[at]
            at += 1
            switch code {
            case 0x01, 0xD0...0xD7:
                continue                                  // TEM, RSTn: no length
            case 0xD8:
                return .failure(.damaged("a second start-of-image marker at byte \(at - 2)"))
            case 0xD9:
                return .success(found)                    // EOI before any scan: libjpeg reports it
            default:
                break
            }
            guard at + 2 <= bytes.count else { return .failure(.truncated(at: at)) }
            let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            guard length >= 2 else { return .failure(.damaged("a segment at byte \(at - 2) has the length \(length)")) }
            guard at + length <= bytes.count else { return .failure(.truncated(at: at - 2)) }
            let body = (at + 2)..<(at + length)
            switch code {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                if found.frame == nil { found.frame = frame(code, bytes[body]) }
            case 0xE1 where !sawExif && bytes[body].starts(with: exifHeader):
                sawExif = true
                let tiff = bytes[body].dropFirst(exifHeader.count)
                if let value = EXIF.orientation(tiff: Array(tiff)) {
                    found.orientation = value
                } else {
                    found.exifUnreadable = !EXIF.hasNoOrientation(tiff: Array(tiff))
                }
            case 0xDA:
                found.firstScanData = at + length
                return .success(found)                    // start of scan: entropy-coded data follows
            default:
                break
            }
            at += length
        }
    }

    static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]

    /// Whether an EOI marker (FF D9) follows the first scan's data. Inside entropy-coded
    /// data a byte FF is followed only by 00 or a restart marker, so FF D9 there is the
    /// end of the image: a file without one after its first scan was cut short (trailing
    /// bytes after EOI, as some cameras write, do not matter).
    static func hasEndOfImage(_ bytes: [UInt8], after start: Int) -> Bool {
        guard start < bytes.count else { return false }
        var i = bytes.count - 2
        while i >= start {
            if bytes[i] == 0xFF && bytes[i + 1] == 0xD9 { return true }
            i -= 1
        }
        return false
    }

    /// A frame header's body: precision, height, width, components (id, HV, table).
    private static func frame(_ code: UInt8, _ body: ArraySlice<UInt8>) -> JPEGFrame? {
        let b = Array(body)
        guard b.count >= 6 else { return nil }
        let components = Int(b[5])
        guard components >= 1, b.count >= 6 + 3 * components else { return nil }
        let sampling = (0..<components).map { i -> (h: Int, v: Int) in
            let factors = b[7 + 3 * i]
            return (h: Int(factors >> 4), v: Int(factors & 0x0F))
        }
        let height = Int(b[1]) << 8 | Int(b[2])
        let width = Int(b[3]) << 8 | Int(b[4])
        return JPEGFrame(marker: code, precision: Int(b[0]), width: width, height: height, sampling: sampling)
    }
}

/// Why `JPEGMarkers.scan` could not walk a JPEG's header.
enum JPEGMarkerProblem: Error, Equatable {
    case notJPEG
    case truncated(at: Int)
    case damaged(String)
}

/// The EXIF orientation tag (0x0112) in IFD0 of the TIFF structure inside APP1.
enum EXIF {
    /// The orientation, or nil when the TIFF header, IFD0 or the tag cannot be read or
    /// holds a value outside 1...8. Every offset is checked against `tiff.count`.
    static func orientation(tiff: [UInt8]) -> ImageOrientation? {
        guard let ifd = ifd0(tiff) else { return nil }
        for i in 0..<ifd.count {
            let at = ifd.start + 12 * i
            guard ifd.read16(at) == 0x0112 else { continue }
            // Type 3 (SHORT), one value, held in the first two bytes of the value field.
            guard ifd.read16(at + 2) == 3, ifd.read32(at + 4) == 1 else { return nil }
            return ImageOrientation(rawValue: ifd.read16(at + 8))
        }
        return nil
    }

    /// Whether the TIFF structure is readable and simply has no orientation tag.
    static func hasNoOrientation(tiff: [UInt8]) -> Bool {
        guard let ifd = ifd0(tiff) else { return false }
        for i in 0..<ifd.count where ifd.read16(ifd.start + 12 * i) == 0x0112 { return false }
        return true
    }

    private struct IFD {
        let bytes: [UInt8]
        let bigEndian: Bool
        /// The first entry's offset and the number of entries, all of them inside `bytes`.
        let start: Int
        let count: Int

        func read16(_ at: Int) -> Int {
            bigEndian ? Int(bytes[at]) << 8 | Int(bytes[at + 1]) : Int(bytes[at + 1]) << 8 | Int(bytes[at])
        }
        func read32(_ at: Int) -> Int { bigEndian ? read16(at) << 16 | read16(at + 2) : read16(at + 2) << 16 | read16(at) }
    }

    private static func ifd0(_ tiff: [UInt8]) -> IFD? {
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true       // "MM"
        case (0x49, 0x49): bigEndian = false      // "II"
        default: return nil
        }
        let header = IFD(bytes: tiff, bigEndian: bigEndian, start: 0, count: 0)
        guard header.read16(2) == 42 else { return nil }
        let offset = header.read32(4)
        guard offset >= 8, offset <= tiff.count - 2 else { return nil }
        let count = header.read16(offset)
        guard count <= (tiff.count - offset - 2) / 12 else { return nil }
        return IFD(bytes: tiff, bigEndian: bigEndian, start: offset + 2, count: count)
    }
}
