// libFuzzer target: configuration files (ConfigFile.arguments(bytes:path:schema:)),
// with the schema scratchcard uses (Sources/scratchcard/Options.swift, configSchema).
// Built by scripts/fuzz.sh config; see FUZZING.md.
import Foundation

let schema: [String: ConfigValueKind] = [
    "cover": .path, "prize": .path, "brush": .number, "scale": .number, "size": .string,
    "no-shm": .flag, "title": .string, "display": .string, "record": .path, "stats": .flag,
    "verbose": .flag, "reveal-at": .number, "deck": .path, "snapshot-dir": .path, "events": .flag,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? Data() : Data(bytes: data!, count: size)
    do {
        let tokens = try ConfigFile.arguments(bytes: bytes, path: "/fuzz/config.json", schema: schema)
        // Every option comes as "--name" (flags) or "--name" then a value.
        var i = 0
        while i < tokens.count {
            precondition(tokens[i].hasPrefix("--"), "token \(i) is not an option")
            let kind = schema[String(tokens[i].dropFirst(2))]!
            i += kind == .flag ? 1 : 2
        }
        precondition(i == tokens.count)
    } catch {
        precondition(error.path == "/fuzz/config.json" && !error.message.isEmpty)
    }
    return 0
}
