// libFuzzer target: stroke traces (Trace(parsing:name:)), the text the UTF-8 check in
// Trace.load lets through. Built by scripts/fuzz.sh trace; see FUZZING.md.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTrace(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }  // Trace.load refuses these
    do {
        let trace = try Trace(parsing: text, name: "fuzz.trace")
        precondition(trace.canvas.width >= 1 && trace.canvas.width <= Trace.maximumSide)
        precondition(trace.canvas.height >= 1 && trace.canvas.height <= Trace.maximumSide)
        // A parsed trace reads back the same from its own serialisation.
        let again = try Trace(parsing: trace.serialized(), name: "again.trace")
        precondition(again == trace, "a parsed trace does not survive serialize/parse")
        _ = trace.eventCount
        _ = trace.initialBrush
    } catch {
        precondition(error.file == "fuzz.trace" || error.file == "again.trace")
        precondition(!error.problem.isEmpty)
    }
    return 0
}
