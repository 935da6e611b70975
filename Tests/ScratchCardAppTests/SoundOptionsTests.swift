import Foundation
import Testing
@testable import scratchcard

/// --sound, --volume and --celebrate, on the command line and in the configuration file.
struct SoundOptionsTests {
    func window(_ arguments: [String]) throws -> WindowOptions {
        guard case .window(let options) = try parseCommand(arguments, environment: [:]) else {
            throw UsageError(message: "not a window command")
        }
        return options
    }

    @Test("defaults on, 100%; the options and the config file set them; the command line wins")
    func values() throws {
        let plain = try window([])
        #expect(plain.sound && plain.volumePercent == 100 && plain.celebrate)
        let set = try window(["--sound", "off", "--volume=35.5", "--celebrate", "off"])
        #expect(!set.sound && set.volumePercent == 35.5 && !set.celebrate)
        #expect(try window(["--volume", "0"]).volumePercent == 0)

        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.json").path
        try #"{"sound": "off", "volume": 40, "celebrate": "off"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let fromFile = try window(["--config", path])
        #expect(!fromFile.sound && fromFile.volumePercent == 40 && !fromFile.celebrate)
        let overridden = try window(["--config", path, "--sound", "on", "--volume", "90"])
        #expect(overridden.sound && overridden.volumePercent == 90)
    }

    @Test("bad values name the option (or the file and key)", arguments: [
        (["--sound", "loud"], "--sound takes on or off"),
        (["--sound"], "--sound needs a value"),
        (["--volume", "101"], "--volume takes a percentage from 0 to 100"),
        (["--volume", "-1"], "--volume takes a percentage"),
        (["--volume", "nan"], "--volume takes a percentage"),
        (["--celebrate", "yes"], "--celebrate takes on or off"),
    ])
    func badValues(arguments: [String], message: String) {
        do {
            _ = try window(arguments)
            Issue.record("accepted \(arguments)")
        } catch let error as UsageError {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        } catch {
            Issue.record(error)
        }
    }
}
