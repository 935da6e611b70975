@testable import CardRules
import Foundation
import ScratchCore
import Testing

/// The window's options as the executable would describe them.
let windowSchema: [String: ConfigValueKind] = [
    "brush": .number, "scale": .number, "reveal-at": .number,
    "no-shm": .flag, "stats": .flag, "verbose": .flag,
    "title": .string, "size": .string, "display": .string,
    "cover": .path, "prize": .path, "deck": .path, "record": .path,
]

func configError(_ body: () throws(ConfigError) -> [String]) -> ConfigError? {
    do { _ = try body(); return nil } catch { return error }
}

struct ConfigFileTests {
    @Test("every kind becomes tokens, keys sorted, paths resolved against the file's folder, false flags omitted")
    func tokens() throws {
        let tmp = try TemporaryFolder()
        let file = try tmp.write("conf/config.json", """
            {"brush": 24, "scale": 1.5, "no-shm": true, "title": "Win! \\"big\\" --prize", "cover": "foil.png",
             "deck": "cards/", "reveal-at": 60, "size": "800x600", "stats": false, "record": "/var/log/g.trace",
             "prize": "../p.png"}
            """)
        let tokens = try ConfigFile.arguments(path: file, schema: windowSchema)
        let folder = tmp.path + "/conf"
        #expect(tokens == [
            "--brush", "24",
            "--cover", folder + "/foil.png",
            "--deck", folder + "/cards/",
            "--no-shm",
            "--prize", folder + "/../p.png",
            "--record", "/var/log/g.trace",
            "--reveal-at", "60",
            "--scale", "1.5",
            "--size", "800x600",
            "--title", #"Win! "big" --prize"#,
        ])
    }

    @Test("numbers come out as plain decimals that read back exactly", arguments: [
        ("24", "24"), ("-3", "-3"), ("0", "0"), ("-0.0", "0"), ("1.5", "1.5"), ("0.1", "0.1"),
        ("1e-7", "0.0000001"), ("1.25e-10", "0.000000000125"), ("2.5E3", "2500"), ("1e20", "100000000000000000000"),
        ("123456789012345.5", "123456789012345.5"), ("1.7976931348623157e308", "17976931348623157" + String(repeating: "0", count: 292)),
    ])
    func numbers(_ json: String, _ expected: String) throws {
        let tmp = try TemporaryFolder()
        let file = try tmp.write("config.json", #"{"brush": \#(json)}"#)
        let tokens = try ConfigFile.arguments(path: file, schema: windowSchema)
        #expect(tokens == ["--brush", expected])
        #expect(!tokens[1].contains("e") && !tokens[1].contains("E"))
        #expect(Double(tokens[1]) == Double(json))
    }

    static let broken: [(json: String, key: String?, message: String)] = [
        (#"{"brush": "big"}"#, "brush", "expected a number, not a string"),
        (#"{"brush": true}"#, "brush", "expected a number, not true or false"),
        (#"{"no-shm": 1}"#, "no-shm", "expected true or false, not a number"),
        (#"{"no-shm": "yes"}"#, "no-shm", "expected true or false, not a string"),
        (#"{"title": 5}"#, "title", "expected a string, not a number"),
        (#"{"cover": null}"#, "cover", "expected a string (a file name), not null"),
        (#"{"cover": ""}"#, "cover", "expected a file name, not an empty string"),
        (#"{"brush": null}"#, "brush", "expected a number, not null"),
        (#"{"size": {"width": 800, "height": 600}}"#, "size", "expected a string, not an object"),
        (#"{"brush": [24]}"#, "brush", "expected a number, not an array"),
        (#"{"stats": true, "colour": "red"}"#, "colour",
         "unknown key (known: brush, cover, deck, display, no-shm, prize, record, reveal-at, scale, size, stats, title, verbose)"),
        (#"{"--brush": 3}"#, "--brush",
         "unknown key (known: brush, cover, deck, display, no-shm, prize, record, reveal-at, scale, size, stats, title, verbose)"),
        (#"{"brush": 24"#, nil, "not valid JSON"),
        (#"brush = 24"#, nil, "not valid JSON"),
        ("", nil, "not valid JSON"),
        (#"["--brush", "24"]"#, nil, "a configuration file is a JSON object, not an array"),
        (#""brush""#, nil, "a configuration file is a JSON object, not a string"),
        ("null", nil, "a configuration file is a JSON object, not null"),
    ]

    @Test("each problem names the file and the key", arguments: broken.indices)
    func errors(_ index: Int) throws {
        let (json, key, message) = Self.broken[index]
        let tmp = try TemporaryFolder()
        let file = try tmp.write("config.json", json)
        let error = configError { () throws(ConfigError) in try ConfigFile.arguments(path: file, schema: windowSchema) }
        #expect(error == ConfigError(path: file, key: key, message: message))
        #expect(error?.description == ([file] + (key.map { [$0] } ?? []) + [message]).joined(separator: ": "))
    }

    @Test("the example message reads as documented")
    func exampleMessage() {
        #expect(ConfigError(path: "config.json", key: "brush", message: "expected a number, not a string").description
                == "config.json: brush: expected a number, not a string")
    }

    @Test("an empty object gives no tokens; a missing file, a folder and a huge file are errors")
    func files() throws {
        let tmp = try TemporaryFolder()
        #expect(try ConfigFile.arguments(path: tmp.write("empty.json", "{ }\n"), schema: windowSchema) == [])

        let missing = configError { () throws(ConfigError) in try ConfigFile.arguments(path: tmp.path + "/nope.json", schema: windowSchema) }
        #expect(missing == ConfigError(path: tmp.path + "/nope.json", key: nil, message: "cannot read the file (missing or not accessible)"))

        let folder = configError { () throws(ConfigError) in try ConfigFile.arguments(path: tmp.path, schema: windowSchema) }
        #expect(folder == ConfigError(path: tmp.path, key: nil, message: "not a regular file"))

        let text = "{}" + String(repeating: " ", count: ConfigFile.maximumFileBytes)
        let huge = try tmp.write("huge.json", text)
        let big = configError { () throws(ConfigError) in try ConfigFile.arguments(path: huge, schema: windowSchema) }
        #expect(big?.message == "the file is \(text.utf8.count) bytes; a configuration file may have at most \(1 << 20)")
    }

    @Test("the default path: XDG_CONFIG_HOME, else HOME/.config, only when the file exists")
    func defaultPath() throws {
        let tmp = try TemporaryFolder()
        let xdg = tmp.path + "/xdg", home = tmp.path + "/home"
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": xdg, "HOME": home]) == nil)
        #expect(ConfigFile.defaultPath(environment: [:]) == nil)

        try tmp.write("home/.config/scratchcard/config.json", "{}")
        #expect(ConfigFile.defaultPath(environment: ["HOME": home]) == home + "/.config/scratchcard/config.json")
        #expect(ConfigFile.defaultPath(environment: ["HOME": home + "/"]) == home + "/.config/scratchcard/config.json")
        // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "rel", "HOME": home]) == home + "/.config/scratchcard/config.json")
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "", "HOME": home]) == home + "/.config/scratchcard/config.json")

        try tmp.write("xdg/scratchcard/config.json", "{}")
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": xdg, "HOME": home]) == xdg + "/scratchcard/config.json")
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": xdg]) == xdg + "/scratchcard/config.json")
    }
}
