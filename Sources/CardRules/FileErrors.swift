import ScratchCore

/// Why a deck could not be loaded; the message names the entry (`cards[2] ("coffee")`)
/// where one is at fault.
public typealias DeckError = FileError

/// Why the outcome log could not be opened, appended to or read.
public typealias OutcomeLogError = FileError
