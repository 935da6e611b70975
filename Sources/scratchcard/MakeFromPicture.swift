@preconcurrency import Glibc
import Dealing
import CardFile
import CardRules
import Foundation
import ScratchCore
import ScratchImage

/// `scratchcard make-from PICTURE`: the file manager's "Make a scratch card". A card
/// file with the picture as its prize under the built-in foil, written beside the
/// picture (or in the documents folder when that folder cannot be written) under a
/// name no file has yet; its path printed; then, unless `--no-open`, the window on it.
func makeFromPicture(_ picture: String, open: Bool) throws(ExitError) {
    guard DesktopFiles.isPicture(picture) else {
        let why = access(picture, R_OK) == 0 ? "not a PNG, JPEG or WebP picture" : String(cString: strerror(errno))
        throw ExitError(code: 2, message: "\(picture): \(why)")
    }
    let folder = PictureCard.folder(for: picture, environment: ProcessInfo.processInfo.environment)
    let out = PictureCard.freeName(in: folder, stem: fileStem(picture))
    var options = MakeOptions()
    options.out = out
    options.prize = picture
    try makeCardFile(options)         // checks the picture decodes, writes atomically, prints the path
    guard open else { return }
    let command: Command
    do { command = try parseCommand(["--", out], environment: ProcessInfo.processInfo.environment) } catch {
        throw ExitError(code: 2, message: "\(error)")
    }
    guard case .window(let windowOptions) = command else { return }
    try WindowApp(options: windowOptions).run()
}

/// Where a picture's card file goes, and under which name.
enum PictureCard {
    /// The picture's own folder when it can be written; else the user's documents folder
    /// (`XDG_DOCUMENTS_DIR` in user-dirs.dirs, as `xdg-user-dir DOCUMENTS` says), else the home folder.
    static func folder(for picture: String, environment: [String: String]) -> String {
        // By bytes, as UserDirectories reads: "/" and a combining mark after it are one Character.
        let bytes = Array(picture.utf8)
        let beside = bytes.lastIndex(of: UInt8(ascii: "/")).map { String(decoding: bytes[..<$0], as: UTF8.self) } ?? "."
        let folder = beside.isEmpty ? "/" : beside
        if access(folder, W_OK) == 0 { return folder }
        let home = environment["HOME"] ?? "/"
        if let documents = documentsFolder(environment: environment), access(documents, W_OK) == 0 { return documents }
        return home
    }

    /// The documents folder the user's `user-dirs.dirs` names (`XDG_DOCUMENTS_DIR`, in
    /// `$XDG_CONFIG_HOME` or `~/.config`), as `xdg-user-dir DOCUMENTS` reads it; nil when
    /// the file is missing, names none, or names no folder (`UserDirectories` says which
    /// lines it reads). Read here rather than by running `xdg-user-dir`, a shell script:
    /// nothing the program does runs a shell.
    static func documentsFolder(environment: [String: String]) -> String? {
        let isAbsolute = { (path: String) in path.utf8.first == UInt8(ascii: "/") }   // (bytes: "/\u{301}" is one Character)
        guard let home = environment["HOME"], isAbsolute(home) else { return nil }
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { isAbsolute($0) ? $0 : nil } ?? home + "/.config"
        guard case .success(let bytes) = FileBytes.read(path: configHome + "/user-dirs.dirs", limit: 65_536),
              let path = UserDirectories.folder("XDG_DOCUMENTS_DIR", in: bytes, home: home) else { return nil }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? path : nil
    }

    /// `stem.scratchcard` in `folder`, or the first of `stem-2`, `stem-3`, ... that no
    /// file (nor link) has: a card file never replaces one.
    static func freeName(in folder: String, stem: String) -> String {
        let place = folder == "." ? "" : folder.hasSuffix("/") ? folder : folder + "/"
        let base = place + (stem.isEmpty ? "card" : stem)
        var info = stat()
        var n = 1
        while true {
            let path = base + (n == 1 ? "" : "-\(n)") + ".scratchcard"
            if lstat(path, &info) != 0 { return path }   // (another error: the write names it)
            n += 1
        }
    }
}

