import Foundation
import Testing
import ScratchCore
@testable import scratchcard

/// The command line and the configuration file, read without running anything.
struct OptionsTests {
    func window(_ arguments: [String], environment: [String: String] = [:]) throws -> WindowOptions {
        guard case .window(let options) = try parseCommand(arguments, environment: environment) else {
            throw UsageError(message: "not a window command")
        }
        return options
    }

    func writeConfig(_ json: String) throws -> (folder: URL, path: String) {
        let folder = try App.scratchFolder()
        let path = folder.appendingPathComponent("config.json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return (folder, path)
    }

    @Test func defaultsAndValues() throws {
        let plain = try window([])
        #expect(plain.brushPoints == 20 && plain.revealAtPercent == 60 && plain.useSharedMemory && !plain.events)
        let set = try window(["--brush=12.5", "--size", "800x600", "--no-shm", "--reveal-at", "100", "--events",
                              "--deck", "cards", "--snapshot-dir", "/tmp"])
        #expect(set.brushPoints == 12.5 && set.size == PixelSize(width: 800, height: 600) && !set.useSharedMemory)
        #expect(set.revealAtPercent == 100 && set.events && set.deck == "cards" && set.snapshotDirectory == "/tmp")
    }

    /// `scratchcard FILE`: one card file, opened as a deck is (a stray word used to be an
    /// error; it is now a card file, refused when it is not one: CardFileAppTests).
    @Test func cardFileArgument() throws {
        let one = try window(["gift.scratchcard", "--scale", "2"])
        #expect(one.deck == "gift.scratchcard" && one.openCardFile && one.scale == 2)
        let dashed = try window(["--", "-odd name.bin"])
        #expect(dashed.deck == "-odd name.bin" && dashed.openCardFile)
        #expect(throws: UsageError.self) { try parseCommand(["a.scratchcard", "b.scratchcard"]) }
        #expect(throws: UsageError.self) { try parseCommand(["-x.scratchcard"]) }
    }

    @Test func makeFromAPicture() throws {
        #expect(try parseCommand(["make-from", "photo.jpg"]) == .cardFile(.makeFrom(picture: "photo.jpg", open: true)))
        #expect(try parseCommand(["make-from", "--no-open", "--", "-odd.png"]) == .cardFile(.makeFrom(picture: "-odd.png", open: false)))
        for bad in [["make-from"], ["make-from", "a.png", "b.png"], ["make-from", "--out", "x", "a.png"], ["make-from", ""]] {
            #expect(throws: UsageError.self, "\(bad)") { try parseCommand(bad) }
        }
        guard case .help(let text) = try parseCommand(["make-from", "--help"]) else { Issue.record("no help"); return }
        #expect(text.contains("--no-open"))
    }

    @Test("out-of-range and malformed values name the option", arguments: [
        ["--reveal-at", "0"], ["--reveal-at", "101"], ["--brush", "-5"], ["--brush", "1e9"], ["--size", "0x0"],
        ["--size", "16385x2"], ["--scale", "inf"], ["--deck"], ["--bogus"], ["--", "a.scratchcard", "b.scratchcard"],
        ["--max-fps", "0"], ["--max-fps", "0.5"], ["--max-fps", "1001"], ["--max-fps", "60Hz"], ["--max-fps", "nan"],
        ["--max-fps", "-60"], ["--max-fps", ""], ["--max-fps"],
    ])
    func badValues(arguments: [String]) {
        do {
            _ = try parseCommand(arguments)
            Issue.record("accepted \(arguments)")
        } catch {
            #expect(error.message.contains(arguments[0]), "\(error.message)")
        }
    }

    @Test("--max-fps: a number from 1 to 1000, from the command line or the file; unset by default")
    func maxFPS() throws {
        #expect(try window([]).maxFPS == nil)
        #expect(try window(["--max-fps", "125"]).maxFPS == 125)
        #expect(try window(["--max-fps=59.94"]).maxFPS == 59.94)
        #expect(try window(["--max-fps", "1"]).maxFPS == 1)
        #expect(try window(["--max-fps", "1000"]).maxFPS == 1000)
        let (folder, path) = try writeConfig(#"{"max-fps": 30}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try window(["--config", path]).maxFPS == 30)
        #expect(try window(["--config", path, "--max-fps", "90"]).maxFPS == 90)
    }

    @Test("a configuration file holds options; the command line wins")
    func configFile() throws {
        let (folder, path) = try writeConfig(#"{"brush": 33, "no-shm": true, "title": "From file", "deck": "cards"}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let options = try window(["--config", path, "--title", "From argv"])
        #expect(options.brushPoints == 33 && !options.useSharedMemory && options.title == "From argv")
        #expect(options.deck == folder.appendingPathComponent("cards").path, "paths resolve against the file's folder")
        #expect(options.config == path)
        // The default path, through XDG_CONFIG_HOME.
        let xdg = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: xdg) }
        try FileManager.default.createDirectory(at: xdg.appendingPathComponent("scratchcard"), withIntermediateDirectories: true)
        try #"{"reveal-at": 80}"#.write(toFile: xdg.appendingPathComponent("scratchcard/config.json").path, atomically: true, encoding: .utf8)
        #expect(try window([], environment: ["XDG_CONFIG_HOME": xdg.path]).revealAtPercent == 80)
        #expect(try window(["--reveal-at", "70"], environment: ["XDG_CONFIG_HOME": xdg.path]).revealAtPercent == 70)
    }

    @Test("configuration errors name the file and the key", arguments: [
        (#"{"brush": "big"}"#, "brush"),
        (#"{"colour": "red"}"#, "colour"),
        (#"{"no-shm": 1}"#, "no-shm"),
        (#"{"reveal-at": 250}"#, "reveal-at"),
        (#"{"brush": -1}"#, "brush"),
        (#"[1, 2]"#, "config.json"),
        (#"{"brush": 3"#, "config.json"),
        (#"{"max-fps": 5000}"#, "max-fps"),
        (#"{"max-fps": "fast"}"#, "max-fps"),
    ])
    func configErrors(json: String, key: String) throws {
        let (folder, path) = try writeConfig(json)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try parseCommand(["--config", path])
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.message.contains("config.json"), "\(error.message)")
            #expect(error.message.contains(key), "\(error.message)")
        }
    }

    @Test func everyConfigKeyIsAnOption() throws {
        for (key, kind) in configSchema {
            var tokens = ["--\(key)"]
            switch kind {
            case .flag: break
            case .number: tokens.append("5")
            case .string: tokens.append(key == "size" ? "10x10" : ["sound", "celebrate"].contains(key) ? "on" : "x")
            case .path: tokens.append("/tmp/x")
            }
            #expect(throws: Never.self, "\(key)") { try parseWindow(tokens[...]) }
        }
    }
}

/// The store's options and commands, read without running anything.
struct StoreOptionsTests {
    @Test func storeOptions() throws {
        guard case .window(let options) = try parseCommand(["--kiosk", "--store", "/s/k.db", "--sold-out", "/s/out.png"]) else {
            Issue.record("not a window command"); return
        }
        #expect(options.store == "/s/k.db" && options.soldOut == "/s/out.png")
        #expect(configSchema["store"] == .path && configSchema["sold-out"] == .path)
    }

    @Test func commands() throws {
        let env = ["XDG_STATE_HOME": "/state"]
        #expect(try parseCommand(["stock"], environment: env) == .stock(StockOptions(store: "/state/scratchcard/kiosk.db")))
        #expect(try parseCommand(["stock", "--store", "a.db", "--deck", "d", "--json"], environment: env)
                == .stock(StockOptions(store: "a.db", deck: "d", json: true)))
        guard case .simulate(let simulate) = try parseCommand(["simulate", "--deck", "d", "--count", "1000", "--seed", "42", "--json"],
                                                            environment: env) else { Issue.record("not simulate"); return }
        #expect(simulate.deck == "d" && simulate.count == 1000 && simulate.seed == 42 && simulate.json && simulate.store == nil)
        for (arguments, message) in [(["simulate", "--count", "3"], "simulate needs --deck PATH"),
                                     (["simulate", "--deck", "d"], "simulate needs --count N"),
                                     (["simulate", "--deck", "d", "--count", "0"], "--count takes a whole number from 1 to 10000000, not '0'"),
                                     (["simulate", "--deck", "d", "--count", "2", "--seed", "-1"], "--seed takes a whole number"),
                                     (["stock", "--bogus"], "stock: unknown option '--bogus'")] {
            #expect(throws: UsageError.self) { try parseCommand(arguments, environment: env) }
            do { _ = try parseCommand(arguments, environment: env) } catch { #expect(error.message.hasPrefix(message), "\(error.message)") }
        }
        if case .help(let text) = try parseCommand(["stock", "--help"]) { #expect(text.contains("usage: scratchcard stock")) }
        if case .help(let text) = try parseCommand(["simulate", "-h"]) { #expect(text.contains("usage: scratchcard simulate")) }
        if case .help(let text) = try parseCommand(["--help"]) { #expect(text.contains("--store PATH") && text.contains("SIGHUP")) }
    }
}
