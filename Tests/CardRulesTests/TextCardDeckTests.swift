@testable import CardRules
import Foundation
import ScratchCore
import Testing

/// Text cards and cover-text in deck files: what they hold, and what each mistake says.
struct TextCardDeckTests {
    @Test("text cards: words in any script, an optional subtitle, colours, over an optional image; cover-text deck-wide and per card")
    func textCards() throws {
        let tmp = try TemporaryFolder()
        try tmp.write("beans.png")
        try tmp.write("foil.png")
        let file = try tmp.write("deck.json", #"""
            {"cover-text": "Rub here", "cards": [
              {"id": "coffee", "text": "Free coffee", "subtitle": "Show this at the counter", "weight": 3},
              {"id": "tea", "text": "شاي مجاني", "color": "#ffffff", "background": "#2E7D32", "cover-text": "刮开这里"},
              {"text": "恭喜中奖", "prize": "beans.png"},
              {"id": "own-foil", "text": "Café crème", "cover": "foil.png"},
              {"id": "picture", "prize": "beans.png"}
            ]}
            """#)
        let deck = try Deck.load(path: file)
        #expect(deck.cards.map(\.id) == ["coffee", "tea", "beans", "own-foil", "picture"])
        #expect(deck.cards[0].text == CardText(title: "Free coffee", subtitle: "Show this at the counter"))
        #expect(deck.cards[0].prize == nil && deck.cards[0].weight == 3)
        #expect(deck.cards[1].text == CardText(title: "شاي مجاني", colour: RGBA(r: 255, g: 255, b: 255),
                                               background: RGBA(r: 0x2E, g: 0x7D, b: 0x32)))
        #expect(deck.cards[2].text?.title == "恭喜中奖" && deck.cards[2].prize == tmp.path + "/beans.png")
        #expect(deck.cards[4].text == nil)
        // The card's own cover-text wins over the deck's; a card with its own cover image has none.
        #expect(deck.cards.map(\.coverText) == ["Rub here", "刮开这里", "Rub here", nil, "Rub here"])
    }

    static let broken: [(json: String, message: String)] = [
        (#"{"cards": [{"text": "Free"}]}"#, #"cards[0]: a text card needs an "id""#),
        (#"{"cards": [{"id": "a", "text": ""}]}"#, #"cards[0] ("a"): text is empty"#),
        (#"{"cards": [{"id": "a", "text": "   "}]}"#, #"cards[0] ("a"): text is empty"#),
        (#"{"cards": [{"id": "a", "text": 5}]}"#, #"cards[0] ("a"): text must be a string, not 5"#),
        (#"{"cards": [{"id": "a", "text": "\#(String(repeating: "长", count: 201))"}]}"#,
         #"cards[0] ("a"): text has 201 characters; at most 200"#),
        (#"{"cards": [{"id": "a", "text": "ok", "subtitle": "\#(String(repeating: "x", count: 250))"}]}"#,
         #"cards[0] ("a"): subtitle has 250 characters; at most 200"#),
        (#"{"cards": [{"id": "a", "text": "tab\there"}]}"#, #"cards[0] ("a"): text holds the control character U+0009"#),
        (##"{"cards": [{"id": "a", "text": "ok", "color": "red"}]}"##, ##"cards[0] ("a"): color must be a colour as #RRGGBB, not "red""##),
        (##"{"cards": [{"id": "a", "text": "ok", "color": "#12345"}]}"##, ##"cards[0] ("a"): color must be a colour as #RRGGBB, not "#12345""##),
        (##"{"cards": [{"id": "a", "text": "ok", "background": "#GG0000"}]}"##,
         ##"cards[0] ("a"): background must be a colour as #RRGGBB, not "#GG0000""##),
        (##"{"cards": [{"id": "a", "text": "ok", "background": 255}]}"##, ##"cards[0] ("a"): background must be a colour as #RRGGBB, not 255"##),
        (#"{"cards": [{"prize": "a.png", "subtitle": "hello"}]}"#, #"cards[0] ("a"): subtitle belongs to a text card; add a "text""#),
        (##"{"cards": [{"prize": "a.png", "color": "#FFFFFF"}]}"##, ##"cards[0] ("a"): color belongs to a text card; add a "text""##),
        (#"{"cards": [{"prize": "a.png", "cover": "a.png", "cover-text": "Rub"}]}"#,
         #"cards[0] ("a"): cover-text is drawn on the built-in foil, and this card has a cover image of its own"#),
        (#"{"cards": [{"prize": "a.png", "cover-text": ""}]}"#, #"cards[0] ("a"): cover-text is empty"#),
        (#"{"cover-text": 3, "cards": [{"prize": "a.png"}]}"#, #"cover-text must be a string, not 3"#),
        (#"{"cover-text": "\#(String(repeating: "y", count: 201))", "cards": [{"prize": "a.png"}]}"#,
         #"cover-text has 201 characters; at most 200"#),
    ]

    @Test("each mistake in a text card names the deck and the entry", arguments: broken.indices)
    func brokenTextCard(_ index: Int) throws {
        let (json, message) = Self.broken[index]
        let tmp = try TemporaryFolder()
        try tmp.write("a.png")
        let file = try tmp.write("deck.json", json)
        let error = deckError { () throws(DeckError) in try Deck.load(path: file) }
        #expect(error == DeckError(path: file, message: message))
    }

    @Test("#RRGGBB in either case; nothing else is a colour")
    func colours() {
        #expect(CardText.colour(parsing: "#2e7D32") == RGBA(r: 0x2E, g: 0x7D, b: 0x32))
        #expect(CardText.colour(parsing: "#000000") == .black)
        for bad in ["", "#", "2E7D32", "#2E7D3", "#2E7D321", "#2E7D3G", "#+E7D32", " #2E7D32", "#２E7D32"] {
            #expect(CardText.colour(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("200 characters as a reader counts them: a flag or an accented letter is one")
    func characterLimit() {
        #expect(CardText.problem(with: String(repeating: "🇫🇷", count: 200)) == nil)
        #expect(CardText.problem(with: String(repeating: "e\u{301}", count: 200)) == nil)
        #expect(CardText.problem(with: String(repeating: "a", count: 201)) != nil)
        #expect(CardText.problem(with: "two\nlines") == nil)
    }
}
