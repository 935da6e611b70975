/// The thumbnail command's arguments, `[--size N] FILE.scratchcard OUT.png`, read the same
/// way by `scratchcard thumbnail` and by `scratchcard-thumbnailer`.
public enum ThumbnailArguments: Equatable, Sendable {
    case help(String)
    case run(size: Int, input: String, output: String)

    /// A bad command line: the message says what is wrong (exit 2).
    public struct Problem: Error {
        public let message: String
    }

    /// The usage text, `program` being how the command is called ("scratchcard thumbnail").
    public static func usage(program: String) -> String {
        """
        usage: \(program) [--size N] FILE.scratchcard OUT.png

        Writes a card file's cover as a PNG picture, N pixels on its longer side (default
        256): fresh foil, nothing of the prize. A drawn cover (the built-in foil, a
        ticket) is the picture scratchcard make stores in the file (Thumbnails/cover.jpg).
        Needs no display; a file manager's thumbnailer runs it
        (share/thumbnailers/scratchcard.thumbnailer). OUT.png is written in place, not
        replaced.

        options:
          --size N         the longer side in pixels, 1 to 4096 (default 256)
          -h, --help       show this help and exit
        """
    }

    /// Reads the arguments after the command's name; `name` starts the messages.
    public static func parse(_ tokens: ArraySlice<String>, name: String, program: String) throws(Problem) -> ThumbnailArguments {
        var tokens = tokens
        var size = 256
        var files: [String] = []
        while let token = tokens.popFirst() {
            switch token {
            case "-h", "--help": return .help(usage(program: program))
            case "--size":
                guard let text = tokens.popFirst() else { throw Problem(message: "\(name): \(token) needs a value") }
                guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), text.count <= 9,
                      let value = Int(text), (1...4096).contains(value) else {
                    throw Problem(message: "--size takes a whole number from 1 to 4096, not '\(text.prefix(40))'")
                }
                size = value
            case "--": files.append(contentsOf: tokens); tokens = []
            default:
                if token.hasPrefix("-") { throw Problem(message: "\(name): unknown option '\(token)'") }
                files.append(token)
            }
        }
        guard files.count == 2, !files[0].isEmpty, !files[1].isEmpty else {
            throw Problem(message: "\(name) takes a card file and the PNG to write")
        }
        return .run(size: size, input: files[0], output: files[1])
    }
}
