@preconcurrency import Glibc
import CardRules
import ScratchCore
import Synchronization

/// A `.scratchcard` file's zip container, read whole into memory and never unpacked to
/// disk. Following OpenDocument's and EPUB's convention, its first entry is `mimetype`,
/// stored uncompressed, holding exactly `application/x-scratchcard`; `card.json` holds the
/// deck; the other entries are the images and sounds it names.
///
/// Opening checks every entry the central directory lists before any entry is read:
/// at most `maximumEntries`; names plain and relative (no `..`, `.`, absolute path,
/// backslash or control character); no duplicates, symbolic links or other special
/// files, no encryption; stored or deflated only; sizes within the limits and
/// possible for the compressed bytes there (a deflated entry cannot grow more than
/// 1032 times). An entry is then read only when asked for, in memory that grows with
/// what is really in it.
///
///     let container = try CardContainer.read(path: "baby.scratchcard")
///     let json = try container.bytes(of: "card.json", limit: 4 << 20)
public final class CardContainer: Sendable {
    /// The media type, in the `mimetype` entry and the desktop's MIME database.
    public static let mediaType = "application/x-scratchcard"
    /// The largest card file read.
    public static let maximumFileBytes = 512 << 20
    /// The most entries a card file may list.
    public static let maximumEntries = 10_000
    /// The largest entry (an image file's limit).
    public static let maximumEntryBytes = 256 << 20
    /// The most all entries together may hold once uncompressed.
    public static let maximumTotalBytes = 1 << 30
    /// The deck's entry.
    public static let deckEntry = "card.json"

    /// The file, as it was named: errors start with it.
    public let path: String
    /// The file's size in bytes.
    public let fileBytes: Int
    /// The file entries, in the container's order (`mimetype` first; folders left out).
    public let names: [String]
    /// Each file entry's index in the archive, its size uncompressed, and whether it is stored.
    private let entries: [String: (index: Int, size: Int, stored: Bool)]
    private let reader: Mutex<ZipReader>

    /// Reads the file at `path` (at most `maximumFileBytes`) and opens it.
    public static func read(path: String) throws(FileError) -> CardContainer {
        try CardContainer(readWholeFile(path), path: path)
    }

    /// Opens a container from its bytes; `path` names it in errors.
    public convenience init(bytes: [UInt8], path: String) throws(FileError) {
        guard bytes.count <= Self.maximumFileBytes else {
            throw FileError(path: path, message: "the file is \(bytes.count) bytes; a card file may have at most \(Self.maximumFileBytes)")
        }
        try self.init(ZipBytes(bytes), path: path)
    }

    /// Opens the archive in `file`, whose size both ways in have checked.
    private init(_ file: sending ZipBytes, path: String) throws(FileError) {
        func fail(_ message: String) -> FileError { FileError(path: path, message: message) }
        let bytes = file.bytes
        guard bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) else {
            throw fail("not a card file (not a zip container: a card file starts with PK)")
        }
        let zip: ZipReader
        do { zip = try ZipReader(file) } catch {
            throw fail("not a readable card file (a damaged or truncated zip container: \(error.message))")
        }
        let count = zip.count
        guard count <= Self.maximumEntries else {
            throw fail("\(count) entries; a card file may have at most \(Self.maximumEntries)")
        }
        var names: [String] = []
        var entries: [String: (index: Int, size: Int, stored: Bool)] = [:]
        var seen = Set<[UInt8]>()
        var total = 0
        for index in 0..<count {
            let info: ZipEntryInfo
            do { info = try zip.info(index) } catch { throw fail("entry \(index): \(error.message)") }
            let label = "entry \(Self.quoted(info.rawName))"
            if let problem = Self.nameProblem(info.rawName) { throw fail("\(label): \(problem)") }
            guard seen.insert(info.rawName).inserted else { throw fail("\(label) is there twice (duplicate entries)") }
            if info.isEncrypted { throw fail("\(label) is encrypted; a card file's entries are not") }
            let isFolder = info.rawName.last == UInt8(ascii: "/")
            switch info.unixFileType.map(Int32.init) {
            case nil, Int32(czipRegular)?: if isFolder && info.unixFileType != nil { throw fail("\(label): a folder's name marked as a file") }
            case Int32(czipDirectory)?: if !isFolder { throw fail("\(label): a folder without a folder's name") }
            case Int32(czipSymlink)?: throw fail("\(label) is a symbolic link; a card file holds only files")
            default: throw fail("\(label) is a special file (not a regular file); a card file holds only files")
            }
            guard info.method == 0 || info.method == 8 else {
                throw fail("\(label) is compressed with method \(info.method); a card file's entries are stored or deflated")
            }
            guard info.size <= UInt64(Self.maximumEntryBytes) else {
                throw fail("\(label) claims \(info.size) bytes; an entry may have at most \(Self.maximumEntryBytes)")
            }
            // Stored: the sizes agree. Deflated: at most 1032 bytes out for each byte in.
            let possible = info.method == 0 ? info.size == info.compressedSize : info.size <= info.compressedSize &* 1032 &+ 64
            guard possible, info.compressedSize <= UInt64(bytes.count) else {
                throw fail("\(label) claims \(info.size) bytes from \(info.compressedSize) compressed; that cannot be (a zip bomb, or a damaged file)")
            }
            if isFolder {
                guard info.size == 0 else { throw fail("\(label): a folder with data in it") }
                continue
            }
            total += Int(info.size)
            guard total <= Self.maximumTotalBytes else {
                throw fail("the entries claim more than \(Self.maximumTotalBytes) bytes together; a card file may hold at most that")
            }
            let name = String(decoding: info.rawName, as: UTF8.self)
            names.append(name)
            entries[name] = (index, Int(info.size), info.method == 0)
        }

