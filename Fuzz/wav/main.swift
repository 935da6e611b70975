// libFuzzer target: WAV files (WAVFile.decode(_:path:)), the parser of the sound a deck
// card may name. Compiled with the sound room's pure-Swift files (the WAV parser and the
// clip type it makes), not its C outputs.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWAV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let clip = try WAVFile.decode(bytes, path: "/fuzz/sound.wav")
        // What the player relies on: a bounded clip of finite samples in -1...1.
        precondition(!clip.samples.isEmpty)
        precondition(Double(clip.samples.count) <= (WAVFile.maximumSeconds + 1) * Double(Synth.rate))
        precondition(clip.samples.allSatisfy { $0.isFinite && $0 >= -1 && $0 <= 1 })
    } catch {
        precondition(error.path == "/fuzz/sound.wav" && !error.message.isEmpty)
    }
    return 0
}
