import CardRules
import ScratchCore
import ScratchX11

/// What the command line asked for: one immutable value, read from argv in two steps
/// (split into tokens, then read the tokens), in the manner of swift-argument-parser.
enum Command: Equatable {
    case window(WindowOptions)
    case render(RenderOptions)
    /// `picks`: each zone ticket's picks listed too (`--picks`).
    case logSummary(path: String, picks: Bool)
    case doodle(DoodleOptions)
    case stock(StockOptions)
    case simulate(SimulateOptions)
    case pool(PoolCommand)
    /// `make`, `info`, `thumbnail` (CardFileOptions.swift).
    case cardFile(CardFileCommand)
    case claims(ClaimCommand)
    case help(String)
    case version
}

/// Options of the window (the default command).
struct WindowOptions: Equatable {
    var cover: String?
    var prize: String?
    /// Words on the built-in foil in place of "SCRATCH HERE".
    var coverText: String?
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
    /// Reveal the whole card once this percentage is scratched; 100 turns it off.
    var revealAtPercent = 60.0
    /// A folder of PNG prizes, a JSON deck file or a card file.
    var deck: String?
    /// `scratchcard FILE`: `deck` is a card file, whatever its name.
    var openCardFile = false
    /// Where `s` saves snapshots (default: the current folder).
    var snapshotDirectory: String?
    /// JSON lines on stdout for a kiosk controller.
    var events = false
    /// The configuration file that was read, if any.
    var config: String?
    /// The outcome log: one JSON line per card.
    var log: String?
    /// The store (deals, stock, the card on show): kiosk mode always has one (this, or
    /// the default path); desktop mode only when given.
    var store: String?
    /// The card shown when nothing can be dealt; nil: the built-in one.
    var soldOut: String?
    /// A shared prize pool (PostgreSQL connection string or URI, no password in it):
    /// the stock and every outcome live there (Store/StoreKeeper+Pool.swift).
    var pool: String?
    /// This kiosk's id in the pool; nil: the host name.
    var kioskID: String?
    /// The promotion's key (a file, mode 0600): claim cards show codes made with it.
    var claimKey: String?
    /// A CUPS destination that prints a ticket for each claim revealed.
    var printClaims: String?

    /// Kiosk mode: full screen, unattended, left only by the operator's chord.
    var kiosk = false
    /// Seconds a revealed card stays before a new one is dealt (kiosk mode).
    var idleReset = 15.0
    /// Seconds a partly scratched card may be left alone before it is replaced (kiosk mode).
    var abandonReset = 60.0
    /// The key chord that ends kiosk mode.
    var exitChord = "ctrl+alt+shift+q"
    /// How many fingers scratch at once on a touchscreen (XInput 2.2).
    var maxFingers = 2
    /// At most this many puts a second; nil: the monitor's refresh rate (RandR), else 60.
    var maxFPS: Double?

    /// The scratch and the chime (`--sound on|off`), and how loud, 0...100 percent.
    var sound = true
    var volumePercent = 100.0
    /// The burst of foil sparks over a revealed card (`--celebrate on|off`).
    var celebrate = true
}

/// Options of `scratchcard render`.
struct RenderOptions: Equatable {
    var trace = ""
    var cover: String?
    var prize: String?
    /// A deck and the id of its zone card to replay the trace over (`--deck`, `--card`).
    var deck: String?
    var card: String?
    var out = ""
}

/// A usage error: a message for stderr, and exit code 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String
    var description: String { message }
}

let versionText = "scratchcard 0.1.0"

