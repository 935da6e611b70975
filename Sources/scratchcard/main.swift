// scratchcard: a scratch card for X11 desktops and kiosks. The rooms of the code and what
// each may use are in docs/ARCHITECTURE.md (the one map); this file reads the command
// (Options.swift) and runs it: a window (Window/WindowApp.swift), the doodle window, or a
// command without one (Commands/).
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
    case let .logSummary(path, picks):
        try logSummary(path, eachTicket: picks)
    case .stock(let options):
        try stockCommand(options)
    case .simulate(let options):
        try simulateCommand(options)
    case .doodle(let options):
        try doodle(options)
    case .pool(let command):
        try runPool(command)
    case .cardFile(let command):
        try runCardFileCommand(command)
    case .claims(let command):
        try runClaims(command)
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
