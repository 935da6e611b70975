import Foundation

extension Trace {
    /// The largest trace file read: far beyond any real gesture, far below trouble.
    public static let maximumFileBytes = 64 << 20

    /// Reads and parses a trace file; problems are `TraceError`s naming the path.
    public static func load(path: String) throws(TraceError) -> Trace {
        func fail(_ problem: String) -> TraceError { TraceError(file: path, line: nil, problem: problem) }
        let data: [UInt8]
        switch FileBytes.read(path: path, limit: maximumFileBytes) {
        case .success(let bytes): data = bytes
        case .failure(.cannotOpen): throw fail("cannot read the file (missing or not accessible)")
        case .failure(.notRegular): throw fail("not a regular file")
        case .failure(.tooBig(let size)): throw fail("the file is \(size) bytes; a trace may have at most \(maximumFileBytes)")
        case .failure(.cannotRead): throw fail("cannot read the file")
        }
        guard let text = String(validating: data, as: UTF8.self) else { throw fail("not UTF-8 text") }
        return try Trace(parsing: text, name: path)
    }
}
