@preconcurrency import Glibc

/// Whole small files read with plain POSIX calls: `open` (non-blocking, so a FIFO
/// cannot hang us), `fstat` on the open file (no window between the check and the
/// read), a size check before anything is allocated, then `read` to the end.
///
/// Replaces `FileManager.contents(atPath:)` for decks, configuration files and traces:
/// Foundation (6.3) leaks its 4 KiB read buffer on every empty file, which
/// LeakSanitizer reports (`make test-asan`), and it stats and reads separately.
///
/// `package`: the card's rules (CardRules) read their decks and configuration through it.
///
///     switch FileBytes.read(path: "deck.json", limit: 4 << 20) {
///     case .success(let bytes): ...
///     case .failure(.tooBig(let size)): ...
///     }
package enum FileBytes {
    package enum Problem: Error, Equatable {
        /// Missing, or not accessible.
        case cannotOpen
        /// A folder, a FIFO, a device...
        case notRegular
        /// The file has this many bytes, more than the limit (or grew past it while read).
        case tooBig(Int)
        /// A read error.
        case cannotRead
    }

    package static func read(path: String, limit: Int) -> Result<[UInt8], Problem> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(.cannotOpen) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.cannotRead) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notRegular) }
        let size = Int(info.st_size)
        guard size <= limit else { return .failure(.tooBig(size)) }
        // One byte more than fstat said, to notice a file that grows past the limit.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count <= limit else { return .failure(.tooBig(bytes.count)) }
                bytes += [UInt8](repeating: 0, count: Swift.min(Swift.max(bytes.count, 4096), limit + 1 - bytes.count))
            }
            let n = bytes.withUnsafeMutableBytes { raw in
                Glibc.read(fd, raw.baseAddress! + filled, raw.count - filled)
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failure(.cannotRead)
            }
            if n == 0 { break }
            filled += n
        }
        guard filled <= limit else { return .failure(.tooBig(filled)) }
        bytes.removeLast(bytes.count - filled)
        return .success(bytes)
    }
}
