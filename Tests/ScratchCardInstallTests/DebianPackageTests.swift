import Foundation
@preconcurrency import Glibc
import Testing
import TestRequirementTrait
import XvfbSupport

/// The .deb `make test` made (make deb), installed into this very system with apt-get,
/// run from its menu entry's command with the toolchain out of reach, and purged.
@Suite("The Debian package", .serialized)
struct DebianPackageTests {
    @Test func lintianReportsNoErrorsOrWarnings() throws {
        let deb = try Checkout.deb()
        let result = try run(try #require(Xvfb.find("lintian")), ["--fail-on", "error,warning", deb], timeout: 300)
        let tags = result.out.split(separator: "\n").filter { $0.hasPrefix("E:") || $0.hasPrefix("W:") }
        #expect(result.status == 0 && tags.isEmpty, "lintian: \(tags.joined(separator: "\n")) \(result.err)")
    }

    @Test(.requires(Requirement.first(Requirement.root(to: "install the .deb with apt-get"), HiddenFolders.unavailable)))
    func debInstallsRunsFromTheMenuAndPurgesCleanly() throws {
        let deb = try Checkout.deb()
        var environment = ProcessInfo.processInfo.environment
        environment["DEBIAN_FRONTEND"] = "noninteractive"
        let apt = try #require(Xvfb.find("apt-get")), dpkg = try #require(Xvfb.find("dpkg"))
        let aptOptions = ["-y", "-q", "-o", "DPkg::Lock::Timeout=120"]
        // A package left by an interrupted run would spoil the "before" listing.
        if try run(dpkg, ["-s", "scratchcard"]).status == 0 {
            try run(apt, aptOptions + ["purge", "scratchcard"], environment: environment, timeout: 300)
        }

        let packaged = try packagedPaths(deb)
        #expect(packaged.contains("/usr/bin/scratchcard"))
        #expect(!packaged.contains { $0.hasPrefix("/usr/share/scratchcard") }, "the built-in card is drawn: no data files")
        let watched = ["/usr/bin", "/usr/share/scratchcard", "/usr/share/applications", "/usr/share/icons/hicolor",
                       "/usr/share/man/man1", "/usr/share/doc/scratchcard", "/etc", "/usr/share/mime", "/usr/share/thumbnailers"]
        let before = listing(watched)

        let installed = try run(apt, aptOptions + ["install", deb], environment: environment, timeout: 300)
        #expect(installed.status == 0, "apt-get install: \(installed.out) \(installed.err)")
        defer { _ = try? run(apt, aptOptions + ["purge", "scratchcard"], environment: environment, timeout: 300) }
        #expect(try run(dpkg, ["-s", "scratchcard"]).out.contains("Status: install ok installed"))
        for path in packaged { #expect(FileManager.default.fileExists(atPath: path), "\(path) not installed") }
        // The card file's type: the package ships only the shared-mime-info package; Debian's
        // trigger built the database entry.
        #expect(packaged.contains("/usr/share/mime/packages/scratchcard.xml") && !packaged.contains { $0.hasPrefix("/usr/share/mime/application") })
        #expect(FileManager.default.fileExists(atPath: "/usr/share/mime/application/x-scratchcard.xml"), "shared-mime-info's trigger did not run")

        // The menu entry's command, found on the PATH as a desktop would, with the Swift
        // toolchain and the checkout's build out of reach.
        let entry = try DesktopEntry(path: "/usr/share/applications/scratchcard.desktop")
        let command = try #require(entry["Desktop Entry", "Exec"])
        let program = try #require(Xvfb.find(command.split(separator: " ").first.map(String.init) ?? ""))
        #expect(program == "/usr/bin/scratchcard")
        let toolchain = try #require(Checkout.toolchain)
        let namespace = try HiddenFolders([toolchain, Checkout.root + "/.build"])
        defer { namespace.stop() }
        #expect(try namespace.run("/bin/ls", ["-A", toolchain]).out.isEmpty)
        try checkBuiltInCardShowsAndScratches(binary: program, in: namespace)
        namespace.stop()

        let purged = try run(apt, aptOptions + ["purge", "scratchcard"], environment: environment, timeout: 300)
        #expect(purged.status == 0, "apt-get purge: \(purged.err)")
        #expect(try run(dpkg, ["-s", "scratchcard"]).status != 0, "dpkg still knows the package")
        for path in packaged where !before.contains(path) {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) left behind")
        }
        // Nothing of it anywhere it could have put something: no path naming scratchcard
        // that was not there before (only those: other programs on this shared machine
        // may install packages meanwhile). The caches the triggers rewrite must not name it.
        let ours = { (paths: Set<String>) in paths.filter { $0.lowercased().contains("scratchcard") } }
        let after = listing(watched)
        let leftBehind = ours(after).subtracting(before).sorted(), gone = ours(before).subtracting(after).sorted()
        #expect(leftBehind.isEmpty && gone.isEmpty, "left behind: \(leftBehind), gone: \(gone)")
        #expect(!ours(before).contains("/usr/bin/scratchcard"), "the listing before the install already had it")
        if let mime = try? String(contentsOfFile: "/usr/share/applications/mimeinfo.cache", encoding: .utf8) {
            #expect(!mime.contains("scratchcard"), "the desktop database still names scratchcard")
        }
    }

    /// The files (not folders) the package holds, as absolute paths.
    private func packagedPaths(_ deb: String) throws -> Set<String> {
        let listing = try run(try #require(Xvfb.find("dpkg-deb")), ["-c", deb])
        return Set(listing.out.split(separator: "\n").compactMap { line -> String? in
            guard line.first != "d", let path = line.split(separator: " ").last, path.hasPrefix("./") else { return nil }
            return String(path.dropFirst())
        })
    }

    /// Every path under the folders (that exist).
    private func listing(_ folders: [String]) -> Set<String> {
        var paths: Set<String> = []
        for folder in folders {
            guard let walker = FileManager.default.enumerator(atPath: folder) else { continue }
            while let path = walker.nextObject() as? String { paths.insert(folder + "/" + path) }
        }
        return paths
    }
}
