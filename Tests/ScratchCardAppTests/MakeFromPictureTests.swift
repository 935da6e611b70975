import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchImage
import XvfbSupport
@testable import scratchcard
import Dealing

/// `scratchcard make-from PICTURE` (the file manager's "Make a scratch card"): the card
/// file's name beside the picture, the documents folder when that folder is read-only
/// (bwrap's read-only bind: root writes anywhere else), and the window it opens.
@Suite(.serialized) struct MakeFromPictureTests {
    static let blue = RGBA(r: 20, g: 60, b: 200)

    /// Runs `make-from --no-open` to its end (`launcher`: bwrap, say) with `environment`.
    func makeFrom(_ picture: String, environment: [String: String], launcher: [String] = []) throws -> (status: Int32, out: String, err: String) {
        let app = try RunningApp(["make-from", "--no-open", picture], environment: environment, launcher: launcher)
        let status = app.wait(timeout: 30)
        return (status, app.standardOutput, app.standardError)
    }

    /// An environment of our own: HOME a fresh folder, no display.
    func privateEnvironment(home: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        environment["XDG_STATE_HOME"] = home.appendingPathComponent(".state").path
        environment["DISPLAY"] = ":9999"
        return environment
    }

    @Test func theCardFileIsNamedAfterThePictureAndNeverReplacesOne() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try App.solidPNG(Self.blue, size: PixelSize(width: 60, height: 40), in: folder, name: "My photo.png")
        let environment = privateEnvironment(home: folder)
        var written: [String] = []
        var first = Data()
        for n in 1...3 {
            let result = try makeFrom(photo, environment: environment)
            #expect(result.status == 0, "\(result.err)")
            let expected = folder.appendingPathComponent(n == 1 ? "My photo.scratchcard" : "My photo-\(n).scratchcard").path
            #expect(result.out == expected + "\n", "run \(n): \(result.out)")
            written.append(expected)
            if n == 1 { first = try Data(contentsOf: URL(fileURLWithPath: expected)) }
        }
        // The first file is as the first run wrote it, byte for byte (the entries' dates are
        // the time of writing, so the later files differ from it in those alone), and each
        // holds one card.
        #expect(try Data(contentsOf: URL(fileURLWithPath: written[0])) == first)
        #expect(try Data(contentsOf: URL(fileURLWithPath: written[1])).count == first.count)
        let info = try runToExit(["info", "--show-prizes", written[2]])
        #expect(info.status == 0 && info.out.contains("cards: 1") && info.out.contains("built-in foil"), "\(info)")
        #expect(info.out.contains("My photo.png"), "the picture is the prize: \(info.out)")
        // Not a picture: exit 2 naming it, nothing written.
        let notes = folder.appendingPathComponent("notes.png").path
        try Data("text".utf8).write(to: URL(fileURLWithPath: notes))
        let refused = try makeFrom(notes, environment: environment)
        #expect(refused.status == 2 && refused.err.contains("notes.png") && refused.out.isEmpty, "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("notes.scratchcard").path))
    }

    @Test func aPictureNameStartingWithACombiningMarkKeepsItsFolderAndStem() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let picture = folder.path + "/\u{301}photo.png"
        #expect(PictureCard.folder(for: picture, environment: ["HOME": "/nonexistent"]) == folder.path)
        #expect(fileStem(picture) == "\u{301}photo")
        #expect(fileStem("/a.b/\u{301}.png") == "\u{301}")
    }

    @Test func aReadOnlyFolderSendsTheCardToTheDocumentsFolderElseHome() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let pictures = folder.appendingPathComponent("pictures"), home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: home.appendingPathComponent("Papers"), withIntermediateDirectories: true)
        let photo = try App.solidPNG(Self.blue, size: PixelSize(width: 60, height: 40), in: pictures, name: "photo.jpg.png")
        let readOnly = ["/usr/bin/bwrap", "--bind", "/", "/", "--ro-bind", pictures.path, pictures.path]
        let environment = privateEnvironment(home: home)

        // No user-dirs.dirs: no documents folder is named, so the home folder.
        let toHome = try makeFrom(photo, environment: environment, launcher: readOnly)
        #expect(toHome.status == 0, "\(toHome.err)")
        #expect(toHome.out == home.appendingPathComponent("photo.jpg.scratchcard").path + "\n", "\(toHome.out)")

        // The user's documents folder, as user-dirs.dirs names it.
        let config = home.appendingPathComponent(".config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "XDG_DOCUMENTS_DIR=\"$HOME/Papers\"\n".write(to: config.appendingPathComponent("user-dirs.dirs"), atomically: true, encoding: .utf8)
        let toDocuments = try makeFrom(photo, environment: environment, launcher: readOnly)
        #expect(toDocuments.status == 0, "\(toDocuments.err)")
        let card = home.appendingPathComponent("Papers/photo.jpg.scratchcard").path
        #expect(toDocuments.out == card + "\n", "\(toDocuments.out)")
        #expect(FileManager.default.fileExists(atPath: card))
        #expect(try FileManager.default.contentsOfDirectory(atPath: pictures.path) == ["photo.jpg.png"])
    }

    /// user-dirs.dirs as xdg-user-dirs writes it and as both its readers (the shell that
    /// `xdg-user-dir` sources it with, and the C of `xdg-user-dir-lookup.c`) read it alike:
    /// `$HOME/...` or an absolute path in quotes, the last line that sets the name decides;
    /// a line the two would read differently names no folder.
    @Test func theDocumentsLineOfUserDirs() {
        let read = { (text: String) in UserDirectories.folder("XDG_DOCUMENTS_DIR", in: Array(text.utf8), home: "/home/ann") }
        #expect(read("# comment\nXDG_DOCUMENTS_DIR=\"$HOME/Papers\"\n") == "/home/ann/Papers")
        #expect(read("  XDG_DOCUMENTS_DIR=\"/srv/docs\"\t\n") == "/srv/docs")
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/\"") == "/home/ann")
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME\"") == "/home/ann")
        #expect(read("XDG_DOCUMENTS_DIR=\"/\"") == "/")
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/A\"\nXDG_DOCUMENTS_DIR=\"$HOME/B\"") == "/home/ann/B")
        #expect(read("XDG_DESKTOP_DIR=\"$HOME/Desktop\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIRS=\"/srv/x\"\n# XDG_DOCUMENTS_DIR=\"/srv/y\"") == nil, "another name, a comment")
        #expect(read("XDG_DOCUMENTS_DIR=\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=") == nil)
        #expect(read("") == nil)

        // As xdg-user-dirs-update writes a folder with $, ` or \ in its name (it escapes
        // those three), and \" as both readers take it.
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/Papers \\$2026 \\`q\\` \\\\x\"\n") == "/home/ann/Papers $2026 `q` \\x")
        #expect(read("XDG_DOCUMENTS_DIR=\"/srv/a \\\"b\\\"\"") == "/srv/a \"b\"")
        // A backslash before another character: the shell keeps it, C drops it.
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/a\\b\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/a\\\"") == nil, "no closing quote")
        // What the shell would expand, or run.
        #expect(read("XDG_DOCUMENTS_DIR=\"$(rm -rf ~)\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"/srv/$(id)\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/`id`\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/$USER\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"${HOME}/Docs\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOMEDIR/Docs\"") == nil)
        // Relative paths: the format has none (the shell would take them from the working folder).
        #expect(read("XDG_DOCUMENTS_DIR=\"relative\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"~/Docs\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"./Docs\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"\"") == nil)
        // `..` is a path like any other: the format allows it, and an absolute path may name any folder.
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/../shared/Docs\"") == "/home/ann/../shared/Docs")
        // Quoting: none, single quotes, text after the closing quote, blanks around `=`.
        #expect(read("XDG_DOCUMENTS_DIR=/srv/docs") == nil)
        #expect(read("XDG_DOCUMENTS_DIR='/srv/docs'") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/a\"b\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/a\"b") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"/srv/docs\"# not a comment to the shell") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"/srv/docs\"  # a comment") == "/srv/docs")
        #expect(read("XDG_DOCUMENTS_DIR = \"/srv/docs\"") == nil)
        #expect(read("XDG_DOCUMENTS_DIR= \"/srv/docs\"") == nil)
        #expect(read("export XDG_DOCUMENTS_DIR=\"/srv/docs\"") == nil)
        // The last line that sets the name decides, even when it cannot be read.
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/A\"\nXDG_DOCUMENTS_DIR=\"Docs\"\n") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/A\"\nXDG_DOCUMENTS_DIR = \"$HOME/B\"\n") == nil)
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/A\"\nXDG_MUSIC_DIR=\"$(x)\"\nXDG_DOCUMENTS_DIRX=\"\"\n") == "/home/ann/A")
        // CRLF, as a Windows editor saves it; a lone CR elsewhere is a byte of the line.
        #expect(read("# c\r\nXDG_DOCUMENTS_DIR=\"$HOME/Papers\"\r\nXDG_MUSIC_DIR=\"$HOME/M\"\r\n") == "/home/ann/Papers")
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/Papers\"\r") == "/home/ann/Papers")
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/Papers\"\r\r\n") == nil)
        // Text that is not plain ASCII: a combining mark right after the slash, Cyrillic.
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/\u{301}x\"") == "/home/ann/\u{301}x")
        #expect(read("XDG_DOCUMENTS_DIR=\"$HOME/Документы\"") == "/home/ann/Документы")
    }

    /// Bytes that are no text, NULs, and the home folder's own form.
    @Test func userDirsBytesAndHome() {
        let line = Array("XDG_DOCUMENTS_DIR=\"$HOME/Docs\"\n".utf8)
        // Latin-1 in another line does not hide the documents line; in its own it does.
        let latin1Music = Array("XDG_MUSIC_DIR=\"$HOME/M".utf8) + [0xFC] + Array("sik\"\n".utf8)
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: latin1Music + line, home: "/home/ann") == "/home/ann/Docs")
        let latin1Documents = Array("XDG_DOCUMENTS_DIR=\"$HOME/D".utf8) + [0xF6] + Array("k\"\n".utf8)
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: line + latin1Documents, home: "/home/ann") == nil)
        let nul = Array("XDG_DOCUMENTS_DIR=\"/srv/a".utf8) + [0] + Array("b\"\n".utf8)
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: nul, home: "/home/ann") == nil)
        let escapedNUL = Array("XDG_DOCUMENTS_DIR=\"/srv/a\\".utf8) + [0] + Array("b\"\n".utf8)
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: escapedNUL, home: "/home/ann") == nil)
        // One slash between the home folder and the rest; a home that is not absolute names no folder.
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: line, home: "/") == "/Docs")
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: line, home: "/home/ann/") == "/home/ann/Docs")
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: line, home: "home/ann") == nil)
        // A home whose first name starts with a combining mark: "/" and the mark are one
        // Character, the path is still absolute (the fuzz target found the mark after `$HOME/`).
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: line, home: "/\u{301}ann") == "/\u{301}ann/Docs")
        let mark = Array("XDG_DOCUMENTS_DIR=\"$HOME/\u{301}x\"".utf8)
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: mark, home: "/")?.utf8.elementsEqual("/\u{301}x".utf8) == true)
        #expect(UserDirectories.folder("XDG_DOCUMENTS_DIR", in: Array("XDG_DOCUMENTS_DIR=\"/srv/d\"".utf8), home: "") == "/srv/d")
    }

    /// The documents folder from a real user-dirs.dirs in `$XDG_CONFIG_HOME`: the one
    /// xdg-user-dirs-update wrote for a folder named with a `$` (escaped), saved with CRLF
    /// beside a Latin-1 line; a folder it names that does not exist is none.
    @Test func theDocumentsFolderFromTheUsersFile() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let papers = folder.appendingPathComponent("Papers $2026")
        try FileManager.default.createDirectory(at: papers, withIntermediateDirectories: true)
        let environment = ["HOME": folder.path, "XDG_CONFIG_HOME": config.path]
        let file = config.appendingPathComponent("user-dirs.dirs")
        let text = "# This file is written by xdg-user-dirs-update\r\nXDG_DOCUMENTS_DIR=\"$HOME/Papers \\$2026\"\r\n"
        try Data(Array("XDG_MUSIC_DIR=\"$HOME/M".utf8) + [0xFC] + Array("sik\"\r\n".utf8) + Array(text.utf8)).write(to: file)
        #expect(PictureCard.documentsFolder(environment: environment) == papers.path)
        try Data("XDG_DOCUMENTS_DIR=\"$HOME/Gone\"\n".utf8).write(to: file)
        #expect(PictureCard.documentsFolder(environment: environment) == nil)
        #expect(PictureCard.documentsFolder(environment: ["HOME": folder.path]) == nil, "no file in ~/.config")
    }

    /// The fuzz target's seeds and regressions (Fuzz/userdirs) through its checks.
    @Test func theUserDirsFuzzFilesHoldTheTargetsChecks() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/userdirs")
        var seen: [String: String?] = [:]
        for kind in ["corpus", "regressions"] {
            let dir = root.appendingPathComponent(kind)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] {
                let bytes = Array(try Data(contentsOf: dir.appendingPathComponent(name)))
                for home in ["/home/fuzz", "/"] {
                    let problem = UserDirsChecks.problem(in: bytes, home: home)
                    #expect(problem == nil, "\(kind)/\(name), home \(home): \(problem ?? "")")
                }
                seen[name] = UserDirectories.folder("XDG_DOCUMENTS_DIR", in: bytes, home: "/home/fuzz")
            }
        }
        // The seeds say what they are for.
        #expect(seen["default"] == "/home/fuzz/Documents")
        #expect(seen["escaped"] == "/home/fuzz/Papers $2026 `q` \\x")
        #expect(seen["crlf"] == "/home/fuzz/Dokumente")
        #expect(seen["relative"] == .some(nil))
    }

    @Test func theCardOpensWithThePictureAsItsPrize() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try App.solidPNG(Self.blue, size: PixelSize(width: 320, height: 200), in: folder, name: "photo.png")
        let server = try Xvfb(width: 1024, height: 768); defer { server.stop() }
        var environment = server.environment
        environment["HOME"] = folder.path
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent(".config").path
        environment["XDG_STATE_HOME"] = folder.appendingPathComponent(".state").path
        let app = try RunningApp(["make-from", photo], environment: environment)
        let window = try server.scratchcardWindow(timeout: 60)
        let foil = try server.waitForPixels(window: window, timeout: 30) { $0.width > 100 && $0[$0.width / 2, $0.height / 2].a == 255 }
        let (w, h) = (foil.width, foil.height)
        #expect(foil[w / 2, h / 2] != Self.blue, "the built-in foil covers the prize")
        try server.drag(window: window, from: (w / 4, h / 2), through: [(w / 2 - 20, h / 2), (w / 2, h / 2), (w / 2 + 20, h / 2), (3 * w / 4, h / 2)])
        let scratched = try server.waitForPixels(window: window, timeout: 20) { $0[w / 2, h / 2] == Self.blue }
        #expect(scratched[w / 2, h / 2] == Self.blue, "the photo under the scratch")
        #expect(app.standardOutput == folder.appendingPathComponent("photo.scratchcard").path + "\n", "\(app.standardOutput)")
        try server.press("q", in: window)
        #expect(app.wait() == 0, "\(app.standardError)")
    }

    /// The entry as installed (its Exec pointed at this build's binary), launched by
    /// gtk-launch with a picture as "Open with" does: the launch completes, the card file
    /// is beside the picture, and the window shows the picture under the foil.
    @Test func gtkLaunchOfTheMakeEntryOpensTheNewCard() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try App.solidPNG(Self.blue, size: PixelSize(width: 320, height: 200), in: folder, name: "holiday.png")
        let server = try Xvfb(width: 1024, height: 768); defer { server.stop() }
        let applications = folder.appendingPathComponent("data/applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets")
        let installed = try String(contentsOf: assets.appendingPathComponent("scratchcard-make.desktop"), encoding: .utf8)
        #expect(installed.contains("\nExec=scratchcard make-from %f\n"))
        let entry = installed.replacingOccurrences(of: "\nExec=scratchcard ", with: "\nExec=\(App.executable) ")
        try entry.write(to: applications.appendingPathComponent("scratchcard-make-test.desktop"), atomically: true, encoding: .utf8)
        var environment = server.environment
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
        environment["HOME"] = folder.path
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent(".config").path
        environment["XDG_STATE_HOME"] = folder.appendingPathComponent(".state").path
        environment["NO_AT_BRIDGE"] = "1"
        let listener = try StartupListener(server: server)
        let launcher = try ClientProcess("gtk-launch", ["scratchcard-make-test", photo], environment: environment)
        let messages = listener.messages(timeout: 30) { $0.contains { $0.hasPrefix("remove:") } }
        #expect(messages.contains { $0.hasPrefix("remove:") }, "\(messages); gtk-launch: \(launcher.errorText)")
        let window = try server.scratchcardWindow(timeout: 60)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("holiday.scratchcard").path))
        let foil = try server.waitForPixels(window: window, timeout: 30) { $0.width > 100 }
        let (w, h) = (foil.width, foil.height)
        #expect(foil[w / 2, h / 2] != Self.blue, "the built-in foil covers the prize")
        try server.drag(window: window, from: (w / 4, h / 2), through: [(w / 2 - 20, h / 2), (w / 2, h / 2), (w / 2 + 20, h / 2), (3 * w / 4, h / 2)])
        let scratched = try server.waitForPixels(window: window, timeout: 20) { $0[w / 2, h / 2] == Self.blue }
        #expect(scratched[w / 2, h / 2] == Self.blue, "the picture under the scratch")
        try server.press("q", in: window)
        _ = waitUntil(timeout: 10) { (try? server.run("xdotool", ["search", "--classname", "scratchcard"])) == nil }
    }
}
