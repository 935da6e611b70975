// swift-tools-version:6.0
// ScratchCard: a scratch-to-reveal card for X11 desktops and kiosks.
// The map of the rooms (each target below: what it holds, what it may use) is the table in
// docs/ARCHITECTURE.md, "Rooms", and only there. Change a room's dependencies here and its
// row there in the same commit. `Sources/` holds only what ships; the measurement tools
// live in `Bench/`, the icon drawer in `Tools/`, the tests' servers and helpers in `Tests/`.
import PackageDescription

let package = Package(
    name: "ScratchCard",
    products: [
        .executable(name: "scratchcard", targets: ["scratchcard"]),
        .executable(name: "scratchcard-thumbnailer", targets: ["scratchcard-thumbnailer"]),
        .executable(name: "scratchbench", targets: ["scratchbench"]),
    ],
    targets: [
        // MARK: The product's C edges: system libraries found through pkg-config, each used
        // by one room only.
        .systemLibrary(name: "CX11", pkgConfig: "x11 xext xi xrandr",
                       providers: [.apt(["libx11-dev", "libxext-dev", "libxi-dev", "libxrandr-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        // JPEG through libjpeg-turbo's TurboJPEG API, WebP through libwebp: ScratchImage only.
        .systemLibrary(name: "CJPEG", pkgConfig: "libturbojpeg",
                       providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp libwebpdemux",
                       providers: [.apt(["libwebp-dev"])]),
        // The sound room's C edges: libpulse (PulseAudio, PipeWire's pulse server) and ALSA.
        // No pkgConfig for libpulse: its headers are in /usr/include and the module map links
        // it; libpulse.pc adds only -D_REENTRANT and -pthread, which SwiftPM refuses with a warning.
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libpq: the store room's client of a shared prize pool in PostgreSQL.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // cairo + Pango (fontconfig, HarfBuzz): CardArt draws the built-in card and text cards.
        // Its flags from a .pc file of its own, by path (why: in that file).
        .systemLibrary(name: "CPangoCairo", pkgConfig: pangoCairoPkgConfig(),
                       providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // libzip: the .scratchcard container, read from and written to memory (CardFile only).
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),

        // OpenSSL's libcrypto: the claims room's HMAC-SHA256 and random bytes.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // libqrencode: the QR room turns a claim code into modules.
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),

        // libcups: the printing room sends claim tickets to a CUPS destination (no .pc file).
        .systemLibrary(name: "CCups", providers: [.apt(["libcups2-dev"])]),

        // Cache prefetch hints for the compositor: a header of one-instruction inlines.
        .systemLibrary(name: "CInstructions"),

        // MARK: The product's rooms (docs/ARCHITECTURE.md, "Rooms").
        // The engine, pixels and geometry only: mask and brush, compositor, canvas and reveal
        // meter, fade and shimmer, framebuffers and pixel layouts, images, traces, and the
        // few file utilities it needs (whole-file reads, atomic writes).
        .target(name: "ScratchCore", dependencies: ["CInstructions"], linkerSettings: [.linkedLibrary("m")]),
        // The card's rules: what a card is and how it is dealt, played and ended (decks and
        // stock, the ledger protocols, the session's state machine, events, the outcome log,
        // saved strokes, configuration, celebration timing). Pure Swift, no C module.
        .target(name: "CardRules", dependencies: ["ScratchCore"]),
        // The doodle document: strokes on a picture, undo, export (`scratchcard doodle`).
        .target(name: "DoodleDocument", dependencies: ["ScratchCore"]),
        // Threads and a condition on pthreads, without Foundation's Thread (which would link
        // all of swift-corelibs-foundation into the static binary): the sound thread, the
        // program's loaders.
        .target(name: "Threads"),
        // Image files in (PNG, JPEG, WebP) and out (PNG, JPEG), image scaling.
        .target(name: "ScratchImage", dependencies: ["CPNG", "CJPEG", "CWebP", "ScratchCore"]),
        // The display connection, window, framebuffers, input, DPI, and the display loop's
        // pace (FramePacer, refresh rates, latency histograms).
        .target(name: "ScratchX11", dependencies: ["CX11", "ScratchCore"]),
        // Sound: the scratch synthesised per pen, the chime, WAV clips, the sound thread and
        // its outputs (PulseAudio, else ALSA).
        .target(name: "ScratchSound", dependencies: ["CPulse", "CALSA", "ScratchCore", "Threads"]),
        // The service manager's notifications (systemd's sd_notify protocol, by hand:
        // a datagram to NOTIFY_SOCKET): READY, STATUS, STOPPING and the watchdog's pings.
        .target(name: "ServiceNotify"),
        // The store: deals, stock, outcomes and the card on show, in SQLite; the shared pool
        // in PostgreSQL. Implements the rules' PrizeLedger and CardOnShowStore.
        .target(name: "ScratchStore", dependencies: ["CSQLite", "CLibPQ", "ScratchCore", "CardRules", "Threads"]),
        // Claim codes (pure Swift: alphabet, check character, parsing) and the promotion's
        // key that makes and checks them (HMAC-SHA256 through CCrypto).
        .target(name: "Claims", dependencies: ["CCrypto"]),
        // A claim code as a QR code's modules, and as an image.
        .target(name: "QRCode", dependencies: ["CQREncode", "ScratchCore"]),
        // Claim tickets to a CUPS printer, from a queue of its own.
        .target(name: "TicketPrinter", dependencies: ["CCups", "Threads"]),
        // Draws cards at the window's size: the built-in cover and prize, text cards.
        .target(name: "CardArt", dependencies: ["CPangoCairo", "ScratchCore", "CardRules"]),
        // Card files: the .scratchcard zip container (libzip), its checks, and its deck.
        .target(name: "CardFile", dependencies: ["CZip", "ScratchCore", "CardRules"]),
        // A card file's thumbnail (its cover, never the prize) and the thumbnail command's
        // arguments: `scratchcard thumbnail` and `scratchcard-thumbnailer` share it. It
        // draws nothing (no CardArt: no cairo or Pango to load in the thumbnailer).
        .target(name: "CardThumbnail", dependencies: ["CardFile", "ScratchImage", "ScratchCore", "CardRules"]),
        // The money path of a window's cards: the card as dealt and where it came from, the
        // dealer and the stock book, claims, the card maker's worker, and the ledger with
        // one entry point per transition (deal, show, reveal, end, void, print). No X11.
        .target(name: "Dealing", dependencies: ["ScratchCore", "CardRules", "CardArt", "CardFile", "ScratchImage", "ScratchSound",
                                                "ScratchStore", "Claims", "QRCode", "TicketPrinter", "Threads"]),
        // The icon, found as a resource (the built-in card is drawn by CardArt).
        .target(name: "ScratchAssets", path: "Assets",
                exclude: ["scratchcard.desktop", "scratchcard-doodle.desktop", "scratchcard-make.desktop", "mime", "thumbnailers"],
                // icons: the window's _NET_WM_ICON in a development build (an installed
                // one reads the hicolor theme's).
                resources: [.copy("icon.png"), .copy("icons")]),

        // MARK: The executable.
        .executableTarget(name: "scratchcard",
                          dependencies: ["ScratchCore", "CardRules", "DoodleDocument", "Threads", "ScratchImage", "ScratchX11",
                                         "ScratchSound", "ScratchStore", "ScratchAssets", "CardArt", "CardFile", "CardThumbnail", "Claims", "QRCode", "Dealing", "ServiceNotify"]),
        // The freedesktop thumbnailer file managers run, once a file: the thumbnail command
        // alone, linking only what it needs (libzip, libpng, libjpeg-turbo, libwebp: no X11,
        // sound, SQLite, libpq, CUPS, cairo or Pango), so it loads 12 shared libraries, not 95.
        .executableTarget(name: "scratchcard-thumbnailer", dependencies: ["CardThumbnail"]),

        // MARK: Bench: measurement tools, never shipped (BENCHMARKS.md).
        // cairo + pixman: the engines scratchbench and scalebench compare against, and the
        // icons' painter in Tools/assetmaker; the card itself never links it.
        .systemLibrary(name: "CCairo", path: "Bench/CCairo", pkgConfig: "cairo pixman-1",
                       providers: [.apt(["libcairo2-dev", "libpixman-1-dev"])]),
        // The Present extension with MIT-SHM pixmaps: presentbench's and clientfloor's only.
        .systemLibrary(name: "CXPresent", path: "Bench/CXPresent", pkgConfig: "xpresent xfixes xext x11",
                       providers: [.apt(["libxpresent-dev", "libxfixes-dev", "libxext-dev", "libx11-dev"])]),
        // The engine's benchmark, traces replayed against ours and cairo's: make bench.
        .executableTarget(name: "scratchbench", dependencies: ["ScratchCore", "CardRules", "ScratchStore", "CCairo"],
                          path: "Bench/scratchbench"),
        // How well and how fast images are enlarged, against pixman: swift run -c release scalebench IMAGE.png...
        .executableTarget(name: "scalebench", dependencies: ["ScratchImage", "ScratchCore", "CCairo"], path: "Bench/scalebench"),
        // Present against paced puts, latency and vblank alignment (scripts/present-bench.sh).
        .executableTarget(name: "presentbench", dependencies: ["CXPresent"], path: "Bench/presentbench"),
        // A dummy Xorg whose pointer is on the inputtest driver, and 1000 Hz drives through
        // it: the window benchmark's mouse (scripts/window-bench.sh, WINDOW_BENCH_INPUT=inputtest).
        .executableTarget(name: "inputdrive", dependencies: ["InputTest", "XvfbSupport"], path: "Bench/inputdrive"),
        // The least a client can cost the X server for a drag: the floor under the window
        // benchmark's X-server figure (scripts/pacing-bench.sh, build=client).
        .executableTarget(name: "clientfloor", dependencies: ["CXPresent"], path: "Bench/clientfloor"),

        // MARK: Tools: build-time helpers, never shipped.
        // Draws the icons, with cairo (Bench/CCairo): swift run assetmaker --icons Assets/icons
        .executableTarget(name: "assetmaker", dependencies: ["ScratchCore", "ScratchImage", "CCairo"], path: "Tools/assetmaker"),

        // MARK: Tests: a target per room, and their private servers.
        // The brush's formula computed independently, mask comparisons and the seeded
        // generator: shared by the engine's, the rules' and the doodle's tests.
        .target(name: "EngineTestSupport", dependencies: ["ScratchCore"], path: "Tests/EngineTestSupport"),
        // What a test needs of the machine (root, a device, a tool) and how a missing need is
        // said; `.requires(need)` skips a test naming it (scripts/run-tests.py lists the skips,
        // and fails on them under CI=true). The trait is apart: it links swift-testing.
        .target(name: "TestRequirements", path: "Tests/TestRequirements"),
        .target(name: "TestRequirementTrait", dependencies: ["TestRequirements"], path: "Tests/TestRequirementTrait"),
        .testTarget(name: "ScratchCoreTests", dependencies: ["ScratchCore", "EngineTestSupport"]),
        .testTarget(name: "CardRulesTests", dependencies: ["CardRules", "ScratchCore", "EngineTestSupport"]),
        .testTarget(name: "DoodleDocumentTests", dependencies: ["DoodleDocument", "ScratchCore", "EngineTestSupport"]),
        .testTarget(name: "ServiceNotifyTests", dependencies: ["ServiceNotify", "NotifySupport"]),
        // A datagram socket standing in for systemd's notify socket: the tests read what the kiosk tells it.
        .target(name: "NotifySupport", path: "Tests/NotifySupport"),
        .testTarget(name: "ScratchSoundTests", dependencies: ["ScratchSound", "ScratchCore"]),
        // Card files: the container and its bad cases (CardFileSupport builds them byte by byte).
        .target(name: "CardFileSupport", path: "Tests/CardFileSupport"),
        .testTarget(name: "CardFileTests", dependencies: ["CardFile", "CardRules", "ScratchCore", "CardFileSupport"]),
        .testTarget(name: "ClaimsTests", dependencies: ["Claims", "QRCode", "ScratchCore", "CardRules", "ScratchImage", "TestRequirementTrait"]),
        .testTarget(name: "CardArtTests", dependencies: ["CardArt", "CardRules", "ScratchCore", "ScratchImage", "QRCode", "Claims",
                                                         "TestRequirementTrait"]),
        .testTarget(name: "ScratchStoreTests", dependencies: ["ScratchStore", "CardRules", "ScratchCore", "PostgresSupport",
                                                              "TestRequirementTrait"]),
        // The dealing room with no display: a temporary SQLite store and the suite's PostgreSQL.
        .testTarget(name: "DealingTests", dependencies: ["Dealing", "ScratchStore", "CardRules", "ScratchCore", "Claims",
                                                         "PostgresSupport"]),
        // A private PostgreSQL server for the pool's tests: started per test, always stopped.
        .target(name: "PostgresSupport", dependencies: ["TestRequirements"], path: "Tests/PostgresSupport"),
        .testTarget(name: "ScratchImageTests", dependencies: ["ScratchImage", "ScratchCore", "CPNG", "CJPEG"],
                    resources: [.copy("Fixtures")]),
        // A private Xvfb for the X11 tests: started per test, always stopped.
        // Test-only: XFixes, to read the cursor the server shows (XFixesGetCursorImage).
        .systemLibrary(name: "CXFixes", path: "Tests/CXFixes", pkgConfig: "x11 xfixes",
                       providers: [.apt(["libxfixes-dev"])]),
        // Real input through Xorg's inputtest driver (touch, keys, an absolute pointer): its
        // socket protocol's header (no library), and a Swift client of one device that the
        // tests and a bench tool can both use.
        .systemLibrary(name: "CInputTest", path: "Tests/CInputTest", providers: [.apt(["xserver-xorg-dev"])]),
        .target(name: "InputTest", dependencies: ["CInputTest"], path: "Tests/InputTest"),
        .target(name: "XvfbSupport", dependencies: ["CXFixes", "InputTest", "TestRequirements"], path: "Tests/XvfbSupport"),
        // libfuse 3, and the power-cut test's file system on it (C): writes kept in memory
        // until synced, SIGUSR1 drops what is not (Tests/PowerCutFS/powercutfs.c).
        .systemLibrary(name: "CFuse3", path: "Tests/CFuse3", pkgConfig: "fuse3", providers: [.apt(["libfuse3-dev"])]),
        .executableTarget(name: "powercutfs", dependencies: ["CFuse3"], path: "Tests/PowerCutFS"),
        .testTarget(name: "ScratchX11Tests", dependencies: ["ScratchX11", "ScratchCore", "CX11", "XvfbSupport", "TestRequirementTrait"]),
        // The program as a user meets it; needs the scratchcard executable built beside it.
        .testTarget(name: "ScratchCardAppTests", dependencies: ["scratchcard", "scratchcard-thumbnailer", "ScratchImage", "ScratchCore", "CardRules", "ScratchStore", "XvfbSupport", "CardArt", "PostgresSupport", "CardFileSupport", "CardFile", "Claims", "QRCode", "TicketPrinter", "NotifySupport", "Dealing", "TestRequirementTrait"]),
        // The installed program and the .deb (make install-files, make deb): run with the
        // toolchain and .build out of reach, menu entries, man page, icons.
        .testTarget(name: "ScratchCardInstallTests", dependencies: ["scratchcard", "scratchcard-thumbnailer", "assetmaker", "CardFileSupport", "ScratchImage", "ScratchCore", "XvfbSupport",
                                                                    "TestRequirementTrait"]),
    ],
    swiftLanguageModes: [.v6]
)

/// CPangoCairo's pkg-config: Sources/CPangoCairo/scratchcard-pangocairo.pc, by its path
/// (it says why). SwiftPM splits a pkgConfig at spaces, so a checkout whose path has one
/// takes the system's pangocairo.pc instead, and its warning about -pthread.
func pangoCairoPkgConfig() -> String {
    let own = Context.packageDirectory + "/Sources/CPangoCairo/scratchcard-pangocairo.pc"
    return own.contains(" ") ? "pangocairo" : own
}
