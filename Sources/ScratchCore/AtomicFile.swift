@preconcurrency import Glibc

/// Writes whole files so that a crash, a full disk or a power cut leaves either the old
/// file or the new one, never a mixture: the bytes go to a fresh temporary file in the
/// same folder (`open` with `O_CREAT | O_EXCL`, a unique name), which is `fsync`ed and
/// then `rename`d over the target; finally the folder itself is `fsync`ed so the rename
/// is durable. On any failure the temporary file is removed and the target is untouched.
///
///     try AtomicFile.write(Array("hello\n".utf8), to: "/tmp/greeting.txt")
public enum AtomicFile {
    /// Replaces the file at `path` with `bytes`; the new file gets exactly `mode`
    /// (not reduced by the umask). The folder must exist.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(AtomicFileError) {
        guard !path.isEmpty else { throw AtomicFileError(path: path, message: "empty file name") }
        guard !path.hasSuffix("/") else { throw AtomicFileError(path: path, message: "is a folder name, not a file name") }
        let (folder, name) = split(path)

        // Create the temporary file, retrying on the unlikely clash of names.
        var tempPath = ""
        var fd: Int32 = -1
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 {
            let suffix = String(generator.next() as UInt64, radix: 36)
            tempPath = String(path.dropLast(name.count)) + ".\(name).\(getpid()).\(suffix).tmp"
            fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else {
            throw AtomicFileError(path: path, message: "cannot create a temporary file in \(folder): \(errorText(errno))")
        }

        // From here on, any failure removes the temporary file.
        func fail(_ what: String, _ code: Int32) -> AtomicFileError {
            if fd >= 0 { close(fd) }
            unlink(tempPath)
            return AtomicFileError(path: path, message: "\(what): \(errorText(code))")
        }

        if fchmod(fd, mode) != 0 { throw fail("cannot set the file mode", errno) }

        var written = 0
        let total = bytes.count
        let writeError: Int32 = bytes.withUnsafeBytes { raw -> Int32 in
            while written < total {
                let n = Glibc.write(fd, raw.baseAddress! + written, total - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { return ENOSPC }
                written += n
            }
            return 0
        }
        if writeError != 0 { throw fail("cannot write", writeError) }
        if fsync(fd) != 0 { throw fail("cannot flush to disk", errno) }
        let closed = close(fd)
        fd = -1
        if closed != 0 { throw fail("cannot close", errno) }
        if rename(tempPath, path) != 0 { throw fail("cannot replace the file", errno) }

        // Make the rename itself durable. Some file systems cannot fsync a folder
        // (EINVAL); the file is in place by now, so only real I/O errors are reported.
        let dirFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            let synced = fsync(dirFD)
            let code = errno
            close(dirFD)
            if synced != 0 && code == EIO {
                throw AtomicFileError(path: path, message: "written, but the folder could not be flushed: \(errorText(code))")
            }
        }
    }

    /// The folder and the file name of a path: "a/b.png" -> ("a", "b.png"),
    /// "b.png" -> (".", "b.png"), "/b.png" -> ("/", "b.png").
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let name = String(path[path.index(after: slash)...])
        var folder = String(path[..<slash])
        while folder.hasSuffix("/") { folder.removeLast() }
        return (folder.isEmpty ? "/" : folder, name)
    }

    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text).lowercased()
    }
}
