// libFuzzer target: JPEG bytes through our marker walk (JPEGMarkers, EXIF) and our
// libjpeg-turbo wrapper (JPEGFile.decode), orientation included. Built by
// scripts/fuzz.sh jpeg; see FUZZING.md. Compiled into the ScratchImage module, so
// internal names are visible. The system's libjpeg-turbo is not instrumented: libFuzzer
// sees the coverage of our Swift code only.
import ScratchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    // The marker walk on its own: an orientation is always one of the eight.
    if case .success(let markers) = JPEGMarkers.scan(bytes) {
        precondition((1...8).contains(markers.orientation.rawValue))
    }
    do {
        let image = try JPEGFile.decode(bytes, name: "fuzz.jpg")
        // What callers rely on: a well-formed image within the limits.
        precondition(image.width >= 1 && image.height >= 1)
        precondition(image.width <= PNGFile.maxSide && image.height <= PNGFile.maxSide)
        precondition(image.width * image.height <= PNGFile.maxPixels)
        precondition(image.bytes.count == image.width * image.height * 4)
    } catch {
        precondition(error.path == "fuzz.jpg" && !error.problem.isEmpty)
    }
    // The same bytes through the entry point that picks the decoder by signature.
    do { _ = try ImageFile.decode(bytes, name: "fuzz.jpg") } catch {
        precondition(error.path == "fuzz.jpg" && !error.problem.isEmpty)
    }
    return 0
}
