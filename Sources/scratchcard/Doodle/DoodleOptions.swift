import ScratchCore
import ScratchX11

/// Options of `scratchcard doodle`.
struct DoodleOptions: Equatable {
    var image = ""
    var out: String?
    var colour = DoodlePen.palette[0]
    /// The pen's width (the line's thickness, a dot's diameter) in points.
    var widthPoints = DoodlePen.defaultWidth
    var scale: Double?
    var display: String?
    /// Draw this trace with no display (needs `out`).
    var trace: String?
    var useSharedMemory = true
    /// Puts a second at most (`--max-fps`); nil: the monitor's refresh rate.
    var maxFPS: Double?
    /// Print the loop's counters on exit (`--stats`, on stderr: stdout has the saved paths).
    var stats = false
}

/// The pen's palette (keys 1 to 9) and widths (keys + and -).
enum DoodlePen {
    static let palette: [RGBA] = [
        RGBA(r: 0xE5, g: 0x39, b: 0x35),   // 1 red
        RGBA(r: 0xFB, g: 0x8C, b: 0x00),   // 2 orange
        RGBA(r: 0xFD, g: 0xD8, b: 0x35),   // 3 yellow
        RGBA(r: 0x43, g: 0xA0, b: 0x47),   // 4 green
        RGBA(r: 0x1E, g: 0x88, b: 0xE5),   // 5 blue
        RGBA(r: 0x8E, g: 0x24, b: 0xAA),   // 6 purple
        RGBA(r: 0x00, g: 0x00, b: 0x00),   // 7 black
        RGBA(r: 0xFF, g: 0xFF, b: 0xFF),   // 8 white
        RGBA(r: 0x80, g: 0x80, b: 0x80),   // 9 grey
    ]
    static let defaultWidth = 8.0
    static let widthRange = 1.0...200.0
    /// The widths that + and - step through.
    static let widthSteps: [Double] = [1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 100, 128, 160, 200]

    static func wider(_ width: Double) -> Double { widthSteps.first { $0 > width } ?? widthRange.upperBound }
    static func narrower(_ width: Double) -> Double { widthSteps.last { $0 < width } ?? widthRange.lowerBound }
}

let doodleUsage = """
    usage: scratchcard doodle IMAGE [--out FILE] [--color #RRGGBB] [--width PT]
                                    [--scale F] [--display NAME] [--no-shm]
                                    [--max-fps N] [--stats]
           scratchcard doodle IMAGE --trace FILE --out FILE [--color #RRGGBB] [--width PT]

    Draw over a picture (PNG, JPEG or WebP; a JPEG turned upright by its EXIF
    orientation). The window shows it at its size in points (a 96-dpi picture: 2 pixels
    a picture pixel at scale 2), scaled down to fit the screen when larger; drag to draw
    a line, click to make a dot. The export has the picture's own size, upright,
    whatever the window showed.

    options:
      --out FILE       where `s` saves (and quitting saves too): a JPEG (quality 92)
                       when FILE ends in .jpg or .jpeg, else a PNG. It may name the
                       input only on purpose. Without it, `s` writes IMAGE-doodle.png
                       in the current folder, numbered (-2, -3, ...) so no file is
                       overwritten
      --color #RRGGBB  the pen's colour (default #E53935, the palette's 1)
      --width PT       the pen's width in points, 1 to 200 (default 8): a line's
                       thickness, a dot's diameter; pixels = points x scale
      --scale F        display scale factor (default: as for the scratch card)
      --display NAME   X display to use (default: $DISPLAY)
      --no-shm         draw with plain XPutImage instead of MIT-SHM
      --max-fps N      put at most N frames a second on screen, 1 to 1000 (default:
                       the refresh rate of the monitor the window is on, as for the
                       scratch card); every event still strokes the drawing
      --stats          print events, puts and the pacing's counters on stderr on exit
      --trace FILE     draw a stroke trace with no display and write --out. Its points
                       are in the trace canvas's pixels, scaled to the image when the
                       sizes differ; the pen is --color and --width (width in image
                       pixels) when given, else the trace's brush records
      -h, --help       show this help and exit

    keys: 1-9 colour, + and - width, u or Ctrl+Z undo, c clear, s save, q or Escape quit.
    """

/// Reads the tokens after `doodle`.
func parseDoodle(_ tokens: ArraySlice<String>) throws(UsageError) -> Command {
    var tokens = tokens
    var options = DoodleOptions()
    var image: String?
    var widthGiven = false
    var onlyPositional = false
    while let token = tokens.popFirst() {
        func value() throws(UsageError) -> String {
            guard let next = tokens.popFirst() else { throw UsageError(message: "doodle: \(token) needs a value") }
            return next
        }
        if onlyPositional || !token.hasPrefix("-") || token == "-" {
            guard image == nil else { throw UsageError(message: "doodle: unexpected argument '\(token.prefix(80))' (one image only)") }
            image = try nonEmpty(token, "IMAGE")
            continue
        }
        switch token {
        case "--": onlyPositional = true
        case "-h", "--help": return .help(doodleUsage)
        case "--out", "-o": options.out = try nonEmpty(value(), token)
        case "--color", "--colour": options.colour = try parseColour(value(), token)
        case "--width":
            options.widthPoints = try parseWidth(value(), token)
            widthGiven = true
        case "--scale": options.scale = try positiveNumber(value(), token, upTo: 64)
        case "--display": options.display = try nonEmpty(value(), token)
        case "--trace": options.trace = try nonEmpty(value(), token)
        case "--no-shm": options.useSharedMemory = false
        case "--max-fps": options.maxFPS = try number(value(), token, in: FramePacer.rates)
        case "--stats": options.stats = true
        default: throw UsageError(message: "doodle: unknown option '\(token.prefix(80))'")
        }
    }
    guard let image else { throw UsageError(message: "doodle needs an IMAGE (PNG, JPEG or WebP) to draw on") }
    options.image = image
    if options.trace != nil && options.out == nil { throw UsageError(message: "doodle --trace needs --out FILE") }
    if options.trace != nil && !widthGiven { options.widthPoints = 0 }   // 0: the trace's own brush
    return .doodle(options)
}

/// `#RRGGBB` (hex digits in either case).
func parseColour(_ text: String, _ option: String) throws(UsageError) -> RGBA {
    let digits = Array(text.utf8.dropFirst())
    func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
    let values = digits.compactMap(hex)
    guard text.hasPrefix("#"), digits.count == 6, values.count == 6 else {
        throw UsageError(message: "\(option) takes a colour as #RRGGBB (six hex digits), not '\(text.prefix(40))'")
    }
    return RGBA(r: values[0] << 4 | values[1], g: values[2] << 4 | values[3], b: values[4] << 4 | values[5])
}

/// A width in points from 1 to 200.
func parseWidth(_ text: String, _ option: String) throws(UsageError) -> Double {
    guard let value = Trace.parseDecimal(Substring(text)), DoodlePen.widthRange.contains(value) else {
        throw UsageError(message: "\(option) takes a width in points from 1 to 200, not '\(text.prefix(40))'")
    }
    return value
}
