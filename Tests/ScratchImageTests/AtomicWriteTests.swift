@preconcurrency import Glibc
import Foundation
import ScratchCore
import ScratchImage
import Testing

@Suite("Atomic writing")
struct AtomicWriteTests {
    @Test func replacesTheTargetWholeAndLeavesNoTemporaryFile() throws {
        let folder = ScratchFolder()
        let path = folder.file("card.png")
        let first = RGBAImage(size: PixelSize(width: 50, height: 20), filledWith: RGBA(r: 1, g: 2, b: 3))
        let second = PNGTests.sampleImage(width: 7, height: 3)
        try PNGFile.write(first, to: path)
        #expect(try PNGFile.read(path: path) == first)
        try PNGFile.write(second, to: path)
        #expect(try PNGFile.read(path: path) == second)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(try PNGFile.encode(second)))
        #expect(folder.contents == ["card.png"])
    }

    @Test func newFileHasMode0644() throws {
        let folder = ScratchFolder()
        let path = folder.file("m.png")
        try PNGFile.write(RGBAImage(size: PixelSize(width: 1, height: 1), filledWith: .white), to: path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o644)
    }

    @Test func missingFolderThrowsAndLeavesNothing() throws {
        let folder = ScratchFolder()
        let path = folder.file("no/such/folder/x.png")
        let error = #expect(throws: ImageError.self) {
            try PNGFile.write(RGBAImage(size: PixelSize(width: 2, height: 2), filledWith: .black), to: path)
        }
        #expect(error?.path == path)
        #expect(error?.problem.contains("no such file or directory") == true, "\(String(describing: error))")
        #expect(folder.contents.isEmpty)
    }

    @Test func atomicFileWritesBytesAndMode() throws {
        let folder = ScratchFolder()
        let path = folder.file("trace.txt")
        try AtomicFile.write(Array("one\n".utf8), to: path)
        try AtomicFile.write(Array("two two\n".utf8), to: path, mode: 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two two\n")
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(folder.contents == ["trace.txt"])
    }

    @Test func atomicFileRelativePathInCurrentFolder() throws {
        let folder = ScratchFolder()
        let old = FileManager.default.currentDirectoryPath
        // Only this test changes the working folder, and it uses no relative paths of others.
        #expect(FileManager.default.changeCurrentDirectoryPath(folder.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(old) }
        try AtomicFile.write([1, 2, 3], to: "plain.bin")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.file("plain.bin"))) == Data([1, 2, 3]))
        #expect(folder.contents == ["plain.bin"])
    }

    @Test func atomicFileErrorNamesThePath() {
        let error = #expect(throws: AtomicFileError.self) {
            try AtomicFile.write([1], to: "/nonexistent-folder-for-test/x.bin")
        }
        #expect(error?.path == "/nonexistent-folder-for-test/x.bin")
        #expect(error?.description.hasPrefix("/nonexistent-folder-for-test/x.bin: ") == true)
    }

    @Test func aTargetThatIsAFolderIsLeftAlone() throws {
        let folder = ScratchFolder()
        let target = folder.file("sub")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let error = #expect(throws: ImageError.self) {
            try PNGFile.write(RGBAImage(size: PixelSize(width: 1, height: 1), filledWith: .white), to: target)
        }
        #expect(error?.path == target)
        #expect(folder.contents == ["sub"])
    }

    /// A full disk, simulated with a file size limit in a child process: the write fails,
    /// the old file stays whole, and no temporary file remains.
    @Test func fullDiskKeepsTheOldFile() async {
        await #expect(processExitsWith: .success) {
            signal(SIGXFSZ, SIG_IGN)
            let folder = ScratchFolder()
            let path = folder.file("keep.bin")
            let old = [UInt8](repeating: 7, count: 1000)
            do { try AtomicFile.write(old, to: path) } catch { exit(10) }
            var limit = rlimit(rlim_cur: 4096, rlim_max: 4096)
            if setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) != 0 { exit(11) }
            do {
                try AtomicFile.write([UInt8](repeating: 9, count: 100_000), to: path)
                exit(12)
            } catch let error as AtomicFileError {
                if error.path != path { exit(13) }
            } catch {
                exit(16)
            }
            guard let back = FileManager.default.contents(atPath: path), [UInt8](back) == old else { exit(14) }
            if folder.contents != ["keep.bin"] { exit(15) }
            try? FileManager.default.removeItem(atPath: folder.path)  // exit() skips deinit
            exit(0)
        }
    }
}
