@preconcurrency import Glibc

/// Why a WAV file could not be used: the file and the problem, read as `"<path>: <problem>"`.
public struct WAVError: Error, Equatable, CustomStringConvertible, Sendable {
    public let path: String
    public let message: String
    public init(path: String, message: String) { self.path = path; self.message = message }
    public var description: String { "\(path): \(message)" }
}

/// WAV files (RIFF WAVE), outside input: PCM of 8, 16, 24 or 32 bits, IEEE float of 32
/// or 64 bits, plain or WAVE_FORMAT_EXTENSIBLE; 1 to 8 channels; 8 to 192 kHz; at most
/// 16 MiB and 30 seconds. Decoded to a mono clip at `Synth.rate` (channels averaged,
/// resampled linearly). Every size is checked against the bytes that are there before
/// anything is allocated; a bad file is an error naming it, never a crash.
///
///     let clip = try WAVFile.load(path: "fanfare.wav")
public enum WAVFile {
    public static let maximumFileBytes = 16 << 20
    public static let maximumSeconds = 30.0

    /// Reads and decodes the file.
    public static func load(path: String) throws(WAVError) -> SoundClip {
        try decode(read(path: path), path: path)
    }

    /// Decodes a WAV file's bytes; `path` names it in errors. The fuzz target's entry.
    public static func decode(_ bytes: [UInt8], path: String) throws(WAVError) -> SoundClip {
        func fail(_ message: String) -> WAVError { WAVError(path: path, message: message) }
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        func tag(_ o: Int) -> String { String(decoding: bytes[o..<o + 4].map { $0 >= 32 && $0 < 127 ? $0 : UInt8(ascii: "?") }, as: UTF8.self) }

        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else {
            throw fail("not a WAV file (no RIFF WAVE header)")
        }
        guard bytes.count <= maximumFileBytes else { throw fail("more than \(maximumFileBytes) bytes") }
        var format: (code: Int, channels: Int, rate: Int, blockAlign: Int, bits: Int)?
        var data: Range<Int>?
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = tag(offset), size = u32(offset + 4)
            let body = offset + 8
            guard size <= bytes.count - body else {
                // A data chunk cut short (a recording interrupted) is refused too: it
                // says it holds more than the file has.
                throw fail("chunk '\(id)' claims \(size) bytes but only \(bytes.count - body) follow")
            }
            switch id {
            case "fmt ":
                guard format == nil else { throw fail("two 'fmt ' chunks") }
                guard size >= 16 else { throw fail("'fmt ' chunk of \(size) bytes, less than 16") }
                var code = u16(body)
                let bits = u16(body + 14)
                if code == 0xFFFE {
                    guard size >= 40 else { throw fail("WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk of \(size) bytes, less than 40") }
                    code = u16(body + 24)
                }
                format = (code, u16(body + 2), u32(body + 4), u16(body + 12), bits)
            case "data":
                guard data == nil else { throw fail("two 'data' chunks") }
                data = body..<body + size
            default:
                break
            }
            offset = body + size + (size & 1)
        }
        guard let format else { throw fail("no 'fmt ' chunk") }
        guard let data else { throw fail("no 'data' chunk") }
        let bytesPerSample: Int
        switch (format.code, format.bits) {
        case (1, 8), (1, 16), (1, 24), (1, 32), (3, 32), (3, 64): bytesPerSample = format.bits / 8
        case (1, _), (3, _): throw fail("\(format.bits)-bit \(format.code == 1 ? "PCM" : "float") samples are not supported (PCM 8/16/24/32, float 32/64)")
        default: throw fail("format \(format.code) is not supported (only PCM and IEEE float)")
        }
        guard (1...8).contains(format.channels) else { throw fail("\(format.channels) channels; 1 to 8 are supported") }
        guard (8_000...192_000).contains(format.rate) else { throw fail("\(format.rate) samples per second; 8000 to 192000 are supported") }
        let frameBytes = bytesPerSample * format.channels
        guard format.blockAlign == frameBytes else {
            throw fail("block align \(format.blockAlign) does not match \(format.channels) channels of \(format.bits) bits")
        }
        let frames = data.count / frameBytes
        guard frames > 0 else { throw fail("the 'data' chunk holds no samples") }
        guard Double(frames) <= maximumSeconds * Double(format.rate) else {
            throw fail("longer than \(Int(maximumSeconds)) seconds")
        }

        // Channels averaged to mono, as floats in -1...1.
        var mono = [Float](repeating: 0, count: frames)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<format.channels {
                let o = data.lowerBound + frame * frameBytes + channel * bytesPerSample
                switch (format.code, bytesPerSample) {
                case (1, 1): sum += (Float(bytes[o]) - 128) / 128
                case (1, 2): sum += Float(Int16(truncatingIfNeeded: u16(o))) / 32_768
                case (1, 3): sum += Float(Int32(truncatingIfNeeded: u16(o) << 8 | Int(bytes[o + 2]) << 24) >> 8) / 8_388_608
                case (1, _): sum += Float(Int32(truncatingIfNeeded: u32(o))) / 2_147_483_648
                case (_, 4): sum += Float(bitPattern: UInt32(u32(o)))
                default: sum += Float(Double(bitPattern: UInt64(u32(o)) | UInt64(u32(o + 4)) << 32))
                }
            }
            let value = sum / Float(format.channels)
            mono[frame] = value.isFinite ? Swift.min(1, Swift.max(-1, value)) : 0
        }
        guard format.rate != Synth.rate, frames > 1 else { return SoundClip(samples: mono) }
        // Linear resampling to the synthesiser's rate.
        // At least one sample: 2 frames at 192 kHz make less than one at 48 kHz.
        let count = Swift.max(1, Int(Double(frames) * Double(Synth.rate) / Double(format.rate)))
        let step = Double(format.rate) / Double(Synth.rate)
        var out = [Float](repeating: 0, count: count)
        for i in 0..<count {
            let position = Double(i) * step
            let j = Swift.min(Int(position), frames - 2)
            // Past the last pair (the final output samples) hold the last input sample:
            // t beyond 1 would extrapolate past full scale (libFuzzer found 1.65).
            let t = Float(Swift.min(1, position - Double(j)))
            out[i] = mono[j] + (mono[j + 1] - mono[j]) * t
        }
        return SoundClip(samples: out)
    }

    /// The file's bytes: a regular file of at most `maximumFileBytes`, checked on the
    /// open file before reading (non-blocking open: a FIFO cannot hang us).
    static func read(path: String) throws(WAVError) -> [UInt8] {
        func fail(_ message: String) -> WAVError { WAVError(path: path, message: message) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw fail("cannot open the sound file (missing or not accessible)") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw fail("cannot read the sound file") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw fail("not a regular file") }
        let size = Int(info.st_size)
        guard size <= maximumFileBytes else { throw fail("\(size) bytes; a sound file may have at most \(maximumFileBytes)") }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let n = bytes.withUnsafeMutableBytes { raw in Glibc.read(fd, raw.baseAddress! + filled, size - filled) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { throw fail(n == 0 ? "the file shrank while it was read" : "cannot read the sound file") }
            filled += n
        }
        return bytes
    }
}
