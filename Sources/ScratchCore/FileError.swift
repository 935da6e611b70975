/// A problem with a file the program reads or writes: its path and what is wrong, in
/// words for the user. Its description reads `"<path>: <message>"`, ready for an error
/// line. Decks, the outcome log and atomic writes all report through it.
public struct FileError: Error, CustomStringConvertible, Equatable, Sendable {
    public let path: String
    public let message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// Why a file could not be written atomically.
public typealias AtomicFileError = FileError

/// Why a deck could not be loaded; the message names the entry (`cards[2] ("coffee")`)
/// where one is at fault.
public typealias DeckError = FileError

/// Why the outcome log could not be opened, appended to or read.
public typealias OutcomeLogError = FileError
