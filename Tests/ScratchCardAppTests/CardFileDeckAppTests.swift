import Foundation
@preconcurrency import Glibc
import Testing
import CardFile
import CardRules
import Claims
import ScratchCore
import XvfbSupport

/// `scratchcard make --deck` packs the whole deck: every key the deck file has comes out
/// of the card file (a zone ticket with its symbol and decoy images as entries, a claim
/// card), as `info`, the card file's deck and the window show.
@Suite(.serialized) struct CardFileDeckAppTests {
    /// The card as it names its files by their names alone (a deck's are absolute paths
    /// beside the deck file, a card file's are the file's path and the entry's name).
    static func withFileNames(_ card: DeckCard) -> DeckCard {
        func name(_ file: String) -> String { String(file.split(separator: "/").last ?? "") }
        func symbol(_ symbol: ZoneSymbol) -> ZoneSymbol {
            if case .image(let file) = symbol { return .image(name(file)) }
            return symbol
        }
        var sound = card.sound
        if case .file(let file) = sound { sound = .file(name(file)) }
        return DeckCard(id: card.id, prize: card.prize.map(name), cover: card.cover.map(name), weight: card.weight, sound: sound,
                        celebrate: card.celebrate, text: card.text, coverText: card.coverText, stock: card.stock, claim: card.claim,
                        zoneCard: card.zoneCard.map { ZoneCard(zones: $0.zones, pick: $0.pick, symbols: $0.symbols.map(symbol),
                                                               decoys: $0.decoys.map(symbol)) })
    }

    @Test("make --deck with a zone ticket (symbol and decoy images) and a claim card: the images packed as entries, info --show-prizes shows both, the card file's deck is the deck (file names aside), the window refuses it without a claim key and shows the packed symbols with one")
    func zonesAndClaimSurvive() throws {
        let folder = try App.scratchFolder(); defer { try? FileManager.default.removeItem(at: folder) }
        var symbols: [String] = []
        for (i, colour) in ZoneTicketAppTests.symbolColours.enumerated() {
            _ = try App.solidPNG(colour, size: PixelSize(width: 20, height: 20), in: folder, name: "s\(i).png")
            symbols.append("\"s\(i).png\"")
        }
        _ = try App.solidPNG(ZoneTicketAppTests.decoyColour, size: PixelSize(width: 20, height: 20), in: folder, name: "decoy.png")
        let decoys = Array(repeating: "\"decoy.png\"", count: 5) + [##"{"text": "🍋", "color": "#FFCC00"}"##]
        let deckPath = folder.appendingPathComponent("deck.json").path
        try Data("""
            {"cover-text": "PICK 3", "cards": [
              {"id": "ticket", "grid": {"x": 40, "y": 110, "w": 560, "h": 270, "columns": 3, "rows": 3, "gap": 15},
               "pick": 3, "symbols": [\(symbols.joined(separator: ", "))], "decoys": [\(decoys.joined(separator: ", "))], "celebrate": false, "sound": null},
              {"id": "bike", "text": "Bike", "subtitle": "at the counter", "claim": true, "weight": 0, "stock": 3}]}
            """.utf8).write(to: URL(fileURLWithPath: deckPath))
        let original = try Deck.load(path: deckPath)
        let file = folder.appendingPathComponent("ticket.scratchcard").path
        try CardFileAppTests.make(["--deck", deckPath], out: file)

        // The card file: the images entries, each the file it was made of; its deck the deck's;
        // last, the picture of the ticket's printed cover a thumbnailer shows.
        let card = try CardFile.open(path: file)
        #expect(card.container.names == ["mimetype", "card.json", "s0.png", "s1.png", "s2.png", "decoy.png", CardFile.previewEntry])
        #expect(card.deck.cards.map(Self.withFileNames) == original.cards.map(Self.withFileNames))
        #expect(card.deck.cards[1].claim && card.deck.cards[0].zoneCard?.symbols.count == 3)
        for name in ["s0.png", "s1.png", "s2.png", "decoy.png"] {
            let entry = try card.entries.bytes(of: file + "/" + name, limit: 1 << 20)
            #expect(Data(entry) == (try Data(contentsOf: folder.appendingPathComponent(name))), "entry \(name)")
        }

        let shown = try runToExit(["info", "--show-prizes", file])
        #expect(shown.status == 0, "\(shown.err)")
        for said in [#"id "ticket""#, "9 zones (pick 3)", #"symbols ["s0.png", "s1.png", "s2.png"]"#,
                     #"decoys ["decoy.png", "decoy.png", "decoy.png", "decoy.png", "decoy.png", "🍋"]"#,
                     #"id "bike""#, #"text "Bike" subtitle "at the counter" with a claim code"#, "stock 3", "weight 0"] {
            #expect(shown.out.contains(said), "--show-prizes lacks \(said): \(shown.out)")
        }
        let plain = try runToExit(["info", file])
        #expect(plain.status == 0 && plain.out.contains("9 zones (pick 3)"), "\(plain.out)")
        for secret in ["bike", "Bike", "s0.png", "decoy", "claim", "🍋"] { #expect(!plain.out.contains(secret), "info gives away \(secret)") }

        // The claim card is a claim in the window too: no key, no window.
        let refused = try runToExit(["--deck", file])
        #expect(refused.status == 2 && refused.err.contains("\"bike\" is a claim"), "\(refused.err)")

        // With the key, the ticket (the claim card weighs 0) shows the symbols from the
        // card file: the images beside the deck are gone.
        for name in ["s0.png", "s1.png", "s2.png", "decoy.png", "deck.json"] {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
        let key = folder.appendingPathComponent("promo.key").path
        _ = try ClaimKey.createFile(at: key)
        let server = try Xvfb(width: 800, height: 600); defer { server.stop() }
        let app = try RunningApp(["--deck", file, "--claim-key", key] + ZoneTicketAppTests.arguments, environment: server.environment)
        let window = try server.scratchcardWindow(timeout: 30)
        #expect(waitUntil(timeout: 30) { app.eventNames.contains("ready") }, "\(app.standardError)")
        for (n, zone) in [4, 0].enumerated() {
            let (x, y) = ZoneTicketAppTests.centre(zone)
            try server.drag(window: window, from: (x - 5, y), through: [(x + 5, y)])
            let image = try server.waitForPixels(window: window, timeout: 10) { $0[x, y] == ZoneTicketAppTests.symbolColours[n] }
            #expect(image[x, y] == ZoneTicketAppTests.symbolColours[n], "zone \(zone), the \(n + 1)th touched: \(image[x, y])")
        }
        kill(app.pid, SIGTERM)
        #expect(app.wait(timeout: 20) == 0, "\(app.standardError)")
        #expect(app.events.compactMap { $0["card"] as? String }.allSatisfy { $0 == "ticket" })
    }
}
