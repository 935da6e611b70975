import Foundation
import Testing
import ScratchCore
@testable import scratchcard

/// `--cover-text`: on the command line and in the configuration file; checked like a
/// text card's words, bad ones a usage error naming the option.
struct CoverTextOptionTests {
    func window(_ arguments: [String]) throws -> WindowOptions {
        guard case .window(let options) = try parseCommand(arguments) else { throw UsageError(message: "not a window command") }
        return options
    }

    @Test("--cover-text on the command line, in any script; the config file's key; the command line wins")
    func coverText() throws {
        #expect(try window([]).coverText == nil)
        #expect(try window(["--cover-text", "刮开这里"]).coverText == "刮开这里")
        #expect(try window(["--cover-text=Rub me"]).coverText == "Rub me")
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.json").path
        try #"{"cover-text": "اخدش هنا"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try window(["--config", path]).coverText == "اخدش هنا")
        #expect(try window(["--config", path, "--cover-text", "Here"]).coverText == "Here")
    }

    @Test("an empty, too long or control-character --cover-text is a usage error naming it", arguments: [
        ("", "--cover-text is empty"),
        (String(repeating: "刮", count: 201), "--cover-text has 201 characters; at most 200"),
        ("a\u{7}b", "--cover-text holds the control character U+0007"),
    ])
    func badCoverText(text: String, message: String) {
        #expect(throws: UsageError(message: message)) { try parseCommand(["--cover-text", text]) }
    }

    @Test("--help tells of --cover-text")
    func help() throws {
        guard case .help(let text) = try parseCommand(["--help"]) else { Issue.record("no help"); return }
        #expect(text.contains("--cover-text TEXT"))
    }
}
