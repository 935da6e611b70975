import Foundation

/// What a configuration key holds, and so how it becomes command-line tokens.
public enum ConfigValueKind: Sendable {
    /// `true` gives `--name`; `false` gives nothing.
    case flag
    /// A JSON number, written as a plain decimal (no exponent).
    case number
    /// A JSON string, passed as it is.
    case string
    /// A JSON string naming a file or folder, resolved against the config file's folder.
    case path
}

/// Why a configuration file could not be used: the file, the key at fault (nil for
/// the file as a whole) and the problem. Reads `"<path>: <key>: <message>"`.
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    public let path: String
    public let key: String?
    public let message: String

    public init(path: String, key: String?, message: String) {
        self.path = path
        self.key = key
        self.message = message
    }

    public var description: String { key.map { "\(path): \($0): \(message)" } ?? "\(path): \(message)" }
}

/// A configuration file: a JSON object holding window options by their long names
/// without the dashes, turned into command-line tokens that go before the real
/// command line, so the command line wins.
///
///     // config.json: {"brush": 24, "no-shm": true, "cover": "foil.png"}
///     let tokens = try ConfigFile.arguments(path: "config.json",
///                                           schema: ["brush": .number, "no-shm": .flag, "cover": .path])
///     // ["--brush", "24", "--cover", "/home/me/.config/scratchcard/foil.png", "--no-shm"]
///     let command = try parseCommand(tokens + CommandLine.arguments.dropFirst())
public enum ConfigFile {
    /// The largest configuration file read.
    public static let maximumFileBytes = 1 << 20

    /// The tokens for every key of the file, keys in sorted order.
    public static func arguments(path: String, schema: [String: ConfigValueKind]) throws(ConfigError) -> [String] {
        func fail(_ message: String) -> ConfigError { ConfigError(path: path, key: nil, message: message) }
        let document = try JSONValue.load(path: path, limit: maximumFileBytes, what: "a configuration file", fail: fail)
        return try arguments(document: document, path: path, schema: schema)
    }

    /// The same from the file's bytes, already read; `path` names the file in errors
    /// and relative paths are resolved against its folder. The fuzz target's entry.
    static func arguments(bytes: Data, path: String, schema: [String: ConfigValueKind]) throws(ConfigError) -> [String] {
        func fail(_ message: String) -> ConfigError { ConfigError(path: path, key: nil, message: message) }
        let document = try JSONValue.parse(bytes, limit: maximumFileBytes, what: "a configuration file", fail: fail)
        return try arguments(document: document, path: path, schema: schema)
    }

    static func arguments(document: JSONValue, path: String, schema: [String: ConfigValueKind]) throws(ConfigError) -> [String] {
        func fail(_ message: String) -> ConfigError { ConfigError(path: path, key: nil, message: message) }
        guard case .object(let fields) = document else {
            throw fail("a configuration file is a JSON object, not \(document.kindName)")
        }
        let folder = PathText.folder(of: path)
        var tokens: [String] = []
        for key in fields.keys.sorted() {
            let value = fields[key]!
            func keyFail(_ message: String) -> ConfigError { ConfigError(path: path, key: key, message: message) }
            guard let kind = schema[key] else {
                throw keyFail("unknown key (known: \(schema.keys.sorted().joined(separator: ", ")))")
            }
            switch (kind, value) {
            case (.flag, .bool(let on)):
                if on { tokens.append("--" + key) }
            case (.flag, _):
                throw keyFail("expected true or false, not \(value.kindName)")
            case (.number, .number(let number)):
                guard let text = PlainDecimal.format(number) else { throw keyFail("expected a finite number") }
                tokens += ["--" + key, text]
            case (.number, _):
                throw keyFail("expected a number, not \(value.kindName)")
            case (.string, .string(let text)):
                tokens += ["--" + key, text]
            case (.string, _):
                throw keyFail("expected a string, not \(value.kindName)")
            case (.path, .string(let text)):
                guard !text.isEmpty else { throw keyFail("expected a file name, not an empty string") }
                tokens += ["--" + key, PathText.resolve(text, against: folder)]
            case (.path, _):
                throw keyFail("expected a string (a file name), not \(value.kindName)")
            }
        }
        return tokens
    }

    /// `$XDG_CONFIG_HOME/scratchcard/config.json` when `XDG_CONFIG_HOME` is set (and
    /// absolute, as the XDG spec requires), else `$HOME/.config/scratchcard/config.json`;
    /// nil when that file does not exist (or neither variable is usable).
    public static func defaultPath(environment: [String: String]) -> String? {
        let base: String
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = PathText.resolve(".config", against: home)
        } else {
            return nil
        }
        let path = PathText.resolve("scratchcard/config.json", against: base)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
