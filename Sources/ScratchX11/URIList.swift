@preconcurrency import Glibc

/// A `text/uri-list` (RFC 2483) as dropped or pasted: the local files it names.
///
///     URIList.localPaths(in: Array("file:///home/ann/My%20photo.jpg\r\n".utf8))
///     // ["/home/ann/My photo.jpg"]
///
/// Lines end in CRLF (a bare LF is taken too); lines starting with `#` are comments.
/// Only `file:` URIs count, whose host is empty, `localhost` or `thisHost`: a file on
/// another machine cannot be opened here. The path is percent-decoded; a path that
/// decodes to a NUL, to bytes that are not UTF-8, or to no absolute path is skipped.
public enum URIList {
    public static func localPaths(in bytes: [UInt8]) -> [String] { localPaths(in: bytes, thisHost: hostName()) }

    /// The same, with this host's name given.
    static func localPaths(in bytes: [UInt8], thisHost: String) -> [String] {
        let text = String(decoding: bytes, as: UTF8.self)
        var paths: [String] = []
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(rawLine)
            while line.last == "\r" || line.last == " " { line = line.dropLast() }
            while line.first == " " { line = line.dropFirst() }
            guard !line.isEmpty, !line.hasPrefix("#"), let path = localPath(String(line), thisHost: thisHost) else { continue }
            paths.append(path)
        }
        return paths
    }

    /// The local path of one `file:` URI, or nil.
    static func localPath(_ uri: String, thisHost: String) -> String? {
        guard uri.count > 5, uri.prefix(5).lowercased() == "file:" else { return nil }
        var rest = uri.dropFirst(5)
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            let host = rest[..<slash].lowercased()
            guard host.isEmpty || host == "localhost" || host == thisHost.lowercased() else { return nil }
            rest = rest[slash...]
        }
        // A query or fragment is no part of a file's name.
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        guard rest.hasPrefix("/"), let decoded = percentDecoded(rest) else { return nil }
        return decoded
    }

    /// `%XX` escapes as their bytes; nil for a bad escape, a NUL or bytes not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// This host's name (`gethostname`), as `WM_CLIENT_MACHINE` and file URIs name it.
func hostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
