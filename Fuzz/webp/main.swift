// libFuzzer target: WebP bytes through our libwebp wrapper (WebPFile.decode). Built by
// scripts/fuzz.sh webp; see FUZZING.md. Compiled into the ScratchImage module, so
// internal names are visible. libwebp is the system's, not instrumented.
//
// The pixel limit is lowered to 2^22 here: a lossless WebP of a few hundred bytes can
// hold a 16383x16383 picture, which is legitimate (the real limit, 2^28 pixels, allows
// it) but takes seconds to decode, and the fuzzer would spend its time there.
import ScratchCore

let fuzzMaxPixels = 1 << 22

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    check(bytes)
    // With the RIFF and chunk sizes made to fit, so mutated chunks reach libwebp's
    // decoders instead of its container checks.
    let fixed = WebPFile.withRIFFSizesFixed(bytes)
    if fixed != bytes { check(fixed) }
    return 0
}

func check(_ bytes: [UInt8]) {
    do {
        let image = try WebPFile.decode(bytes, name: "fuzz.webp", maxPixels: fuzzMaxPixels)
        precondition(image.width >= 1 && image.height >= 1)
        precondition(image.width <= PNGFile.maxSide && image.height <= PNGFile.maxSide)
        precondition(image.width * image.height <= fuzzMaxPixels)
        precondition(image.bytes.count == image.width * image.height * 4)
    } catch {
        precondition(error.path == "fuzz.webp" && !error.problem.isEmpty)
    }
}
