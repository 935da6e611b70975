// libFuzzer target: the pool's connection strings (`--pool`, the config key "pool"):
// PoolAddress(_:environment:) in Sources/ScratchStore/PostgresConnection.swift, its own
// password check and libpq's PQconninfoParse behind it. Built by scripts/fuzz.sh
// conninfo; see FUZZING.md. The checks: no crash or hang; a string accepted holds no
// password (libpq reads none from it); a refusal says what is wrong and never quotes a
// password given in the string.
import Foundation
import CLibPQ

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConninfo(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data!, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    do {
        let address = try PoolAddress(text, environment: [:])
        // libpq must find no password in what was accepted.
        if let options = PQconninfoParse(address.conninfo, nil) {
            defer { PQconninfoFree(options) }
            var i = 0
            while let keyword = options[i].keyword {
                precondition(!(String(cString: keyword) == "password" && options[i].val != nil), "a password was accepted")
                i += 1
            }
        }
        precondition(!address.description.isEmpty)
    } catch {
        precondition(!error.message.isEmpty)
        // A password's value, when the string gives one in keyword form, is never echoed.
        if let range = text.range(of: "password="), error.kind == .badConnectionString {
            let value = text[range.upperBound...].prefix { $0 != " " && $0 != "&" }
            // Our own fixed words ("password", "PGPASSFILE", ...) are not an echo.
            if value.count >= 6 { precondition(!withoutFixedWords(error.message).contains(value), "the password was echoed") }
        }
    }
    return 0
}

/// The message without PoolAddress's fixed sentences, leaving what came from the input.
func withoutFixedWords(_ message: String) -> String {
    var rest = message
    for fixed in ["--pool: the connection string holds a password; put it in PGPASSFILE or ~/.pgpass (mode 0600) instead, never on a command line or in a config file",
                  "--pool: the connection string holds a password; put it in PGPASSFILE or ~/.pgpass (mode 0600) instead",
                  "--pool: not a PostgreSQL connection string or URI (check its syntax)",
                  "--pool: not a PostgreSQL connection string or URI"] {
        rest = rest.replacingOccurrences(of: fixed, with: "")
    }
    return rest
}
