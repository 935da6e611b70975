// libFuzzer target: the user's user-dirs.dirs as `scratchcard make-from` reads it for the
// documents folder (UserDirectories.folder, Sources/scratchcard/Desktop/UserDirectories.swift,
// compiled alone: pure Swift). Built by scripts/fuzz.sh userdirs; see FUZZING.md. The
// checks, in Tests/ScratchCardAppTests/UserDirsChecks.swift (compiled beside this file,
// and replayed by the suite): no crash or hang; a folder given is absolute, without a NUL,
// UTF-8 from the file; it reads back the same written as xdg-user-dirs-update writes; a
// comment line before, a newline after, or the file repeated to the program's 64 KiB
// limit changes nothing (that copy is where a reader slower than linear would time out).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUserDirs(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data!, count: size))
    // The checks of the whole file (the 64 KiB copy and all) once, with the first home:
    // they are most of the work of a run, and do not depend on the home.
    for (home, wholeFile) in [("/home/fuzz", true), ("/", false)] {
        if let problem = UserDirsChecks.problem(in: bytes, home: home, wholeFile: wholeFile) {
            fatalError("home \(home): \(problem)")
        }
    }
    return 0
}
