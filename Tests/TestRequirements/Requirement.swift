// What a test needs of the machine (root, a device, a tool, a user), and how a missing
// need is said: one rule for every test that can only run with one. A need is checked
// as `String?`: nil when met, else the sentence a skipped test gives as its reason,
// naming what is missing and where it comes from. Tests declare their needs with
// `.requires(...)` (TestRequirementTrait); scripts/run-tests.py lists each skipped test
// with that sentence, and under CI=true fails the run, since `make deps` installs
// everything the suite needs and nothing should skip there.
//
// No swift-testing here: the servers' support modules (XvfbSupport, PostgresSupport)
// say what they need with these, and the bench tools built on them must not link the
// test library.
@preconcurrency import Glibc

public enum Requirement {
    /// Root, for `purpose` ("start Xorg", "mount a tmpfs").
    public static func root(to purpose: String) -> String? {
        getuid() == 0 ? nil : "needs root to \(purpose) (this run is uid \(getuid()))"
    }

    /// An executable file, from a Debian package `make deps` installs.
    public static func executable(_ path: String, from package: String) -> String? {
        access(path, X_OK) == 0 ? nil : "needs \(path) (Debian's \(package), which make deps installs)"
    }

    /// Any file (a driver, a plug-in), from a Debian package `make deps` installs.
    public static func file(_ path: String, from package: String) -> String? {
        access(path, F_OK) == 0 ? nil : "needs \(path) (Debian's \(package), which make deps installs)"
    }

    /// A device node this process can read and write, for `purpose`.
    public static func device(_ path: String, to purpose: String) -> String? {
        access(path, R_OK | W_OK) == 0 ? nil : "needs the device \(path), readable and writable, to \(purpose)"
    }

    /// A user account, and who makes it.
    public static func user(_ name: String, madeBy maker: String) -> String? {
        getpwnam(name) != nil ? nil : "needs the user \(name) (\(maker) makes it)"
    }

    /// The first need of `needs` not met (in their order), or nil when all are.
    public static func first(_ needs: String?...) -> String? {
        needs.lazy.compactMap { $0 }.first
    }

    /// The QR reader and the PDF rasteriser the claim tests read codes and tickets back with.
    public static var zbarimg: String? { executable("/usr/bin/zbarimg", from: "zbar-tools") }
    public static var pdftoppm: String? { executable("/usr/bin/pdftoppm", from: "poppler-utils") }
}