let windowUsage = """
    usage: scratchcard [options] [FILE.scratchcard]
           scratchcard make --out FILE.scratchcard [--deck PATH | --prize FILE ...]
           scratchcard make-from [--no-open] PICTURE
           scratchcard info [--show-prizes] FILE.scratchcard
           scratchcard thumbnail [--size N] FILE.scratchcard OUT.png
           scratchcard render --trace FILE [--cover FILE] [--prize FILE] [--deck PATH --card ID] --out FILE.png
           scratchcard log-summary [--picks] FILE|STORE
           scratchcard stock [--store PATH] [--deck PATH] [--json]
           scratchcard simulate --deck PATH --count N [--store PATH] [--seed S] [--json]
           scratchcard pool init|deal|stock --pool CONNINFO ...  (see scratchcard pool --help)
           scratchcard claim-key new FILE
           scratchcard redeem [CODE] --claim-key FILE (--store PATH | --pool CONNINFO)
                              [--counter NAME]     (see scratchcard redeem --help)
           scratchcard claims [--store PATH | --pool CONNINFO] [--json]
           scratchcard doodle IMAGE [--out FILE] [--color #RRGGBB] [--width PT]
                                    (see scratchcard doodle --help)

    A scratch card: press and drag over the foil to reveal the prize beneath. Images
    may be PNG, JPEG or WebP (told apart by their contents); a JPEG is turned upright
    by its EXIF orientation.

    options:
      --cover FILE     the cover image, or a ticket's artwork; default: the built-in foil
      --prize FILE     the prize image; default: the built-in prize
      --cover-text TEXT  words on the built-in foil in place of SCRATCH HERE, in any
                       script (at most 200 characters); a deck's cover-text wins
      --brush PT       brush radius in points (default 20); pixels = points x scale
      --scale F        display scale factor, device pixels per point (default:
                       Xft.dpi / 96, else the screen's dpi / 96 when plausible,
                       snapped to the nearest quarter, else 1)
      --size WxH       window size in points (default: the cover's size, an image
                       being a 96-dpi picture); pixels = points x scale; images are
                       scaled to fill it, centred (enlarged with Lanczos-3)
      --no-shm         draw with plain XPutImage instead of MIT-SHM shared memory
      --title TEXT     window title (default ScratchCard)
      --display NAME   X display to use (default: $DISPLAY)
      --reveal-at PCT  reveal the whole card once PCT percent is scratched (default
                       60; 100 turns it off)
      --deck PATH      draw each card's prize at random from a deck: a folder of
                       images (.png, .jpg, .jpeg, .webp), a JSON deck file
                       (man scratchcard) or a card file (FILE.scratchcard, made with
                       scratchcard make; given alone, without --deck, it opens the
                       same way)
      --snapshot-dir DIR  where `s` saves snapshots (default: the current folder)
      --events         write card events as JSON lines on stdout (man scratchcard)
      --config FILE    read options from a JSON file (default:
                       $XDG_CONFIG_HOME/scratchcard/config.json when present);
                       the command line wins
      --log FILE       append one JSON line per card to FILE (mode 0600): when it was
                       shown, its id and prize, how it ended, a ticket's picks; see
                       log-summary
      --store PATH     the store of deals, stock and the card on show (SQLite);
                       kiosk mode always keeps one (default
                       $XDG_STATE_HOME/scratchcard/kiosk.db), desktop mode only with
                       this option; SIGHUP reloads the deck (its stock)
      --sold-out IMAGE the card shown when every prize has been given away;
                       default: a built-in one
      --pool CONNINFO  share the stock and the outcomes with other kiosks through
                       PostgreSQL (a libpq connection string or URI; the password only
                       from PGPASSFILE or ~/.pgpass); needs --deck; see scratchcard
                       pool --help. The card on show stays in the local store
      --kiosk-id ID    this kiosk's name in the pool (default: the host name)
      --claim-key FILE the promotion's key (scratchcard claim-key new FILE; mode 0600):
                       a deck card with "claim": true shows a claim code and its QR
                       code on its prize, which scratchcard redeem checks once at a
                       counter; the code goes in the revealed event, the store, the
                       pool and --log, never on stderr
      --print-claims PRINTER  print a ticket (prize, code, QR, kiosk, time; PDF) on
                       the CUPS destination PRINTER for each claim revealed, from a
                       thread of its own: a stopped queue holds it, an unreachable
                       server is tried again, each logged
      --record FILE    write the gesture as a stroke trace when the window closes
      --stats          print events, repaints, pixels put, latency and the time from
                       start to the first frame on screen, on exit
      --max-fps N      put at most N frames a second on screen, 1 to 1000 (default:
                       the refresh rate of the monitor the window is on, from RandR;
                       60 when unknown); strokes still reach the card at every event
      --verbose        say which display scale was chosen (the raw figure and the one
                       used), the visual, and how things are drawn
      -h, --help       show this help and exit
      --version        show the version and exit

    kiosk mode:
      --kiosk          full screen, cursor hidden, screen saver and DPMS held off,
                       an invitation sweeping the foil until the first touch; the
                       keyboard held: every key (a window manager's too) and the
                       close button are ignored but the exit chord
      --exit-chord C   the operator's way out (default ctrl+alt+shift+q)
      --idle-reset S   seconds a revealed card stays before a new one (default 15)
      --abandon-reset S  seconds a partly scratched card may be left (default 60)
      --max-fingers N  fingers that scratch at once on a touchscreen (default 2)
                       Under systemd (Type=notify, NOTIFY_SOCKET): READY=1 once the
                       first card is on screen, STATUS= lines, STOPPING=1, and with
                       WatchdogSec= a WATCHDOG=1 ping from the window's loop after
                       each X round trip (examples in share/doc/scratchcard)

    sound and celebration:
      --sound on|off   the scratch under the pen (louder and brighter the faster it
                       goes over foil, for each finger) and a chime on the reveal
                       (default on), through PulseAudio when a server runs, else ALSA;
                       no sound device: silent, and --verbose says why
      --volume PCT     the sound's volume, 0 to 100 percent (default 100)
      --celebrate on|off  sparks of foil burst over a revealed card for 1.5 s
                       (default on); a deck card can turn them off, or choose its
                       own sound or none (man scratchcard)

    keys: Space or Enter reveal the card, r deals a new card, s saves a snapshot,
          q or Escape quit; the window's close button quits too. F11 full screen
          (Escape leaves it first), Ctrl+C copies what the window shows (PNG),
          Ctrl+V makes the clipboard's picture the prize under fresh foil.
    desktop: a picture (PNG, JPEG, WebP) dropped on the window becomes the prize
             under fresh foil; a kiosk takes no drops and no clipboard.
    screens: a depth-16 or depth-30 screen is drawn through a 24/32-bit TrueColor
             visual it offers; one with none (depth 8) is display trouble.
    exit status: 0 done, 1 display trouble (no display, lost connection), 2 bad input
                 (or a store that cannot be used).
    """

