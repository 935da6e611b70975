// libFuzzer target: PNG bytes through our libpng wrapper (PNGFile.decode).
// Built by scripts/fuzz.sh png; see FUZZING.md. Compiled into the ScratchImage module,
// so internal names are visible.
//
// The system's libpng is not instrumented, so libFuzzer sees only our wrapper's
// coverage; and nearly every blind mutation would die at a chunk's CRC. So each input
// is decoded twice: as it is, and with every chunk's CRC recomputed
// (PNGFile.withChunkCRCsRecomputed), which lets mutated chunks reach libpng's parsers.
import ScratchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    check(bytes)
    let fixed = PNGFile.withChunkCRCsRecomputed(bytes)
    if fixed != bytes { check(fixed) }
    return 0
}

func check(_ bytes: [UInt8]) {
    do {
        let image = try PNGFile.decode(bytes, name: "fuzz.png")
        // What callers rely on: a well-formed image within the limits.
        precondition(image.width >= 1 && image.height >= 1)
        precondition(image.width <= PNGFile.maxSide && image.height <= PNGFile.maxSide)
        precondition(image.width * image.height <= PNGFile.maxPixels)
        precondition(image.bytes.count == image.width * image.height * 4)
    } catch {
        precondition(error.path == "fuzz.png" && !error.problem.isEmpty)
    }
}
