import Foundation

extension Trace {
    /// The largest trace file read: far beyond any real gesture, far below trouble.
    public static let maximumFileBytes = 64 << 20

    /// Reads and parses a trace file; problems are `TraceError`s naming the path.
    public static func load(path: String) throws(TraceError) -> Trace {
        func fail(_ problem: String) -> TraceError { TraceError(file: path, line: nil, problem: problem) }
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw fail("cannot read the file (missing or not accessible)")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw fail("not a regular file") }
        let bytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard bytes <= maximumFileBytes else {
            throw fail("the file is \(bytes) bytes; a trace may have at most \(maximumFileBytes)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw fail("cannot read the file") }
        guard let text = String(validating: data, as: UTF8.self) else { throw fail("not UTF-8 text") }
        return try Trace(parsing: text, name: path)
    }
}