let logSummaryUsage = """
    usage: scratchcard log-summary [--picks] FILE|STORE

    Reads an outcome log written with --log, or a kiosk's store (--store), and prints
    how many cards there were, by outcome (revealed, abandoned, quit) and by card; for
    zone tickets, per card, how many times each zone (numbered from 0) and each symbol
    (its text, or its image's file name) was picked. Damaged lines (a record torn by a
    crash) are skipped and counted.
      --picks  also list each zone ticket: when it was shown, its card, how it ended and
               its picks in the order the player made them, each zone with its symbol
    """

let renderUsage = """
    usage: scratchcard render --trace FILE [--cover FILE] [--prize FILE] [--deck PATH --card ID] --out FILE.png

    Replays a stroke trace with no display and writes the final card as PNG. The card is
    the trace's canvas size; the images are scaled to fill it.

      --trace FILE  the stroke trace to replay
      --cover FILE  the cover image; default: the built-in one
      --prize FILE  the prize image; default: the built-in one
      --deck PATH   with --card: replay over that deck's zone card (a ticket), its
                    zones started in the order the trace touches them
      --card ID     the zone card's id in the deck
      --out FILE    where to write the card (PNG)
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

/// The options a configuration file may hold: each window option's long name and kind.
let configSchema: [String: ConfigValueKind] = [
    "cover": .path, "prize": .path, "cover-text": .string, "brush": .number, "scale": .number, "size": .string,
    "no-shm": .flag, "title": .string, "display": .string, "record": .path, "stats": .flag,
    "verbose": .flag, "reveal-at": .number, "deck": .path, "snapshot-dir": .path, "events": .flag, "log": .path,
    "kiosk": .flag, "idle-reset": .number, "abandon-reset": .number, "exit-chord": .string, "max-fingers": .number,
    "max-fps": .number,
    "sound": .string, "volume": .number, "celebrate": .string,
    "store": .path, "sold-out": .path, "pool": .string, "kiosk-id": .string,
    "claim-key": .path, "print-claims": .string,
]

/// Reads the command line (without the program name). Window options may also come
/// from a configuration file (`--config FILE`, else the default path in `environment`);
/// the command line wins over the file.
func parseCommand(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError) -> Command {
    let tokens = tokenize(arguments)
    if tokens.first == "render" { return try parseRender(tokens.dropFirst()) }
    if tokens.first == "log-summary" {
        let rest = Array(tokens.dropFirst())
        if rest == ["-h"] || rest == ["--help"] { return .help(logSummaryUsage) }
        let picks = rest.contains("--picks"), files = rest.filter { $0 != "--picks" }
        if let unknown = files.first(where: { $0.hasPrefix("--") }) {
            throw UsageError(message: "log-summary: unknown option '\(unknown.prefix(40))'")
        }
        guard files.count == 1, !files[0].isEmpty else { throw UsageError(message: "log-summary takes one FILE") }
        return .logSummary(path: files[0], picks: picks)
    }
    if tokens.first == "doodle" { return try parseDoodle(tokens.dropFirst()) }
    if tokens.first == "stock" { return try parseStock(tokens.dropFirst(), environment: environment) }
    if tokens.first == "simulate" { return try parseSimulate(tokens.dropFirst(), environment: environment) }
    if tokens.first == "pool" { return try parsePool(tokens.dropFirst()) }
    if tokens.first == "make-from" { return try parseMakeFrom(tokens.dropFirst()) }
    if ["make", "info", "thumbnail"].contains(tokens.first) { return try parseCardFileCommand(tokens[...]) }
    if tokens.first == "claim-key" { return try parseClaimKey(tokens.dropFirst()) }
    if tokens.first == "redeem" { return try parseRedeem(tokens.dropFirst()) }
    if tokens.first == "claims" { return try parseClaims(tokens.dropFirst(), environment: environment) }

    var configPath: String?
    if let i = tokens.firstIndex(of: "--config"), tokens.firstIndex(of: "--") ?? tokens.endIndex > i {
        guard i + 1 < tokens.count, !tokens[i + 1].isEmpty else { throw UsageError(message: "--config needs a value") }
        configPath = tokens[i + 1]
    } else {
        configPath = ConfigFile.defaultPath(environment: environment)
    }
    guard let configPath else { return try parseWindow(tokens[...]) }

    let fromFile: [String]
    do { fromFile = try ConfigFile.arguments(path: configPath, schema: configSchema) } catch {
        throw UsageError(message: "\(error)")
    }
    // Check the file's values on their own, so that a bad one is blamed on the file.
    do { _ = try parseWindow(fromFile[...]) } catch { throw UsageError(message: "\(configPath): \(error.message)") }
    let command = try parseWindow((fromFile + tokens)[...])
    guard case .window(var options) = command else { return command }
    options.config = configPath
    return .window(options)
}

func parseWindow(_ tokens: ArraySlice<String>) throws(UsageError) -> Command {
    var tokens = tokens
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
        case "--cover-text":
            let text = try value()
            if let problem = CardText.problem(with: text) { throw UsageError(message: "--cover-text \(problem)") }
            options.coverText = text
        case "--brush": options.brushPoints = try positiveNumber(value(), token, upTo: 10_000)
        case "--scale": options.scale = try positiveNumber(value(), token, upTo: 64)
        case "--size": options.size = try parseSize(value(), token)
        case "--no-shm": options.useSharedMemory = false
        case "--title": options.title = try value()
        case "--display": options.display = try nonEmpty(value(), token)
        case "--record": options.record = try nonEmpty(value(), token)
        case "--stats": options.stats = true
        case "--verbose", "-v": options.verbose = true
        case "--reveal-at": options.revealAtPercent = try positiveNumber(value(), token, upTo: 100)
        case "--deck": options.deck = try nonEmpty(value(), token)
        case "--snapshot-dir": options.snapshotDirectory = try nonEmpty(value(), token)
        case "--events": options.events = true
        case "--log": options.log = try nonEmpty(value(), token)
        case "--store": options.store = try nonEmpty(value(), token)
        case "--sold-out": options.soldOut = try nonEmpty(value(), token)
        case "--pool": options.pool = try nonEmpty(value(), token)
        case "--kiosk-id": options.kioskID = try kioskID(value(), token)
        case "--claim-key": options.claimKey = try nonEmpty(value(), token)
        case "--print-claims": options.printClaims = try nonEmpty(value(), token)
        case "--kiosk": options.kiosk = true
        case "--idle-reset": options.idleReset = try positiveNumber(value(), token, upTo: 86_400)
        case "--abandon-reset": options.abandonReset = try positiveNumber(value(), token, upTo: 86_400)
        case "--exit-chord":
            options.exitChord = try value()
            guard KeyChord(parsing: options.exitChord) != nil else {
                throw UsageError(message: "--exit-chord takes modifiers and a key, like ctrl+alt+shift+q, not '\(options.exitChord.prefix(40))'")
            }
        case "--max-fingers": options.maxFingers = try wholeNumber(value(), token, in: 1...10)
        case "--max-fps": options.maxFPS = try number(value(), token, in: FramePacer.rates)
        case "--sound": options.sound = try onOff(value(), token)
        case "--volume": options.volumePercent = try percent(value(), token)
        case "--celebrate": options.celebrate = try onOff(value(), token)
        case "--config": _ = try value()         // read before the rest, in parseCommand
        case "--": if let file = tokens.popFirst(), tokens.isEmpty { (options.deck, options.openCardFile) = (file, true) } else {
            throw UsageError(message: "-- is followed by one card file")
        }
        default:
            // `scratchcard FILE.scratchcard`: one card file, opened as a deck is.
            if token.hasPrefix("-") || token.isEmpty { throw UsageError(message: "unknown option '\(token)'") }
            if options.openCardFile { throw UsageError(message: "unexpected argument '\(token)' (one card file at a time)") }
            (options.deck, options.openCardFile) = (token, true)
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
        case "--deck": options.deck = try nonEmpty(value(), token)
        case "--card": options.card = try nonEmpty(value(), token)
        case "--out": out = try nonEmpty(value(), token)
        default:
            throw UsageError(message: token.hasPrefix("-") ? "render: unknown option '\(token)'" : "render: unexpected argument '\(token)'")
        }
    }
    guard let trace else { throw UsageError(message: "render needs --trace FILE") }
    guard let out else { throw UsageError(message: "render needs --out FILE.png") }
    guard (options.deck == nil) == (options.card == nil) else { throw UsageError(message: "render: --deck and --card go together") }
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

/// A plain decimal number in `range`; anything else names the option.
func number(_ text: String, _ option: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
    guard let value = Trace.parseDecimal(Substring(text)), range.contains(value) else {
        throw UsageError(message: "\(option) takes a number from \(Int(range.lowerBound)) to \(Int(range.upperBound)), not '\(text.prefix(40))'")
    }
    return value
}

/// `on` or `off`; anything else names the option.
func onOff(_ text: String, _ option: String) throws(UsageError) -> Bool {
    switch text {
    case "on": return true
    case "off": return false
    default: throw UsageError(message: "\(option) takes on or off, not '\(text.prefix(40))'")
    }
}

/// A plain decimal number from 0 to 100.
func percent(_ text: String, _ option: String) throws(UsageError) -> Double {
    guard let value = Trace.parseDecimal(Substring(text)), value >= 0, value <= 100 else {
        throw UsageError(message: "\(option) takes a percentage from 0 to 100, not '\(text.prefix(40))'")
    }
    return value
}

/// A whole number in `range`; anything else names the option.
func wholeNumber(_ text: String, _ option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
    guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), text.count <= 9,
          let value = Int(text), range.contains(value) else {
        throw UsageError(message: "\(option) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text.prefix(40))'")
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
