import Foundation
@preconcurrency import Glibc
import Testing
import XvfbSupport

/// Issue 34's start-up crash: the window's cover is drawn on the main thread while its
/// prize is drawn on another, and cairo 1.16 is not safe for font faces made on two
/// threads at once (it links a new face into a list every thread walks before the face
/// is whole: "Bad pointer dereference at 0x20", once in ~2,000 start-ups). CardArt now
/// makes its text one thread at a time (Sources/CardArt/Fonts.swift).
///
/// The crash itself is a window of a few instructions, too rare to wait for in a test
/// (scripts/startup-loop.sh is the hunt). What these tests check is its condition, made
/// certain: the program runs with a probe preloaded in front of cairo's
/// `cairo_ft_font_face_create_for_pattern`, the call Pango makes a font face with; the
/// probe holds each call open (up to 300 ms) until another thread comes in, and counts
/// the most threads ever inside at once. Before the fix the second drawing's text came
/// in every time (2); with it, never (1).
@Suite(.serialized) struct FontThreadsTests {
    /// The probe, in C: built with the toolchain's clang into a shared library.
    static let probeSource = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <stdatomic.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <unistd.h>

    typedef struct _cairo_font_face cairo_font_face_t;
    typedef struct _FcPattern FcPattern;

    static atomic_int calls, inside, most_inside;

    cairo_font_face_t *cairo_ft_font_face_create_for_pattern(FcPattern *pattern) {
        static cairo_font_face_t *(*real)(FcPattern *);
        if (!real) real = (cairo_font_face_t *(*)(FcPattern *))dlsym(RTLD_NEXT, "cairo_ft_font_face_create_for_pattern");
        atomic_fetch_add(&calls, 1);
        int now = atomic_fetch_add(&inside, 1) + 1;
        int most = atomic_load(&most_inside);
        while (now > most && !atomic_compare_exchange_weak(&most_inside, &most, now)) {}
        /* Wait for company: a second thread making a face now would be in cairo's list with this one. */
        for (int ms = 0; ms < 300 && atomic_load(&inside) < 2; ms++) usleep(1000);
        cairo_font_face_t *face = real(pattern);
        atomic_fetch_sub(&inside, 1);
        return face;
    }

    __attribute__((destructor)) static void report(void) {
        const char *path = getenv("FONT_FACE_PROBE_OUT");
        FILE *out = path ? fopen(path, "w") : NULL;
        if (!out) return;
        fprintf(out, "calls=%d most_inside=%d\n", atomic_load(&calls), atomic_load(&most_inside));
        fclose(out);
    }
    """#

    /// The probe built into `folder`; its path.
    static func buildProbe(in folder: URL) throws -> String {
        let source = folder.appendingPathComponent("font-face-probe.c"), library = folder.appendingPathComponent("font-face-probe.so")
        try Data(probeSource.utf8).write(to: source)
        // The Swift toolchain's clang (it ships with swift), else the system's cc.
        let compiler = ["clang", "cc"].first { Xvfb.find($0) != nil } ?? "clang"
        try Xvfb.run(compiler, ["-shared", "-fPIC", "-O1", "-o", library.path, source.path, "-ldl"],
                     environment: ProcessInfo.processInfo.environment)
        return library.path
    }

    /// What the probe counted in a run: the calls, and the most threads inside at once.
    static func probeCounts(_ path: String) throws -> (calls: Int, mostInside: Int) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        func field(_ name: String) -> Int {
            text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pair -> Int? in
                let kv = pair.split(separator: "=")
                return kv.count == 2 && kv[0] == name ? Int(kv[1]) : nil
            }.first ?? -1
        }
        return (field("calls"), field("most_inside"))
    }

    @Test("the window's start-up draws the cover and the prize, and their fonts are made one thread at a time")
    func windowStartUp() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let probe = try Self.buildProbe(in: folder), counts = folder.appendingPathComponent("counts").path
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        var environment = server.environment
        environment["LD_PRELOAD"] = probe
        environment["FONT_FACE_PROBE_OUT"] = counts
        // The built-in card: the cover drawn straight into the window's image on the main
        // thread, the prize on a thread of its own meanwhile (CardImages.canvas(showingCoverIn:)).
        let app = try RunningApp(["--events", "--sound", "off"], environment: environment)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "no ready: \(app.standardError)")
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 30) == 0, "\(app.standardError)")
        let (calls, mostInside) = try Self.probeCounts(counts)
        #expect(calls >= 1, "the probe saw no font face made: it would see no race either")
        #expect(mostInside == 1, "\(mostInside) threads were making cairo font faces at once")
    }

    @Test("render draws the cover and the prize side by side, and their fonts are made one thread at a time")
    func render() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        let probe = try Self.buildProbe(in: folder), counts = folder.appendingPathComponent("counts").path
        let trace = folder.appendingPathComponent("one.trace").path
        try Data("scratch-trace 1\ncanvas 640 400\nbrush 20\ndown 100 100\nmove 300 120\nup\n".utf8).write(to: URL(fileURLWithPath: trace))
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = ":9999"        // render needs no X server
        environment["LD_PRELOAD"] = probe
        environment["FONT_FACE_PROBE_OUT"] = counts
        // CardImages.filling: the prize drawn on a thread of its own while the cover is drawn.
        let app = try RunningApp(["render", "--trace", trace, "--out", folder.appendingPathComponent("out.png").path],
                                 environment: environment)
        #expect(app.wait(timeout: 60) == 0, "\(app.standardError)")
        let (calls, mostInside) = try Self.probeCounts(counts)
        #expect(calls >= 1, "the probe saw no font face made: it would see no race either")
        #expect(mostInside == 1, "\(mostInside) threads were making cairo font faces at once")
    }
}
