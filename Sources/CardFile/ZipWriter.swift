// Writing a zip archive into memory through libzip (the other half of ZipReader.swift).
@preconcurrency import Glibc
import CZip

/// One file to put in an archive: its name, its bytes, and whether to deflate them.
struct ZipItem {
    let name: String
    let bytes: [UInt8]
    let deflate: Bool
}

enum ZipWriter {
    /// The archive's bytes: the items in order (the first one's local header at offset
    /// 0, its name at 30 and, since libzip writes no extra field, its data right after),
    /// each a regular file of mode 0644.
    static func archive(_ items: [ZipItem]) throws(ZipProblem) -> [UInt8] {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(nil, 0, 0, &error) else {
            throw ZipProblem(message: String(cString: zip_error_strerror(&error)))
        }
        defer { zip_source_free(source) }
        zip_source_keep(source)     // the archive lives on in it after zip_close
        guard let archive = zip_open_from_source(source, czip_truncate(), &error) else {
            throw ZipProblem(message: String(cString: zip_error_strerror(&error)))
        }
        func fail() -> ZipProblem {
            let problem = ZipProblem(message: String(cString: zip_strerror(archive)))
            zip_discard(archive)
            return problem
        }
        for item in items {
            // A copy libzip owns and frees (freep = 1): it reads the data only at zip_close.
            // Nothing for an empty item: libzip takes no buffer of length 0 (it would leak).
            let copy = item.bytes.isEmpty ? nil : malloc(item.bytes.count)!
            if let copy { item.bytes.withUnsafeBytes { raw in _ = memcpy(copy, raw.baseAddress!, raw.count) } }
            guard let data = zip_source_buffer(archive, copy, UInt64(item.bytes.count), 1) else {
                free(copy)
                throw fail()
            }
            let index = zip_file_add(archive, item.name, data, czip_enc_utf8())
            guard index >= 0 else {
                zip_source_free(data)
                throw fail()
            }
            let method = item.deflate ? czip_deflate() : czip_store()
            guard zip_set_file_compression(archive, UInt64(index), method, item.deflate ? 9 : 0) == 0,
                  zip_file_set_external_attributes(archive, UInt64(index), 0, czip_opsys_unix(),
                                                   (UInt32(czip_regular()) | 0o644) << 16) == 0 else { throw fail() }
        }
        guard zip_close(archive) == 0 else { throw fail() }

        guard zip_source_open(source) == 0 else { throw ZipProblem(message: "cannot read the archive back") }
        defer { zip_source_close(source) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { zip_source_read(source, $0.baseAddress!, UInt64($0.count)) }
            guard n >= 0 else { throw ZipProblem(message: "cannot read the archive back") }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<Int(n)])
        }
        return bytes
    }
}
