import Foundation
import Testing
@testable import ScratchX11

/// text/uri-list as file managers, browsers and GTK write it.
struct URIListTests {
    func paths(_ text: String, host: String = "myhost") -> [String] {
        URIList.localPaths(in: Array(text.utf8), thisHost: host)
    }

    @Test func fileURIsWithEmptyLocalOrOwnHost() {
        #expect(paths("file:///home/ann/a.png\r\n") == ["/home/ann/a.png"])
        #expect(paths("file://localhost/tmp/b.jpg\r\nfile://MyHost/tmp/c.webp\r\n") == ["/tmp/b.jpg", "/tmp/c.webp"])
        #expect(paths("file:/tmp/short.png") == ["/tmp/short.png"])
    }

    @Test func percentEscapesAreDecodedToUTF8() {
        #expect(paths("file:///tmp/My%20photo%C3%A9.png\r\n") == ["/tmp/My photoé.png"])
        #expect(paths("file:///tmp/100%25.png") == ["/tmp/100%.png"])
    }

    @Test func otherHostsSchemesCommentsAndBadEscapesAreSkipped() {
        let list = "# a comment\r\nhttp://example.com/a.png\r\nfile://elsewhere/tmp/a.png\r\n"
            + "file:///tmp/bad%zz.png\r\nfile:///tmp/nul%00.png\r\nfile:///tmp/notutf8%ff.png\r\n"
            + "file:///tmp/good.png?x=1\r\n\r\n"
        #expect(paths(list) == ["/tmp/good.png"])
        #expect(paths("") == [])
        #expect(paths("file://") == [])
    }

    @Test func bareNewlinesAndOrderAreKept() {
        #expect(paths("file:///a\nfile:///b\n") == ["/a", "/b"])
    }
}

/// The fuzz target's seeds (and any regressions kept) through the same checks.
struct URIListFuzzReplayTests {
    @Test func theFuzzSeedsHoldTheTargetsChecks() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/urilist")
        var seen = 0
        for folder in ["corpus", "regressions"] {
            let dir = root.appendingPathComponent(folder)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] {
                let bytes = Array(try Data(contentsOf: dir.appendingPathComponent(name)))
                let paths = URIList.localPaths(in: bytes, thisHost: "fuzzhost")
                #expect(paths.allSatisfy { $0.hasPrefix("/") && !$0.utf8.contains(0) }, "\(name): \(paths)")
                seen += 1
            }
        }
        #expect(seen >= 3)
    }
}
