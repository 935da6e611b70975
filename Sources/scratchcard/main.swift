// scratchcard: a scratch card for X11 desktops and kiosks.
//
// How it works, in the order to read it:
//   Options.swift          the command line (and config file), read into one immutable value
//   Card.swift             the cards: PNG, JPEG or WebP files, or drawings at the window's size
//                          (the built-in card, text cards: Sources/CardArt), dealt from a deck
//   DataFolder.swift       the program's data folder, ../share/scratchcard from the binary (the
//                          built-in card needs none now: CardArt draws it; the folder decides
//                          whether a bad image is the installation's fault, exit 1, or input's)
//   ClockAndLog.swift      the monotonic clock, the log on stderr, the stats lines' numbers
//   Window/WindowApp.swift the window and its loop: X events -> strokes -> composite -> put;
//                          it keeps its state in parts, asks each and passes each what it needs:
//     CardOnShow.swift     the card on show: the card as dealt, its canvas, its state machine
//     CardDealing.swift    the next card (`r`, a reset) asked for and handed over when made;
//     CardMaker.swift      made (deal, decode, scale, convert) on a worker thread
//     StoreSide.swift      the store's side: deals committed before shown, outcomes, the log
//     KioskTimers.swift    kiosk mode: the exit chord, idle and abandon resets, the attract band
//     Effects.swift        the scratch's sound, the reveal's chime and burst
//     ScreenChanges.swift  what the screen does not show yet; WindowStats.swift, --stats
//     OpenedWindow.swift   the display, window and surface set up for the first card
//   Screen/PacedScreen.swift  a window's surface at its monitor's pace (scratch and doodle)
//   Store/                 StoreKeeper (strokes saved, a restart resumed, the pool's side),
//                          StockBook, StoreWriter (commits never hold up the loop)
//   Commands/              `stock`, `simulate`, `log-summary`, `pool init|deal|stock`, `render`
//   Signals.swift          SIGTERM, SIGINT, SIGHUP into the loop through a pipe
//   Doodle*.swift          `scratchcard doodle`: coloured pens over a picture, exported
// The engine (mask, brush, compositor, the card's state machine) lives in ScratchCore;
// Xlib in ScratchX11; image files (PNG, JPEG, WebP) in ScratchImage.
@preconcurrency import Glibc
import DoodleDocument
import Foundation
import ScratchCore

setvbuf(stdout, nil, _IOLBF, 0)
do {
    switch try parseCommand(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
    case .help(let text):
        print(text)
    case .version:
        print(versionText)
    case .render(let options):
        try render(options)
    case .logSummary(let path):
        try logSummary(path)
    case .stock(let options):
        try stockCommand(options)
    case .simulate(let options):
        try simulateCommand(options)
    case .doodle(let options):
        try doodle(options)
    case .pool(let command):
        try runPool(command)
    case .window(let options):
        try WindowApp(options: options).run()
    }
} catch let error as UsageError {
    log(error.message)
    fputs("run 'scratchcard --help' for usage\n", stderr)
    exit(2)
} catch let error as ExitError {
    log(error.message)
    exit(error.code)
}
