// libFuzzer target: text/uri-list as dropped on the window or pasted
// (URIList.localPaths(in:thisHost:)): every path it gives is absolute, free of NULs,
// valid UTF-8 that encodes back to itself, and no more paths than lines.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURIList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data!, count: size))
    let paths = URIList.localPaths(in: bytes, thisHost: "fuzzhost")
    let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).count
    precondition(paths.count <= lines, "more paths than lines")
    for path in paths {
        precondition(path.hasPrefix("/"), "a path that is not absolute")
        precondition(!path.utf8.contains(0), "a NUL in a path")
    }
    return 0
}
