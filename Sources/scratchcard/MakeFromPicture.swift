@preconcurrency import Glibc
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
    /// (`xdg-user-dir DOCUMENTS`, run without a shell), else the home folder.
    static func folder(for picture: String, environment: [String: String]) -> String {
        let parts = picture.split(separator: "/", omittingEmptySubsequences: false)
        let beside = parts.count > 1 ? parts.dropLast().joined(separator: "/") : "."
        let folder = beside.isEmpty ? "/" : beside
        if access(folder, W_OK) == 0 { return folder }
        let home = environment["HOME"] ?? "/"
        if let documents = documentsFolder(environment: environment), access(documents, W_OK) == 0 { return documents }
        return home
    }

    /// What `xdg-user-dir DOCUMENTS` says (it reads the user's user-dirs.dirs), or nil
    /// when it is not installed, fails, or names no folder.
    static func documentsFolder(environment: [String: String]) -> String? {
        guard let output = runForOutput("/usr/bin/xdg-user-dir", ["DOCUMENTS"], environment: environment),
              let path = String(validating: output, as: UTF8.self)?.split(separator: "\n").first.map(String.init),
              path.hasPrefix("/") else { return nil }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? path : nil
    }

    /// Runs `program` (no shell: posix_spawn) with `arguments`, stdin and stderr ours
    /// (a sandbox may have no /dev/null to open); its stdout (at most 64 KiB) when it
    /// exits 0, else nil.
    static func runForOutput(_ program: String, _ arguments: [String], environment: [String: String]) -> [UInt8]? {
        guard access(program, X_OK) == 0 else { return nil }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard spawned == 0 else { return nil }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while output.count < 65_536 {
            let n = chunk.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress!, 4096) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            output += chunk[..<n]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // Exited (the low 7 bits 0) with status 0.
        return status & 0x7F == 0 && (status >> 8) & 0xFF == 0 ? output : nil
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

