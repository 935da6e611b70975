@testable import CardRules
import Foundation
import ScratchCore
import Testing

struct DeckImageNameTests {
    @Test("a folder deck takes JPEG and WebP files beside PNGs (any case), nothing else")
    func folderDeckTakesJPEGAndWebP() throws {
        let tmp = try TemporaryFolder()
        for name in ["a.png", "b.JPG", "c.jpeg", "d.WebP", "e.jpe", "f.gif", "g.webp.txt", "jpg"] { try tmp.write("cards/" + name) }
        let deck = try Deck.load(path: tmp.path + "/cards")
        #expect(deck.cards.map(\.id) == ["a", "b", "c", "d"])
        #expect(deck.cards.map(\.prize) == ["a.png", "b.JPG", "c.jpeg", "d.WebP"].map { tmp.path + "/cards/" + $0 })
    }
}
