/// The user's folders as `user-dirs.dirs` names them (xdg-user-dirs: `XDG_DOCUMENTS_DIR`
/// and its kin). Pure Swift, no import: it compiles alone, for its fuzz target
/// (Fuzz/userdirs).
enum UserDirectories {
    /// `name`'s folder in a user-dirs.dirs text: the last `NAME="$HOME/..."` or
    /// `NAME="/..."` line (the only forms the format allows); nil for anything else.
    static func folder(_ name: String, in text: String, home: String) -> String? {
        var found: String?
        for raw in text.split(separator: "\n") {
            let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            let start = raw.drop(while: isBlank)
            guard let last = start.lastIndex(where: { !isBlank($0) }) else { continue }
            let line = start[...last]
            guard line.hasPrefix(name + "=\""), line.hasSuffix("\""), line.count >= name.count + 3 else { continue }
            let value = String(line.dropFirst(name.count + 2).dropLast())
            guard !value.contains(where: { $0 == "\"" || $0 == "\\" }) else { continue }
            if value == "$HOME" || value == "$HOME/" { found = home }
            else if value.hasPrefix("$HOME/") { found = home + value.dropFirst(5) }
            else if value.hasPrefix("/") { found = value }
        }
        return found
    }
}
