import Foundation
@preconcurrency import Glibc
import ScratchCore
import ScratchImage
import Testing
import XvfbSupport

@Suite("Menu entries, man page and icons", .serialized)
struct InstalledFilesTests {
    @Test func desktopEntriesAreValidAndOpenPicturesInTheDoodle() throws {
        let destdir = try Checkout.install()
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let applications = destdir + "/usr/local/share/applications/"
        for name in ["scratchcard.desktop", "scratchcard-doodle.desktop", "scratchcard-make.desktop"] {
            let result = try run(try #require(Xvfb.find("desktop-file-validate")), [applications + name])
            #expect(result.status == 0 && result.out.isEmpty && result.err.isEmpty, "\(name): \(result)")
        }
        let main = try DesktopEntry(path: applications + "scratchcard.desktop")
        // A card file double-clicked in a file manager opens in it.
        #expect(main["Desktop Entry", "Exec"] == "scratchcard %f")
        #expect(main["Desktop Entry", "MimeType"] == "application/x-scratchcard;")
        #expect(main["Desktop Entry", "Icon"] == "scratchcard")
        #expect(main["Desktop Entry", "Actions"] == "doodle;")
        #expect(main["Desktop Action doodle", "Name"] == "Doodle on a picture")
        #expect(main["Desktop Action doodle", "Exec"] == "scratchcard doodle %f")
        // "Open with" runs an entry's own Exec: the doodle's entry, hidden from the menu.
        let doodle = try DesktopEntry(path: applications + "scratchcard-doodle.desktop")
        #expect(doodle["Desktop Entry", "Exec"] == "scratchcard doodle %f")
        #expect(doodle["Desktop Entry", "NoDisplay"] == "true")
        let types = Set((doodle["Desktop Entry", "MimeType"] ?? "").split(separator: ";").map(String.init))
        #expect(types == ["image/png", "image/jpeg", "image/webp"])
        // "Make a scratch card" from a picture: an entry of its own too, hidden from the menu.
        let make = try DesktopEntry(path: applications + "scratchcard-make.desktop")
        #expect(make["Desktop Entry", "Name"] == "Make a scratch card")
        #expect(make["Desktop Entry", "Exec"] == "scratchcard make-from %f")
        #expect(make["Desktop Entry", "NoDisplay"] == "true")
        #expect(Set((make["Desktop Entry", "MimeType"] ?? "").split(separator: ";").map(String.init)) == types)
        for entry in [main, doodle, make] {
            #expect(entry["Desktop Entry", "StartupNotify"] == "true" && entry["Desktop Entry", "StartupWMClass"] == "scratchcard")
        }
    }

    @Test func manPageRenders() throws {
        let destdir = try Checkout.install()
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let page = destdir + "/usr/local/share/man/man1/scratchcard.1.gz"
        var environment = ProcessInfo.processInfo.environment
        environment["MANWIDTH"] = "80"
        environment["MAN_KEEP_FORMATTING"] = nil
        let result = try run(try #require(Xvfb.find("man")), ["--warnings", "-l", page], environment: environment)
        #expect(result.status == 0)
        #expect(result.err.isEmpty, "groff says: \(result.err)")
        for text in ["SCRATCHCARD(1)", "NAME", "SYNOPSIS", "--kiosk", "log-summary", "doodle", "EXIT STATUS"] {
            #expect(result.out.contains(text), "the rendered page has no \(text)")
        }
    }

    /// Every option each command's --help lists is in the man page's block for that
    /// command, and the other way round; every command of the usage has a block.
    @Test func manPageListsExactlyTheOptionsOfEachHelp() throws {
        let binary = Checkout.built("scratchcard")
        let page = try String(contentsOfFile: Checkout.root + "/docs/scratchcard.1", encoding: .utf8)
        let documented = ManPage.optionsByCommand(page)
        let windowHelp = try run(binary, ["--help"]).out
        let commands = ["window"] + HelpText.subcommands(windowHelp)
        #expect(commands.contains("render") && commands.contains("doodle") && commands.contains("log-summary"), "\(commands)")
        #expect(Set(documented.keys) == Set(commands), "man page blocks \(documented.keys.sorted()), commands \(commands)")
        for command in commands {
            let help = try run(binary, command == "window" ? ["--help"] : [command, "--help"])
            #expect(help.status == 0)
            let listed = HelpText.options(help.out)
            let inPage = documented[command] ?? []
            #expect(listed.subtracting(inPage).isEmpty, "\(command): in --help, not in the man page: \(listed.subtracting(inPage).sorted())")
            #expect(inPage.subtracting(listed).isEmpty, "\(command): in the man page, not in --help: \(inPage.subtracting(listed).sorted())")
        }
        // The comparison sees options at all (a parser that found none would pass above).
        #expect(documented["window"]?.contains("--kiosk") == true && documented["doodle"]?.contains("--color") == true)
    }

    @Test func everyIconSizeIsInstalledAtItsSize() throws {
        let destdir = try Checkout.install()
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let hicolor = destdir + "/usr/local/share/icons/hicolor/"
        for size in [16, 24, 32, 48, 64, 128, 256] {
            let icon = try PNGFile.read(path: hicolor + "\(size)x\(size)/apps/scratchcard.png")
            #expect(icon.size == PixelSize(width: size, height: size))
            #expect(icon[size / 2, size / 2].a == 255, "\(size): the middle is not drawn")
            #expect(icon[0, 0].a == 0, "\(size): the corner is not transparent")
        }
        // The SVG is the same drawing: rendered at 128 px it matches the 128 px PNG.
        let svg = hicolor + "scalable/apps/scratchcard.svg"
        let rendered = destdir + "/svg-128.png"
        let result = try run(try #require(Xvfb.find("rsvg-convert")), ["-w", "128", "-h", "128", svg, "-o", rendered])
        #expect(result.status == 0, "\(result.err)")
        let fromSVG = try PNGFile.read(path: rendered), png = try PNGFile.read(path: hicolor + "128x128/apps/scratchcard.png")
        let difference = meanDifference(fromSVG, png)
        #expect(difference < 2.5, "the SVG and the 128 px PNG differ by \(difference) a channel on average")
    }

    /// Assets/icons is what the asset maker draws today (within rounding).
    @Test func committedIconsAreUpToDate() throws {
        let folder = try Checkout.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try run(Checkout.built("assetmaker"), ["--icons", folder])
        #expect(result.status == 0, "\(result.err)")
        let committed = Checkout.root + "/Assets/icons/"
        for size in [16, 24, 32, 48, 64, 128, 256] {
            let name = "scratchcard-\(size).png"
            let fresh = try PNGFile.read(path: folder + "/" + name), kept = try PNGFile.read(path: committed + name)
            #expect(fresh.size == kept.size && maxDifference(fresh, kept) <= 2,
                    "Assets/icons/\(name) is out of date: swift run assetmaker --icons Assets/icons")
        }
        // The card file's type icon, the same way.
        for stem in ["scratchcard", "application-x-scratchcard"] {
            for size in [16, 24, 32, 48, 64, 128, 256] where stem != "scratchcard" {
                let name = "\(stem)-\(size).png"
                let fresh = try PNGFile.read(path: folder + "/" + name), kept = try PNGFile.read(path: committed + name)
                #expect(fresh.size == kept.size && maxDifference(fresh, kept) <= 2,
                        "Assets/icons/\(name) is out of date: swift run assetmaker --icons Assets/icons")
            }
            let freshSVG = try String(contentsOfFile: folder + "/\(stem).svg", encoding: .utf8)
            #expect(freshSVG == (try String(contentsOfFile: committed + "\(stem).svg", encoding: .utf8)),
                    "Assets/icons/\(stem).svg is out of date: swift run assetmaker --icons Assets/icons")
        }
    }
}

