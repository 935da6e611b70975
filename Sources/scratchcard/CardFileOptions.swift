import CardRules
import CardThumbnail
import ScratchCore

/// `scratchcard make`, `info` and `thumbnail`: the card file's commands, as read from
/// the command line (run in CardFileCommands.swift and Thumbnail.swift).
enum CardFileCommand: Equatable {
    case make(MakeOptions)
    case info(path: String, showPrizes: Bool)
    case thumbnail(size: Int, input: String, output: String)
    case makeFrom(picture: String, open: Bool)
}

/// Options of `scratchcard make`.
struct MakeOptions: Equatable {
    var out = ""
    var force = false
    var deck: String?
    var prize: String?
    var cover: String?
    var coverText: String?
    var text: String?
    var subtitle: String?
    var settings = CardSettings()
}

let makeUsage = """
    usage: scratchcard make --out FILE.scratchcard [--force] [card options]
           scratchcard make --out FILE.scratchcard [--force] --deck PATH [card options]

    Makes a card file: one file holding a card (or a deck of cards) with its images and
    sounds, to send to someone or double-click. It checks what the window would check
    (every image and sound decodes, words fit), writes the file atomically and prints
    its path.

    options:
      --out FILE       the card file to write (name it .scratchcard)
      --force          replace FILE if it exists (otherwise it is never overwritten)
      --prize FILE     the prize image (PNG, JPEG or WebP); default: the built-in prize
      --cover FILE     the cover image; default: the built-in silver foil
      --cover-text TEXT  words on the built-in foil in place of SCRATCH HERE
      --text TEXT      a text card: these words are the prize (over --prize if given)
      --subtitle TEXT  a second, smaller line under --text
      --deck PATH      pack a whole deck instead: a folder of images, a JSON deck file
                       (man scratchcard) or another card file; its images and sounds
                       go in
      --reveal-at PCT  reveal the whole card once PCT percent is scratched
      --brush PT       brush radius in points
      --celebrate on|off  sparks over a revealed card
      -h, --help       show this help and exit
    """

let makeFromUsage = """
    usage: scratchcard make-from [--no-open] PICTURE

    Makes a scratch card of a picture (PNG, JPEG or WebP): a card file with the picture
    as its prize under the built-in silver foil, named after it beside it (photo.jpg
    gives photo.scratchcard; an existing file is never replaced: photo-2.scratchcard,
    photo-3.scratchcard, ...). When the picture's folder cannot be written, the card
    goes into the documents folder (XDG_DOCUMENTS_DIR in user-dirs.dirs), else home.
    Prints the card file's path, then opens it in the window. A file manager's "Open
    with" > "Make a scratch card" runs it.

    options:
      --no-open        write the card file and print its path; open no window
      -h, --help       show this help and exit
    """

let infoUsage = """
    usage: scratchcard info [--show-prizes] FILE.scratchcard

    Says what a card file holds without giving the prize away: how many cards, the card
    size, the cover text, each card's cover, weight and stock, and the file's size.

    options:
      --show-prizes    also show each card's id, prize image and a text card's words
      -h, --help       show this help and exit
    """

/// `scratchcard thumbnail --help` (the text lives with the command, Sources/CardThumbnail).
let thumbnailUsage = ThumbnailArguments.usage(program: "scratchcard thumbnail")

/// Reads `make-from` and its arguments (after the command's name).
func parseMakeFrom(_ tokens: ArraySlice<String>) throws(UsageError) -> Command {
    var tokens = tokens
    var open = true
    var files: [String] = []
    while let token = tokens.popFirst() {
        switch token {
        case "-h", "--help": return .help(makeFromUsage)
        case "--no-open": open = false
        case "--": files.append(contentsOf: tokens); tokens = []
        case _ where token.hasPrefix("-"): throw UsageError(message: "make-from: unknown option '\(token)'")
        default: files.append(token)
        }
    }
    guard files.count == 1, !files[0].isEmpty else { throw UsageError(message: "make-from takes one PICTURE") }
    return .cardFile(.makeFrom(picture: files[0], open: open))
}

/// Reads `make`, `info` or `thumbnail` and its arguments (the command's name first).
func parseCardFileCommand(_ tokens: ArraySlice<String>) throws(UsageError) -> Command {
    var tokens = tokens
    let name = tokens.popFirst() ?? ""
    if name == "thumbnail" {
        do {
            switch try ThumbnailArguments.parse(tokens, name: name, program: "scratchcard thumbnail") {
            case .help(let text): return .help(text)
            case .run(let size, let input, let output): return .cardFile(.thumbnail(size: size, input: input, output: output))
            }
        } catch { throw UsageError(message: error.message) }
    }
    var make = MakeOptions()
    var showPrizes = false
    var files: [String] = []
    while let token = tokens.popFirst() {
        func value() throws(UsageError) -> String {
            guard let next = tokens.popFirst() else { throw UsageError(message: "\(name): \(token) needs a value") }
            return next
        }
        func words() throws(UsageError) -> String {
            let text = try value()
            if let problem = CardText.problem(with: text) { throw UsageError(message: "\(name): \(token) \(problem)") }
            return text
        }
        switch (name, token) {
        case (_, "-h"), (_, "--help"): return .help(name == "make" ? makeUsage : infoUsage)
        case ("make", "--out"): make.out = try nonEmpty(value(), token)
        case ("make", "--force"): make.force = true
        case ("make", "--deck"): make.deck = try nonEmpty(value(), token)
        case ("make", "--prize"): make.prize = try nonEmpty(value(), token)
        case ("make", "--cover"): make.cover = try nonEmpty(value(), token)
        case ("make", "--cover-text"): make.coverText = try words()
        case ("make", "--text"): make.text = try words()
        case ("make", "--subtitle"): make.subtitle = try words()
        case ("make", "--reveal-at"): make.settings.revealAtPercent = try positiveNumber(value(), token, upTo: 100)
        case ("make", "--brush"): make.settings.brushPoints = try positiveNumber(value(), token, upTo: 10_000)
        case ("make", "--celebrate"): make.settings.celebrate = try onOff(value(), token)
        case ("info", "--show-prizes"): showPrizes = true
        case ("make", "--"): throw UsageError(message: "make: unexpected argument '--'")
        case (_, "--"): files.append(contentsOf: tokens); tokens = []
        default:
            if token.hasPrefix("-") || name == "make" {
                throw UsageError(message: token.hasPrefix("-") ? "\(name): unknown option '\(token)'" : "\(name): unexpected argument '\(token)'")
            }
            files.append(token)
        }
    }
    switch name {
    case "make":
        guard !make.out.isEmpty else { throw UsageError(message: "make needs --out FILE.scratchcard") }
        if make.deck != nil, let other = [("--prize", make.prize), ("--cover", make.cover), ("--text", make.text),
                                          ("--subtitle", make.subtitle), ("--cover-text", make.coverText)].first(where: { $0.1 != nil }) {
            throw UsageError(message: "make: --deck packs a whole deck; \(other.0) belongs to a single card")
        }
        if make.subtitle != nil && make.text == nil { throw UsageError(message: "make: --subtitle belongs to a text card; add --text") }
        if make.coverText != nil && make.cover != nil {
            throw UsageError(message: "make: --cover-text is drawn on the built-in foil, and --cover gives a cover image")
        }
        return .cardFile(.make(make))
    default:
        guard files.count == 1, !files[0].isEmpty else { throw UsageError(message: "info takes one card file") }
        return .cardFile(.info(path: files[0], showPrizes: showPrizes))
    }
}
