@testable import CardRules
import Foundation
@preconcurrency import Glibc
import ScratchCore
import Testing

@Suite("Reading small files")
struct FileBytesTests {
    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("filebytes-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("whole files, empty files, the limit, folders, missing files")
    func cases() throws {
        let dir = try folder(); defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("hello".utf8).write(to: URL(fileURLWithPath: dir + "/a"))
        try Data().write(to: URL(fileURLWithPath: dir + "/empty"))
        #expect(FileBytes.read(path: dir + "/a", limit: 5) == .success(Array("hello".utf8)))
        #expect(FileBytes.read(path: dir + "/a", limit: 4) == .failure(.tooBig(5)))
        #expect(FileBytes.read(path: dir + "/empty", limit: 5) == .success([]))
        #expect(FileBytes.read(path: dir, limit: 5) == .failure(.notRegular))
        #expect(FileBytes.read(path: dir + "/missing", limit: 5) == .failure(.cannotOpen))
    }

    @Test("a FIFO named as a deck, a config or a trace is refused at once, not waited on")
    func fifoDoesNotHang() throws {
        let dir = try folder(); defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/pipe", 0o600) == 0)
        #expect(FileBytes.read(path: dir + "/pipe", limit: 100) == .failure(.notRegular))
        #expect(throws: DeckError.self) { try Deck.load(path: dir + "/pipe") }
        #expect(throws: ConfigError.self) { try ConfigFile.arguments(path: dir + "/pipe", schema: [:]) }
        #expect(throws: TraceError.self) { try Trace.load(path: dir + "/pipe") }
    }

    @Test("a file that is not a file: /proc files report size 0 and are read to the end within the limit")
    func procFile() {
        guard case .success(let bytes) = FileBytes.read(path: "/proc/self/status", limit: 1 << 20) else {
            Issue.record("cannot read /proc/self/status"); return
        }
        #expect(String(decoding: bytes, as: UTF8.self).contains("VmRSS"))
    }
}
