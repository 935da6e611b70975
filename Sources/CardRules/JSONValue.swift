import Foundation
import ScratchCore

/// A JSON document as a plain Swift value, read with `JSONDecoder`, which keeps the
/// kinds apart strictly: `true` is never a number and `1` is never `true`. Decks and
/// configuration files are read through it so every value can be checked for its
/// kind and reported by name.
enum JSONValue: Equatable, Sendable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The kind, as an error message says it: "a number", "a string", "null", ...
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value as an error message quotes it: numbers and short strings in full,
    /// containers by their kind.
    var quoted: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let value): PlainDecimal.format(value) ?? "\(value)"
        case .string(let value):
            value.count > 40 ? JSONText.quoted(String(value.prefix(40))) + "..." : JSONText.quoted(value)
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Reads a whole file of at most `limit` bytes and parses it. `fail` turns a
    /// problem into the caller's error type (which names the file).
    static func load<E: Error>(path: String, limit: Int, what: String, fail: (String) -> E) throws(E) -> JSONValue {
        let data: Data
        switch FileBytes.read(path: path, limit: limit) {
        case .success(let bytes): data = Data(bytes)
        case .failure(.cannotOpen): throw fail("cannot read the file (missing or not accessible)")
        case .failure(.notRegular): throw fail("not a regular file")
        case .failure(.tooBig(let size)): throw fail("the file is \(size) bytes; \(what) may have at most \(limit)")
        case .failure(.cannotRead): throw fail("cannot read the file")
        }
        return try parse(data, limit: limit, what: what, fail: fail)
    }

    /// Parses a whole document of at most `limit` bytes (the bytes of a file already
    /// read; the fuzz targets feed it directly). `fail` as in `load`.
    static func parse<E: Error>(_ data: Data, limit: Int, what: String, fail: (String) -> E) throws(E) -> JSONValue {
        guard data.count <= limit else { throw fail("the file is \(data.count) bytes; \(what) may have at most \(limit)") }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw fail("not valid JSON")
        }
    }
}

/// Numbers written so that a plain decimal parser reads them back exactly: no
/// exponent, no `nan`, no `inf`. 24 -> "24", 1.5 -> "1.5", 1e-7 -> "0.0000001".
enum PlainDecimal {
    /// The shortest digits that read back as `value`, spelled without an exponent;
    /// nil for a non-finite value.
    static func format(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        if value == 0 { return "0" }
        if value == value.rounded(), Swift.abs(value) < 1e15 { return String(Int64(value)) }
        // Swift's description is the shortest form that reads back exactly; it uses
        // an exponent for very small and very large values, which is expanded here.
        let text = value.description
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) else { return text }
        var mantissa = text[..<e]
        guard let exponent = Int(text[text.index(after: e)...]) else { return nil }
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa = mantissa.dropFirst() }
        let pointAt = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) }
            ?? mantissa.count
        var digits = mantissa.filter { $0 != "." }
        // The decimal point sits after `point` digits.
        var point = pointAt + exponent
        if point <= 0 {
            digits = String(repeating: "0", count: 1 - point) + digits
            point = 1
        } else if point > digits.count {
            digits += String(repeating: "0", count: point - digits.count)
        }
        var integer = String(digits.prefix(point))
        var fraction = String(digits.dropFirst(point))
        while fraction.hasSuffix("0") { fraction.removeLast() }
        while integer.count > 1 && integer.hasPrefix("0") { integer.removeFirst() }
        let body = fraction.isEmpty ? integer : integer + "." + fraction
        return negative ? "-" + body : body
    }
}

/// Writing JSON text by hand, for output whose key order is part of the protocol.
public enum JSONText {
    /// A JSON string literal: quotes, backslashes and control characters escaped
    /// (and U+2028/U+2029, which break JavaScript readers); everything else as UTF-8.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{2028}", "\u{2029}":
                out += "\\u" + String(scalar.value, radix: 16)
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
        return out
    }
}

/// Paths made absolute without touching the file system.
enum PathText {
    /// The folder holding `file`, made absolute against the current folder.
    static func folder(of file: String) -> String {
        let absolute = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        guard let slash = absolute.lastIndex(of: "/") else { return "/" }
        let folder = String(absolute[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// `path` resolved against `folder` (an absolute folder), with `.` components and
    /// repeated slashes removed. `..` is kept: removing it by text is wrong across
    /// symbolic links.
    static func resolve(_ path: String, against folder: String) -> String {
        let joined = path.hasPrefix("/") ? path : folder + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
            parts.append(part)
        }
        let trailing = joined.hasSuffix("/") && !parts.isEmpty ? "/" : ""
        return "/" + parts.joined(separator: "/") + trailing
    }

    /// The file name without its folder and its last extension: "/a/coffee.png" -> "coffee".
    static func stem(_ path: String) -> String {
        var name = path
        while name.hasSuffix("/") && name.count > 1 { name.removeLast() }
        if let slash = name.lastIndex(of: "/") { name = String(name[name.index(after: slash)...]) }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        return name
    }
}
