// scratchcard: a scratch card for X11 desktops and kiosks.
//
// How it works, in the order to read it:
//   Options.swift    the command line, read into one immutable value
//   Card.swift       the cover and prize images (built-in or PNG files)
//   WindowApp.swift  the window and its loop: X events -> strokes -> composite -> put
//   Render.swift     `scratchcard render`: a trace replayed with no display
// The engine (mask, brush, compositor) lives in ScratchCore; Xlib in ScratchX11.
@preconcurrency import Glibc
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
        do {
            let (records, damaged) = try OutcomeLog.read(path: path)
            print(OutcomeLog.summary(of: records, damagedLines: damaged), terminator: "")
        } catch {
            throw ExitError(code: 2, message: "\(error)")
        }
    case .doodle(let options):
        try doodle(options)
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
