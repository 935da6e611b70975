import ScratchCore

/// What the command line asked for: one immutable value, read from argv in two steps
/// (split into tokens, then read the tokens), in the manner of swift-argument-parser.
enum Command: Equatable {
    case window(WindowOptions)
    case render(RenderOptions)
    case help(String)
    case version
}

/// Options of the window (the default command).
struct WindowOptions: Equatable {
    var cover: String?
    var prize: String?
    /// The brush radius in points; device pixels = points x scale.
    var brushPoints = 20.0
    var scale: Double?
    var size: PixelSize?
    var useSharedMemory = true
    var title = "ScratchCard"
    var display: String?
    var verbose = false
    var stats = false
    var record: String?
}

/// Options of `scratchcard render`.
struct RenderOptions: Equatable {
    var trace = ""
    var cover: String?
    var prize: String?
    var out = ""
}

/// A usage error: a message for stderr, and exit code 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String
    var description: String { message }
}

let versionText = "scratchcard 0.1.0"

let windowUsage = """
    usage: scratchcard [options]
           scratchcard render --trace FILE [--cover FILE] [--prize FILE] --out FILE.png

    A scratch card: press and drag over the foil to reveal the prize beneath.

    options:
      --cover FILE     the cover image (PNG); default: the built-in silver foil
      --prize FILE     the prize image (PNG); default: the built-in prize
      --brush PT       brush radius in points (default 20); pixels = points x scale
      --scale F        display scale factor (default: Xft.dpi / 96, else the screen's
                       dpi / 96 when plausible, else 1)
      --size WxH       window size in pixels (default: the cover's size); images are
                       scaled to fill it, centred
      --no-shm         draw with plain XPutImage instead of MIT-SHM shared memory
      --title TEXT     window title (default ScratchCard)
      --display NAME   X display to use (default: $DISPLAY)
      --record FILE    write the gesture as a stroke trace when the window closes
      --stats          print events, repaints, pixels put, latency and the time from
                       start to the first frame on screen, on exit
      --verbose        say which display scale was chosen and how things are drawn
      -h, --help       show this help and exit
      --version        show the version and exit

    keys: q or Escape quit; the window's close button quits too.
    exit status: 0 done, 1 display trouble (no display, lost connection), 2 bad input.
    """

let renderUsage = """
    usage: scratchcard render --trace FILE [--cover FILE] [--prize FILE] --out FILE.png

    Replays a stroke trace with no display and writes the final card as PNG. The card is
    the trace's canvas size; the images are scaled to fill it.
    """

/// Splits `--name=value` into two tokens and stops reading options at `--`.
func tokenize(_ arguments: [String]) -> [String] {
    var tokens: [String] = []
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        if argument == "--" { tokens.append(argument); tokens.append(contentsOf: rest); break }
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            tokens.append(String(argument[..<eq]))
            tokens.append(String(argument[argument.index(after: eq)...]))
        } else {
            tokens.append(argument)
        }
    }
    return tokens
}

/// Reads the command line (without the program name).
func parseCommand(_ arguments: [String]) throws(UsageError) -> Command {
    var tokens = tokenize(arguments)[...]
    if tokens.first == "render" {
        tokens.removeFirst()
        return try parseRender(tokens)
    }
    var options = WindowOptions()
    while let token = tokens.popFirst() {
        func value() throws(UsageError) -> String {
            guard let next = tokens.popFirst() else { throw UsageError(message: "\(token) needs a value") }
            return next
        }
        switch token {
        case "-h", "--help": return .help(windowUsage)
        case "--version": return .version
        case "--cover": options.cover = try nonEmpty(value(), token)
        case "--prize": options.prize = try nonEmpty(value(), token)
        case "--brush": options.brushPoints = try positiveNumber(value(), token, upTo: 10_000)
        case "--scale": options.scale = try positiveNumber(value(), token, upTo: 64)
        case "--size": options.size = try parseSize(value(), token)
        case "--no-shm": options.useSharedMemory = false
        case "--title": options.title = try value()
        case "--display": options.display = try nonEmpty(value(), token)
        case "--record": options.record = try nonEmpty(value(), token)
        case "--stats": options.stats = true
        case "--verbose", "-v": options.verbose = true
        default:
            throw UsageError(message: token.hasPrefix("-") ? "unknown option '\(token)'" : "unexpected argument '\(token)'")
        }
    }
    return .window(options)
}

func parseRender(_ tokens: ArraySlice<String>) throws(UsageError) -> Command {
    var tokens = tokens
    var options = RenderOptions()
    var trace: String?, out: String?
    while let token = tokens.popFirst() {
        func value() throws(UsageError) -> String {
            guard let next = tokens.popFirst() else { throw UsageError(message: "\(token) needs a value") }
            return next
        }
        switch token {
        case "-h", "--help": return .help(renderUsage)
        case "--trace": trace = try nonEmpty(value(), token)
        case "--cover": options.cover = try nonEmpty(value(), token)
        case "--prize": options.prize = try nonEmpty(value(), token)
        case "--out": out = try nonEmpty(value(), token)
        default:
            throw UsageError(message: token.hasPrefix("-") ? "render: unknown option '\(token)'" : "render: unexpected argument '\(token)'")
        }
    }
    guard let trace else { throw UsageError(message: "render needs --trace FILE") }
    guard let out else { throw UsageError(message: "render needs --out FILE.png") }
    options.trace = trace
    options.out = out
    return .render(options)
}

func nonEmpty(_ text: String, _ option: String) throws(UsageError) -> String {
    guard !text.isEmpty else { throw UsageError(message: "\(option) needs a non-empty value") }
    return text
}

/// A plain decimal number > 0 and <= `limit`; anything else names the option.
func positiveNumber(_ text: String, _ option: String, upTo limit: Double) throws(UsageError) -> Double {
    guard let value = Trace.parseDecimal(Substring(text)), value > 0, value <= limit else {
        throw UsageError(message: "\(option) takes a number greater than 0 and at most \(Int(limit)), not '\(text.prefix(40))'")
    }
    return value
}

/// `WxH` with whole numbers from 1 to 16384.
func parseSize(_ text: String, _ option: String) throws(UsageError) -> PixelSize {
    let parts = text.split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let w = Trace.parseSide(parts[0]), let h = Trace.parseSide(parts[1]) else {
        throw UsageError(message: "\(option) takes WxH with whole numbers from 1 to \(Trace.maximumSide), not '\(text.prefix(40))'")
    }
    return PixelSize(width: w, height: h)
}
