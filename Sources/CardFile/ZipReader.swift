// Reading a zip archive held in memory through libzip. C types and pointers stay in this
// file and ZipWriter.swift: the rest of the room sees names, numbers and byte arrays.
@preconcurrency import Glibc
import CZip

/// What the central directory says of one entry, before anything of it is read.
struct ZipEntryInfo: Equatable, Sendable {
    /// The name's bytes as stored (not guessed into another encoding).
    let rawName: [UInt8]
    /// The size the entry claims once uncompressed, and its compressed size.
    let size: UInt64
    let compressedSize: UInt64
    /// libzip's method number: 0 stored, 8 deflated.
    let method: Int32
    let isEncrypted: Bool
    /// The Unix file type bits (S_IFMT) from the external attributes, when the entry
    /// was made on Unix and says one; nil otherwise.
    let unixFileType: UInt32?
}

/// The bytes of an archive, in memory allocated once and left uninitialised until they
/// arrive (a file is read straight into it: no page is zeroed or copied first). The
/// reader opened over them keeps them.
final class ZipBytes {
    let memory: UnsafeMutableRawBufferPointer
    /// How many bytes at the start hold the archive.
    var count = 0

    init(capacity: Int) { memory = .allocate(byteCount: max(capacity, 1), alignment: 16) }

    /// A copy of `bytes`.
    convenience init(_ bytes: [UInt8]) {
        self.init(capacity: bytes.count)
        bytes.withUnsafeBytes { memory.copyMemory(from: $0) }
        count = bytes.count
    }

    deinit { memory.deallocate() }

    /// The archive's bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: memory[..<count]) }
}

/// A zip archive opened over bytes in memory: lists its entries, reads one at a time.
/// Not thread-safe on its own: `CardContainer` holds it behind a lock.
final class ZipReader {
    /// What libzip reads from (libzip does not free it: it is ours).
    private let source: ZipBytes
    private let archive: OpaquePointer

    /// Opens the archive; a message (libzip's, in words) when the bytes are not one.
    init(_ bytes: ZipBytes) throws(ZipProblem) {
        source = bytes
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let zipSource = zip_source_buffer_create(bytes.memory.baseAddress, UInt64(bytes.count), 0, &error) else {
            throw ZipProblem(message: String(cString: zip_error_strerror(&error)))
        }
        guard let archive = zip_open_from_source(zipSource, czip_rdonly(), &error) else {
            zip_source_free(zipSource)
            throw ZipProblem(code: zip_error_code_zip(&error), message: String(cString: zip_error_strerror(&error)))
        }
        self.archive = archive
    }

    deinit {
        zip_discard(archive)      // frees libzip's source too; the bytes go with `source`
    }

    /// How many entries the central directory lists.
    var count: Int { Int(zip_get_num_entries(archive, 0)) }

    /// The directory's word on entry `index` (0 ..< count).
    func info(_ index: Int) throws(ZipProblem) -> ZipEntryInfo {
        var stat = zip_stat_t()
        zip_stat_init(&stat)
        guard zip_stat_index(archive, UInt64(index), czip_enc_raw(), &stat) == 0,
              stat.valid & czip_stat_needed() == czip_stat_needed(), let name = stat.name else {
            throw ZipProblem(message: String(cString: zip_strerror(archive)))
        }
        var system: UInt8 = 0, attributes: UInt32 = 0
        var fileType: UInt32?
        if zip_file_get_external_attributes(archive, UInt64(index), 0, &system, &attributes) == 0,
           system == czip_opsys_unix(), (attributes >> 16) & UInt32(czip_file_type_mask()) != 0 {
            fileType = (attributes >> 16) & UInt32(czip_file_type_mask())
        }
        let rawName = Array(UnsafeBufferPointer(start: UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self),
                                                count: strlen(name)))
        return ZipEntryInfo(rawName: rawName, size: stat.size, compressedSize: stat.comp_size,
                            method: Int32(stat.comp_method), isEncrypted: stat.encryption_method != czip_no_encryption(),
                            unixFileType: fileType)
    }

    /// The entry's bytes, uncompressed and checked against its CRC by libzip; more than
    /// `expected` bytes (or fewer) is an error. Memory follows what is really there: a
    /// stored entry's size is its size in the archive (checked before), so it is read
    /// into an array of that size at once; a deflated one grows chunk by chunk, never to
    /// a size the directory claims.
    func read(_ index: Int, expected: Int, stored: Bool = false) throws(ZipProblem) -> [UInt8] {
        guard let file = zip_fopen_index(archive, UInt64(index), 0) else {
            throw ZipProblem(message: String(cString: zip_strerror(archive)))
        }
        defer { zip_fclose(file) }
        // One byte past `expected` is asked for, to notice an entry longer than it says.
        let chunk = stored ? expected + 1 : 1 << 16
        var bytes: [UInt8] = []
        while true {
            let room = min(chunk, expected + 1 - bytes.count)
            var n: Int64 = 0
            let piece = [UInt8](unsafeUninitializedCapacity: room) { buffer, initialized in
                n = zip_fread(file, buffer.baseAddress, UInt64(room))
                initialized = max(Int(n), 0)
            }
            if bytes.isEmpty { bytes = piece } else { bytes += piece }
            if n < 0 {
                throw ZipProblem(message: String(cString: zip_error_strerror(zip_file_get_error(file))))
            }
            if bytes.count > expected { throw ZipProblem(message: "holds more bytes than its size says (\(expected))") }
            if n == 0 { break }
        }
        guard bytes.count == expected else {
            throw ZipProblem(message: "holds \(bytes.count) bytes, not the \(expected) its size says")
        }
        return bytes
    }
}

/// Why libzip refused: its message, and its error code when it gave one.
struct ZipProblem: Error, Equatable {
    var code: Int32 = 0
    let message: String
}