/// Premultiplied channels, so that fully transparent pixels compare equal whatever colour.
private func premultiplied(_ p: RGBA) -> [Int] {
    [Int(p.r) * Int(p.a) / 255, Int(p.g) * Int(p.a) / 255, Int(p.b) * Int(p.a) / 255, Int(p.a)]
}

func meanDifference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    guard a.size == b.size else { return .infinity }
    var total = 0
    for y in 0..<a.size.height { for x in 0..<a.size.width {
        total += zip(premultiplied(a[x, y]), premultiplied(b[x, y])).map { abs($0 - $1) }.reduce(0, +)
    } }
    return Double(total) / Double(a.size.pixelCount * 4)
}

func maxDifference(_ a: RGBAImage, _ b: RGBAImage) -> Int {
    var worst = 0
    for y in 0..<a.size.height { for x in 0..<a.size.width {
        worst = max(worst, zip(premultiplied(a[x, y]), premultiplied(b[x, y])).map { abs($0 - $1) }.max() ?? 0)
    } }
    return worst
}

/// A .desktop file's keys by group.
struct DesktopEntry {
    private var values: [String: [String: String]] = [:]

    init(path: String) throws {
        var group = ""
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("[") && line.hasSuffix("]") { group = String(line.dropFirst().dropLast()); continue }
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            values[group, default: [:]][String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
    }

    subscript(group: String, key: String) -> String? { values[group]?[key] }
}

/// Option names in help and man page text: words that start with - or -- and a letter.
enum HelpText {
    static func optionWords(_ text: Substring) -> Set<String> {
        var found: Set<String> = []
        for raw in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            var word = raw.drop { "[(\"".contains($0) }
            while let last = word.last, "]),.;:\"|".contains(last) { word = word.dropLast() }
            if let eq = word.firstIndex(of: "=") { word = word[..<eq] }
            let name = word.hasPrefix("--") ? word.dropFirst(2) : word.hasPrefix("-") ? word.dropFirst() : nil
            guard let name, let first = name.first, first.isLetter, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { continue }
            found.insert(String(word))
        }
        return found
    }

