// scratchcard: a scratch card for X11 desktops and kiosks.
//
// How it works, in the order to read it:
//   Options.swift          the command line (and config file), read into one immutable value
//   Card.swift             the cards: PNG, JPEG or WebP files, or drawings at the window's size
//                          (the built-in card, text cards: Sources/CardArt), dealt from a deck
//   DataFolder.swift       the program's data folder, ../share/scratchcard from the binary (the
//                          built-in card needs none now: CardArt draws it; the folder decides
//                          whether a bad image is the installation's fault, exit 1, or input's)
//   Threads.swift          a detached pthread and a condition (not Foundation's: binary size)
//   WindowApp.swift        the window and its loop: X events -> strokes -> composite -> put
//   WindowApp+Kiosk.swift  kiosk mode: the exit chord, idle and abandon resets, the attract band
//   WindowApp+Dealing.swift  a new card (`r`, a reset) asked for, taken when made, shown
//   CardMaker.swift        makes the next card (deal, decode, scale, convert) on a worker thread
//   WindowApp+Store.swift  the store: deals committed before shown, strokes saved, a restart resumed
//   StoreWriter.swift      the store behind a queue of its own: commits never hold up the loop
//   StoreCommands.swift    `stock`, `simulate`, `log-summary` of a store
//   PoolCommands.swift     `pool init|deal|stock`: the prize pool many kiosks share (PostgreSQL)
//   Signals.swift          SIGTERM, SIGINT, SIGHUP into the loop through a pipe
//   Render.swift           `scratchcard render`: a trace replayed with no display
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