        // The type's signature: `mimetype` first, stored, exactly the media type.
        guard let first = names.first, entries[first]?.index == 0, first == "mimetype" else {
            throw fail("not a card file (its first entry is not \"mimetype\")")
        }
        let info: ZipEntryInfo
        do { info = try zip.info(0) } catch { throw fail("entry \"mimetype\": \(error.message)") }
        guard info.method == 0 else { throw fail("entry \"mimetype\" is compressed; it must be stored as it is") }
        let expected = Array(Self.mediaType.utf8)
        let content: [UInt8]
        do {
            guard info.size == UInt64(expected.count) else { throw ZipProblem(message: "") }
            content = try zip.read(0, expected: expected.count, stored: true)
        } catch {
            throw fail("not a card file (entry \"mimetype\" does not hold \(Self.mediaType))")
        }
        guard content == expected else { throw fail("not a card file (entry \"mimetype\" does not hold \(Self.mediaType))") }
        guard entries[Self.deckEntry] != nil else { throw fail("no \(Self.deckEntry) in the card file") }

        self.path = path
        self.fileBytes = bytes.count
        self.names = names
        self.entries = entries
        self.reader = Mutex(zip)
    }

    /// True when the container holds a file entry of this name.
    public func contains(_ name: String) -> Bool { entries[name] != nil }

    /// The size an entry says it has, uncompressed; nil when there is none of that name.
    public func size(of name: String) -> Int? { entries[name]?.size }

    /// The bytes of the entry `name`, uncompressed and checked (CRC, size); at most
    /// `limit` of them, refused before anything is read when it claims more.
    public func bytes(of name: String, limit: Int) throws(FileError) -> [UInt8] {
        func fail(_ message: String) -> FileError { FileError(path: path, message: "entry \(JSONText.quoted(name)) \(message)") }
        guard let entry = entries[name] else { throw fail("is not in the card file") }
        guard entry.size <= limit else { throw fail("is \(entry.size) bytes; the limit is \(limit)") }
        let result = reader.withLock { zip in Result { () throws(ZipProblem) in try zip.read(entry.index, expected: entry.size, stored: entry.stored) } }
        switch result {
        case .success(let bytes): return bytes
        case .failure(let problem): throw fail("cannot be read: \(problem.message)")
        }
    }

    /// Why an entry's name is not one a card file may hold, or nil. Names are relative,
    /// with `/` between folders; a folder's own entry ends in `/`.
    static func nameProblem(_ raw: [UInt8]) -> String? {
        if raw.isEmpty { return "has an empty name" }
        if raw.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "has a control character in its name" }
        guard let name = String(validating: raw, as: UTF8.self) else { return "has a name that is not UTF-8" }
        // Bytes, not String.contains: that one is Foundation's, which the static binary must not link.
        if raw.contains(UInt8(ascii: "\\")) { return "has a backslash in its name (card files separate folders with /)" }
        if name.hasPrefix("/") { return "has an absolute name (starting with /)" }
        let parts = (name.hasSuffix("/") ? name.dropLast() : Substring(name)).split(separator: "/", omittingEmptySubsequences: false)
        if parts.first.map({ $0.count == 2 && $0.hasSuffix(":") }) == true { return "has an absolute name (a drive letter)" }
        if parts.contains("..") { return "has .. in its name (it would lead out of the card file)" }
        if parts.contains(where: { $0.isEmpty || $0 == "." }) { return "has an empty or . part in its name" }
        return nil
    }

    /// A raw name as messages quote it (bytes that are not UTF-8 shown as U+FFFD).
    static func quoted(_ raw: [UInt8]) -> String {
        JSONText.quoted(String(decoding: raw.prefix(200), as: UTF8.self))
    }

    /// The whole file: `open` (non-blocking: a FIFO cannot hang us), `fstat` on it, the
    /// size checked before anything is allocated, then read to the end straight into the
    /// memory libzip reads from.
    static func readWholeFile(_ path: String) throws(FileError) -> ZipBytes {
        func fail(_ message: String) -> FileError { FileError(path: path, message: message) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw fail(errno == ENOENT ? "no such file" : "cannot open the file: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw fail("cannot read the file") }
        if info.st_mode & S_IFMT == S_IFDIR { throw fail("is a folder, not a card file") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw fail("not a regular file") }
        let size = Int(info.st_size)
        guard size <= maximumFileBytes else {
            throw fail("the file is \(size) bytes; a card file may have at most \(maximumFileBytes)")
        }
        // One byte more than fstat said, to notice a file that grows while read.
        let file = ZipBytes(capacity: size + 1)
        while file.count < size + 1 {
            let n = Glibc.read(fd, file.memory.baseAddress! + file.count, size + 1 - file.count)
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw fail("cannot read the file: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            file.count += n
        }
        guard file.count <= size else { throw fail("the file grew while it was read") }
        return file
    }
}

// The Unix file types, as numbers (S_IFMT's values are the same on every Linux).
private let czipRegular: UInt32 = 0o100000
private let czipDirectory: UInt32 = 0o040000
private let czipSymlink: UInt32 = 0o120000
