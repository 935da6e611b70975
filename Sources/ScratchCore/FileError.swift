/// A problem with a file the program reads or writes: its path and what is wrong, in
/// words for the user. Its description reads `"<path>: <message>"`, ready for an error
/// line. Atomic writes report through it, and so do the card's rules (decks, the outcome log).
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
