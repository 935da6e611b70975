/// The user's folders as `user-dirs.dirs` names them (xdg-user-dirs: `XDG_DOCUMENTS_DIR`
/// and its kin). Pure Swift, no import: it compiles alone, for its fuzz target
/// (Fuzz/userdirs).
///
/// The file has two kinds of reader: `xdg-user-dir` sources it with a shell, and programs
/// read it in C (xdg-user-dirs' `xdg-user-dir-lookup.c`, GLib). `xdg-user-dirs-update`
/// writes `XDG_NAME_DIR="$HOME/yyy"` or `XDG_NAME_DIR="/yyy"`, with `$`, `` ` `` and `\`
/// escaped by a backslash, which both read alike. A line that the two would read
/// differently (a `$` that the shell expands, `\a` whose backslash only the shell keeps,
/// text after the closing quote) names no folder here: better the home folder than a
/// guess.
enum UserDirectories {
    /// `name`'s folder (`name`: `XDG_DOCUMENTS_DIR`, say) in the bytes of a user-dirs.dirs
    /// file, `$HOME` read as `home`. Always an absolute path without a NUL; nil when no
    /// line sets `name`, or when the last line that sets it cannot be read as below.
    ///
    /// Lines end at LF, a CR before it dropped (a file saved with CRLF reads as the C
    /// readers read it). A line sets `name` when, after spaces and tabs, it is `name` then
    /// `=`, with or without blanks between (the C readers take `name = ...`, the shell does
    /// not: such a line sets it to no folder). It reads when it is exactly `name="VALUE"`,
    /// then nothing, blanks, or blanks and a `#` comment, where VALUE is
    /// - `$HOME` or `$HOME/` (the home folder), `$HOME/path` (in the home folder), or
    ///   `/path` (absolute; `..` is allowed, as the format and both readers allow it: an
    ///   absolute path may name any folder anyway, and the file is the user's own);
    /// - with `\$`, `` \` ``, `\"` and `\\` for the character, and no other backslash, no
    ///   `$` or `` ` `` of its own, no NUL, and UTF-8 (the program's paths are text).
    ///
    /// One pass over the bytes, each line looked at once and nothing kept of it but where
    /// its value is, the path made once at the end: the work grows linearly with the file
    /// (its reader caps it at 64 KiB).
    static func folder(_ name: String, in bytes: [UInt8], home: String) -> String? {
        let key = Array(name.utf8)
        let text = bytes.span
        var decided: Setting?
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count, text[end] != Byte.newline { end += 1 }
            let lineEnd = end > start && text[end - 1] == Byte.carriageReturn ? end - 1 : end
            if let setting = setting(of: key, in: text, from: start, to: lineEnd) { decided = setting }
            start = end + 1
        }
        guard case .value(let inHome, let quoted)? = decided,
              let path = String(validating: unescaped(text, quoted), as: UTF8.self) else { return nil }
        guard inHome else { return path }
        // Bytes, not characters: "/" and a combining mark after it are one Character, so
        // `hasPrefix("/")` would call "/\u{301}x" relative.
        var base = Array(home.utf8)[...]
        guard base.first == Byte.slash, !base.contains(0) else { return nil }
        if path.isEmpty { return home }
        while base.last == Byte.slash { base = base.dropLast() }
        return String(decoding: base, as: UTF8.self) + "/" + path
    }

    /// What one line says of a name.
    enum Setting: Equatable {
        /// A value that reads: in the home folder (`$HOME`, `$HOME/`, `$HOME/rest`, with
        /// `quoted` the bytes of rest) or absolute (`quoted` the bytes from its first
        /// slash); the bytes as the file has them, escapes and all, up to the closing quote.
        case value(inHome: Bool, quoted: Range<Int>)
        /// The line sets the name, in a way the shell and the C readers read differently,
        /// or to something that is no folder (a relative path, a value without its quote).
        case unreadable
    }

    /// What the line `text[start..<end]` (without its line end) says of `key`: nil when it
    /// does not set it.
    static func setting(of key: [UInt8], in text: Span<UInt8>, from start: Int, to end: Int) -> Setting? {
        func at(_ i: Int, is byte: UInt8) -> Bool { i < end && text[i] == byte }
        func at(_ i: Int, are bytes: [UInt8]) -> Bool {
            guard end - i >= bytes.count else { return false }
            for k in bytes.indices where text[i + k] != bytes[k] { return false }
            return true
        }
        var i = start
        while i < end, Byte.isBlank(text[i]) { i += 1 }
        guard at(i, are: key) else { return nil }
        i += key.count
        var equals = i
        while equals < end, Byte.isBlank(text[equals]) { equals += 1 }
        guard at(equals, is: Byte.equals) else { return nil }   // another name, or no setting
        guard equals == i else { return .unreadable }
        i += 1
        guard at(i, is: Byte.quote) else { return .unreadable }
        i += 1

        let inHome: Bool
        if at(i, are: Byte.home) {
            i += Byte.home.count
            if at(i, is: Byte.slash) { i += 1 } else if !at(i, is: Byte.quote) { return .unreadable }   // $HOMEDIR
            inHome = true
        } else if at(i, is: Byte.slash) {
            inHome = false
        } else {
            return .unreadable   // relative, ~, ${HOME}, empty
        }
        let valueStart = i
        while true {
            guard i < end else { return .unreadable }   // no closing quote
            let byte = text[i]
            if byte == Byte.quote { break }
            if byte == Byte.backslash {
                guard i + 1 < end, Byte.isEscapable(text[i + 1]) else { return .unreadable }
                i += 2
                continue
            }
            guard byte != Byte.dollar, byte != Byte.backtick, byte != 0 else { return .unreadable }
            i += 1
        }
        let value = valueStart..<i
        i += 1   // the closing quote
        let afterQuote = i
        while i < end, Byte.isBlank(text[i]) { i += 1 }
        guard i == end || (i > afterQuote && text[i] == Byte.hash) else { return .unreadable }
        return .value(inHome: inHome, quoted: value)
    }

    /// The bytes of `text[quoted]`, each backslash dropped before the byte it escapes
    /// (`setting` has checked that every one escapes one).
    static func unescaped(_ text: Span<UInt8>, _ quoted: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(quoted.count)
        var i = quoted.lowerBound
        while i < quoted.upperBound {
            if text[i] == Byte.backslash { i += 1 }
            out.append(text[i])
            i += 1
        }
        return out
    }

    /// The bytes the format is made of.
    enum Byte {
        static let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        static let equals = UInt8(ascii: "="), quote = UInt8(ascii: "\""), slash = UInt8(ascii: "/")
        static let backslash = UInt8(ascii: "\\"), dollar = UInt8(ascii: "$"), backtick = UInt8(ascii: "`")
        static let hash = UInt8(ascii: "#")
        static let home = Array("$HOME".utf8)
        /// What a backslash may escape inside double quotes, read alike by sh and by C.
        static func isEscapable(_ byte: UInt8) -> Bool { byte == dollar || byte == backtick || byte == quote || byte == backslash }
        static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    }
}
