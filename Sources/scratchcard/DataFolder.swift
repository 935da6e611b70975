@preconcurrency import Glibc
import ScratchAssets
import ScratchImage

/// The folder of the program's own data (today the built-in card's images), found from
/// where the binary itself is, never from the build's path:
///
/// - installed: `BINDIR/../share/scratchcard` (`/usr/bin/scratchcard` reads
///   `/usr/share/scratchcard`; `make install PREFIX=...` keeps the two side by side);
/// - a development build: SwiftPM's resource bundle of `ScratchAssets`, which the build
///   puts beside the binary (`.build/debug/ScratchCard_ScratchAssets.resources`).
///
/// SwiftPM's own accessor (`Bundle.module`) is not used: when its bundle is missing it
/// traps, and its fallback is the absolute path of the build.
struct DataFolder: Sendable {
    /// The folder's path, without a trailing slash.
    let path: String

    /// The folder that goes with this binary (looked up once).
    static let current: Result<DataFolder, DataFolderError> = locate(executable: executablePath())

    /// The folders tried for the binary at `executable`, in order.
    static func candidates(executable: String) -> [String] {
        let binFolder = parentFolder(of: executable)
        return [parentFolder(of: binFolder) + "/share/scratchcard",
                binFolder + "/" + ScratchAssets.bundleName]
    }

    /// The first candidate that is a folder.
    static func locate(executable: String) -> Result<DataFolder, DataFolderError> {
        let tried = candidates(executable: executable)
        guard let found = tried.first(where: isFolder) else {
            return .failure(DataFolderError(executable: executable, lookedIn: tried, missingFile: nil))
        }
        return .success(DataFolder(path: found))
    }

    /// The path of `name` inside the folder, once it is known to be a readable file.
    func file(_ name: String) throws(DataFolderError) -> String {
        let full = path + "/" + name
        guard access(full, R_OK) == 0, !DataFolder.isFolder(full) else {
            throw DataFolderError(executable: DataFolder.executablePath(), lookedIn: [path], missingFile: name)
        }
        return full
    }

    /// Whether `file` is a data folder this binary looks in, or lies inside one (its
    /// problems are the installation's, not the user's input).
    static func holds(_ file: String) -> Bool {
        candidates(executable: executablePath()).contains { file == $0 || file.hasPrefix($0 + "/") }
    }

    /// This process's binary, symbolic links resolved (a link in /usr/local/bin to a
    /// tree elsewhere finds that tree's data).
    static func executablePath() -> String {
        guard let resolved = realpath("/proc/self/exe", nil) else { return CommandLine.arguments[0] }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The program's data folder, or a file in it, is missing: the installation is broken.
struct DataFolderError: Error, CustomStringConvertible, Equatable, Sendable {
    let executable: String
    let lookedIn: [String]
    /// The file missing from a folder that exists; nil: no folder at all.
    let missingFile: String?

    /// What was looked for: the missing file's path, or the first folder tried.
    var wanted: String { lookedIn[0] + (missingFile.map { "/" + $0 } ?? "") }

    /// What is wrong with `wanted`, and what to do.
    var problem: String {
        if missingFile != nil { return "missing: the program's data is damaged (reinstall scratchcard)" }
        let others = lookedIn.dropFirst().joined(separator: " and ")
        return "the program's data folder is missing (looked there" + (others.isEmpty ? "" : " and in \(others)")
            + ", for \(executable)); reinstall scratchcard, or run the binary where `make install` put it"
    }

    var description: String { "\(wanted): \(problem)" }

    /// The same, as the image that could not be read.
    var imageError: ImageError { ImageError(path: wanted, problem: problem) }
}

extension ImageError {
    /// 1 when the image is the installation's own (a damaged installation, like a
    /// missing display, is not the user's input), else 2 (bad input).
    var exitCode: Int32 { DataFolder.holds(path) ? 1 : 2 }
}
