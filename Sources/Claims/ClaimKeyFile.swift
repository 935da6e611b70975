@preconcurrency import Glibc

/// The key's file: read with its mode checked, written new and never over another.
extension ClaimKey {
    /// Reads the key at `path`. Refused: a missing file, one that is not a regular file,
    /// one the group or others may read or write (the key would not be secret), one that
    /// is not hex, or one holding fewer than `minimumBytes`.
    public init(contentsOf path: String) throws(ClaimKeyError) {
        func fail(_ message: String) -> ClaimKeyError { ClaimKeyError(path: path, message: message) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw fail("no claim key there (make one with 'scratchcard claim-key new FILE')") }
            if code == ELOOP { throw fail("the claim key is a symbolic link: give the file itself") }
            throw fail("cannot read the claim key: \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw fail("cannot read the claim key: \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw fail("the claim key is not a regular file") }
        guard info.st_mode & 0o077 == 0 else {
            throw fail("the claim key may be read or written by others (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 it, and make a new key if others may have read it")
        }
        guard info.st_size <= Self.maximumFileBytes else { throw fail("not a claim key (larger than \(Self.maximumFileBytes) bytes)") }
        var text = [UInt8](repeating: 0, count: Self.maximumFileBytes + 1)
        var count = 0
        while count < text.count {
            let n = text.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 { if errno == EINTR { continue }; throw fail("cannot read the claim key: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            count += n
        }
        var digits = Array(text[..<count])
        while let last = digits.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") {
            digits.removeLast()
        }
        guard digits.count % 2 == 0, digits.allSatisfy({ hexValue($0) != nil }) else {
            throw fail("not a claim key (a key file holds hex digits only, as 'scratchcard claim-key new' writes it)")
        }
        guard digits.count / 2 >= Self.minimumBytes else {
            throw fail("the claim key is too short (\(digits.count / 2) bytes; at least \(Self.minimumBytes), and 'claim-key new' makes \(Self.generatedBytes))")
        }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) { bytes.append(hexValue(digits[i])! << 4 | hexValue(digits[i + 1])!) }
        self.init(bytes: bytes)
    }

    /// Writes a new key to `path`, mode 0600: into a temporary file in the same folder,
    /// synced, then linked to `path` (`link` fails when `path` exists, so an existing key,
    /// which may have made codes still to be redeemed, is never replaced), and the folder
    /// synced. Returns the key.
    public static func createFile(at path: String) throws(ClaimKeyError) -> ClaimKey {
        func fail(_ message: String) -> ClaimKeyError { ClaimKeyError(path: path, message: message) }
        guard !path.isEmpty, !path.hasSuffix("/") else { throw fail("not a file name") }
        var exists = stat()
        if lstat(path, &exists) == 0 { throw fail("a file is already there: a key is never overwritten (codes it made would stop redeeming)") }
        let key = try generate()
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var random = SystemRandomNumberGenerator()
        let temp = (slash.map { String(path[...$0]) } ?? "") + ".claim-key.\(getpid()).\(String(random.next() as UInt64, radix: 36)).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw fail("cannot write in \(folder): \(String(cString: strerror(errno)))") }
        func abandon(_ what: String, _ code: Int32) -> ClaimKeyError {
            unlink(temp)
            return fail("\(what): \(String(cString: strerror(code)))")
        }
        let text = key.fileText
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let writeError = errno
        if fchmod(fd, 0o600) != 0 || written != text.count { close(fd); throw abandon("cannot write the key", written < 0 ? writeError : ENOSPC) }
        if fsync(fd) != 0 { let e = errno; close(fd); throw abandon("cannot flush the key to disk", e) }
        close(fd)
        if link(temp, path) != 0 { throw abandon(errno == EEXIST ? "a file appeared there meanwhile; not overwritten" : "cannot create the key file", errno) }
        unlink(temp)
        let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { _ = fsync(dir); close(dir) }
        return key
    }
}