    /// The options a command's help lists: after "options:" when it has that heading,
    /// else in its usage lines (up to the first blank line).
    static func options(_ help: String) -> Set<String> {
        if let heading = help.range(of: "options:") { return optionWords(help[heading.upperBound...]) }
        let usage = help.components(separatedBy: "\n\n").first ?? help
        return optionWords(Substring(usage))
    }

    /// The commands the main usage names: `scratchcard WORD` lines but the first.
    static func subcommands(_ help: String) -> [String] {
        let usage = help.components(separatedBy: "\n\n").first ?? help
        return usage.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").filter { $0 != "usage:" }
            guard words.count >= 2, words[0] == "scratchcard", let first = words[1].first, first.isLetter, words[1].allSatisfy({ $0.isLowercase || $0 == "-" })
            else { return nil }
            return String(words[1])
        }
    }
}

/// The man page's option blocks: after `.\" scratchcard-options: COMMAND`, the tags of
/// `.TP` items up to the next marker or section.
enum ManPage {
    static func optionsByCommand(_ roff: String) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        var command: String?
        var tagNext = false
        for line in roff.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".\\\" scratchcard-options: ") {
                command = String(line.dropFirst(".\\\" scratchcard-options: ".count))
                result[command!, default: []] = result[command!, default: []]
                continue
            }
            if line.hasPrefix(".SH") || line.hasPrefix(".SS") { command = nil; continue }
            guard let command else { continue }
            if line == ".TP" { tagNext = true; continue }
            if tagNext {
                tagNext = false
                let text = line.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\fB", with: " ")
                    .replacingOccurrences(of: "\\fI", with: " ").replacingOccurrences(of: "\\fR", with: " ")
                result[command, default: []].formUnion(HelpText.optionWords(Substring(text)))
            }
        }
        return result
    }
}

@Suite("The installed binary")
struct InstalledBinaryTests {
    /// One use of anything from swift-corelibs-foundation (Thread, NSLock, NSCondition,
    /// JSONSerialization, String(format:), ...) links all of it into the static binary,
    /// ICU's data included: 58 MB instead of 14 (BENCHMARKS.md, "Installing").
    @Test func staticBinaryLinksFoundationEssentialsOnly() throws {
        let binary = Checkout.root + "/.build/install/release/scratchcard"      // unstripped: it has symbols
        let symbols = try run(try #require(Xvfb.find("nm")), [binary], timeout: 120)
        #expect(symbols.status == 0, "nm \(binary): \(symbols.err) (`make test` builds it: make install-build)")
        let lines = symbols.out.split(separator: "\n")
        #expect(lines.count > 1000, "nm found no symbols")
        let foundation = lines.filter { $0.contains("$s10Foundation") }
        #expect(foundation.isEmpty, """
            the installed binary links swift-corelibs-foundation (\(foundation.count) symbols, such as \
            \(foundation.prefix(3).map { $0.split(separator: " ").last ?? "" })): use FoundationEssentials' types or Glibc \
            (see Sources/Threads/Threads.swift)
            """)
    }
}
