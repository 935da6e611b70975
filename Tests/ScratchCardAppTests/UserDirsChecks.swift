// What must hold of UserDirectories.folder for any bytes: the checks of the fuzz target
// Fuzz/userdirs, which compiles this file beside it (-D USERDIRS_FUZZ: there it is in the
// module under test), and of the suite, which replays the target's files through them.
#if !USERDIRS_FUZZ
@testable import scratchcard
#endif

enum UserDirsChecks {
    /// The most the program reads of a user-dirs.dirs (PictureCard.documentsFolder).
    static let fileLimit = 65_536

    /// What is wrong with how `bytes` read as a user-dirs.dirs with `$HOME` at `home` (an
    /// absolute path), or nil:
    /// - a folder given is absolute, without a NUL, and UTF-8 from the file (no U+FFFD
    ///   that the file did not hold);
    /// - written back as xdg-user-dirs-update writes (quoted, `$`, `` ` ``, `\` and `"`
    ///   escaped), as an absolute path and in `$HOME/` form, it reads back the same;
    /// and, with `wholeFile` (what does not depend on the home; a fuzz run checks it with
    /// one home, the larger work):
    /// - another `$HOME` (absolute) moves the folder only within the home folder's form: a
    ///   folder is given for both or for neither;
    /// - a comment line before the file changes nothing, nor a newline at the end, nor the
    ///   file repeated up to the program's limit, 64 KiB (each line is read on its own, the
    ///   last line that sets the name decides). That copy is where a reader slower than
    ///   linear would time out: a planted quadratic one did, on the first input.
    static func problem(in bytes: [UInt8], home: String, wholeFile: Bool = true) -> String? {
        let name = "XDG_DOCUMENTS_DIR"
        let folder = UserDirectories.folder(name, in: bytes, home: home)
        if let folder {
            // Bytes, not characters: "/\u{301}" is one Character, and no "/" to hasPrefix.
            guard folder.utf8.first == UInt8(ascii: "/") else { return "not absolute: \(folder.debugDescription)" }
            guard !folder.utf8.contains(0) else { return "a NUL: \(folder.debugDescription)" }
            let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
            if folder.unicodeScalars.contains("\u{FFFD}"), !contains(bytes, replacement) {
                return "U+FFFD that the file did not hold: \(folder.debugDescription)"
            }
            let absolute = Array("\(name)=\"\(escaped(folder))\"\n".utf8)
            guard UserDirectories.folder(name, in: absolute, home: home) == folder else {
                return "written back as an absolute path it reads otherwise: \(folder.debugDescription)"
            }
            let base = home.utf8.last == UInt8(ascii: "/") ? home : home + "/"
            if folder.utf8.starts(with: base.utf8) {
                let rest = String(decoding: folder.utf8.dropFirst(base.utf8.count), as: UTF8.self)
                let relative = Array("\(name)=\"$HOME/\(escaped(rest))\"\n".utf8)
                guard UserDirectories.folder(name, in: relative, home: home) == folder else {
                    return "written back in $HOME/ form it reads otherwise: \(folder.debugDescription)"
                }
            }
        }
        guard wholeFile else { return nil }
        let otherHome = home == "/elsewhere" ? "/home/other" : "/elsewhere"
        guard (UserDirectories.folder(name, in: bytes, home: otherHome) == nil) == (folder == nil) else {
            return "a folder with one home and none with another"
        }
        guard UserDirectories.folder(name, in: Array("# a comment\n".utf8) + bytes, home: home) == folder else {
            return "a comment line before the file changed the folder"
        }
        let ended = bytes + [UInt8(ascii: "\n")]
        guard UserDirectories.folder(name, in: ended, home: home) == folder else {
            return "a newline at the end changed the folder"
        }
        var repeated = ended
        while repeated.count + ended.count <= fileLimit { repeated += ended }
        guard repeated.count == ended.count || UserDirectories.folder(name, in: repeated, home: home) == folder else {
            return "the file repeated gives another folder"
        }
        return nil
    }

    /// `path` as xdg-user-dirs-update escapes it ($, `, \), and `"` too (which it forgets,
    /// and which both readers take escaped).
    static func escaped(_ path: String) -> String {
        var out = ""
        for scalar in path.unicodeScalars {
            if "$`\\\"".unicodeScalars.contains(scalar) { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard bytes.count >= part.count else { return false }
        return (0...(bytes.count - part.count)).contains { bytes[$0..<($0 + part.count)].elementsEqual(part) }
    }
}
