@testable import CardRules
import Foundation
import ScratchCore
import Testing

/// A deck card's reveal: its own sound file, none, or the chime; sparks or not.
struct DeckSoundTests {
    @Test("sound: a file (resolved against the deck's folder), null for none, absent for the chime; celebrate: false")
    func soundAndCelebrate() throws {
        let tmp = try TemporaryFolder()
        for name in ["win.png", "sorry.png", "plain.png", "sounds/fanfare.wav"] { try tmp.write(name) }
        let path = try tmp.write("deck.json", """
            {"cards": [
                {"prize": "win.png", "sound": "sounds/fanfare.wav"},
                {"prize": "sorry.png", "sound": null, "celebrate": false},
                {"prize": "plain.png", "celebrate": true}
            ]}
            """)
        let deck = try Deck.load(path: path)
        #expect(deck.cards.map(\.sound) == [.file(tmp.path + "/sounds/fanfare.wav"), DeckSound.none, .chime])
        #expect(deck.cards.map(\.celebrate) == [true, false, true])
    }

    @Test("a bad sound or celebrate value is an error naming the deck and the card", arguments: [
        (#"{"prize": "a.png", "sound": "missing.wav"}"#, "sound file"),
        (#"{"prize": "a.png", "sound": "folder.wav"}"#, "is a folder"),
        (#"{"prize": "a.png", "sound": ""}"#, "sound must be a file name or null"),
        (#"{"prize": "a.png", "sound": 3}"#, "sound must be a file name or null"),
        (#"{"prize": "a.png", "celebrate": "no"}"#, "celebrate must be true or false"),
        (#"{"prize": "a.png", "celebrate": null}"#, "celebrate must be true or false"),
    ])
    func badValues(entry: String, message: String) throws {
        let tmp = try TemporaryFolder()
        try tmp.write("a.png")
        try FileManager.default.createDirectory(atPath: tmp.path + "/folder.wav", withIntermediateDirectories: true)
        let path = try tmp.write("deck.json", #"{"cards": ["# + entry + "]}")
        let error = deckError { () throws(DeckError) in try Deck.load(path: path) }
        #expect(error?.path == path)
        #expect(error?.message.contains("cards[0] (\"a\")") == true, "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }
}
