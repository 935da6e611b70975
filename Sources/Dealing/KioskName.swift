@preconcurrency import Glibc

/// The host name: the default kiosk id.
public func defaultKioskID() -> String {
    var name = [CChar](repeating: 0, count: 256)
    guard gethostname(&name, name.count - 1) == 0 else { return "kiosk" }
    let text = String(decoding: name.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.isEmpty ? "kiosk" : text
}
