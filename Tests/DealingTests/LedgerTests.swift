import CardRules
import Claims
import Foundation
@preconcurrency import Glibc
import Testing
import ScratchCore
import ScratchStore
import PostgresSupport
@testable import Dealing

/// The dealing room with no display: every transition of the ledger against a temporary
/// SQLite store (and, below, the suite's real PostgreSQL). No `DISPLAY`, no X server.
@Suite struct LedgerTests {
    /// Text cards: dealt without a file.
    static func card(_ id: String, stock: Int? = nil, weight: Double = 1, claim: Bool = false) -> DeckCard {
        DeckCard(id: id, prize: nil, weight: weight, text: CardText(title: id.uppercased()), stock: stock, claim: claim)
    }

    static func revealed() -> OutcomeRecord {
        OutcomeRecord(shownAt: 0, cardID: "", prize: "", outcome: .revealed, how: .threshold, fraction: 1,
                      revealMilliseconds: 10, durationMilliseconds: 20)
    }

    /// A folder of its own, removed by the caller.
    static func folder() -> String {
        var template = Array("/tmp/dealing-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }

    /// A deck file of `cards` (text cards) in `folder`.
    static func writeDeck(_ cards: [DeckCard], in folder: String, name: String = "deck.json") throws -> String {
        let path = folder + "/" + name
        try Deck(cards: cards)!.json().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A dealer and ledger over a store in `folder`, dealing from `deckPath`.
    static func open(_ folder: String, deck deckPath: String?, pool: String? = nil, claims: ClaimMaker? = nil,
                     outcomeLog: String? = nil, store: Bool = true) throws -> (Dealer, Ledger) {
        // Every test here runs with no display to reach: the room needs none.
        unsetenv("DISPLAY")
        var dealer = try Dealer(options: Dealer.Options(deck: deckPath, deckIsCardFile: false, cover: nil, prize: nil,
                                                        coverText: nil, soldOutImage: nil))
        dealer.claims = claims
        let ledger = try Ledger(options: Ledger.Options(store: store ? folder + "/kiosk.db" : nil, outcomeLog: outcomeLog, pool: pool,
                                                        kioskID: "k1", defaultCover: nil, printClaims: nil, verbose: false),
                                dealer: dealer)
        ledger.supply(&dealer)
        return (dealer, ledger)
    }

    static func readStore(_ folder: String) throws -> KioskStore { try KioskStore(path: folder + "/kiosk.db", access: .read) }

    @Test("without a store: the first card and the next are shown at once; each ended card goes to --log")
    func noStore() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (dealer, ledger) = try Self.open(folder, deck: nil, outcomeLog: folder + "/out.log", store: false)
        let first = try ledger.firstCard(dealer: dealer)
        #expect(first.id == "built-in" && ledger.deal == nil && !ledger.keepsStore)
        #expect(ledger.show(try dealer.deal(), ending: Self.revealed(), onShow: first.id, now: 0) == .show(announcingSoldOut: false, retryDealAt: nil))
        ledger.end(Self.revealed())
        let lines = try String(contentsOfFile: folder + "/out.log", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
    }

    @Test("deal, show, end: each deal committed before it is shown, the card before ending in the same commit; sold out when the stock is gone")
    func dealShowEnd() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deck = try Self.writeDeck([Self.card("bike", stock: 2)], in: folder)
        let (dealer, ledger) = try Self.open(folder, deck: deck)
        let first = try ledger.firstCard(dealer: dealer)
        guard case .stock(let entry, edition: 0) = first.origin else { Issue.record("\(first.origin)"); return }
        #expect(entry.id == "bike")
        let firstDeal = try #require(ledger.deal)
        #expect(try Self.readStore(folder).pendingDeal()?.deal == firstDeal)

        let second = try dealer.deal()
        #expect(ledger.show(second, ending: Self.revealed(), onShow: first.id, now: 0) == .show(announcingSoldOut: false, retryDealAt: nil))
        #expect(ledger.deal != firstDeal)
        let third = try dealer.deal()
        guard case .soldOut = third.origin else { Issue.record("\(third.origin)"); return }
        #expect(ledger.show(third, ending: Self.revealed(), onShow: second.id, now: 0) == .show(announcingSoldOut: true, retryDealAt: nil))
        #expect(ledger.showsSoldOut && ledger.deal == nil)
        let lines = try Self.readStore(folder).stockReport(deck: nil)
        #expect(lines.first { $0.cardID == "bike" }.map { ($0.dealt, $0.revealed, $0.pending) } ?? (0, 0, 0) == (2, 2, 0))
        // Ended once: a second end of the same card changes nothing.
        ledger.end(Self.revealed())
        #expect(try Self.readStore(folder).stockReport(deck: nil).first { $0.cardID == "bike" }?.revealed == 2)
    }

    @Test("a card drawn before the stock ran out elsewhere is not shown: deal again")
    func stockRanOut() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deck = try Self.writeDeck([Self.card("bike", stock: 1), Self.card("thanks", weight: 0.000001)], in: folder)
        let (dealer, ledger) = try Self.open(folder, deck: deck)
        let first = try ledger.firstCard(dealer: dealer)
        #expect(first.id == "bike")
        // A card of the stocked prize made as if drawn before the commit above.
        var stale = first
        stale.claim = nil
        #expect(ledger.show(stale, ending: Self.revealed(), onShow: first.id, now: 0) == .dealAgain)
    }

    @Test("SIGHUP's reload: a card of the old edition is not shown; sold out, then restocked")
    func reload() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deck = try Self.writeDeck([Self.card("bike", stock: 1)], in: folder)
        let (dealer, ledger) = try Self.open(folder, deck: deck)
        let first = try ledger.firstCard(dealer: dealer)
        let soldOut = try dealer.deal()
        #expect(ledger.show(soldOut, ending: Self.revealed(), onShow: first.id, now: 0) == .show(announcingSoldOut: true, retryDealAt: nil))
        let madeBefore = try dealer.deal()       // sold out, of edition 0
        _ = try Self.writeDeck([Self.card("bike", stock: 3)], in: folder)
        #expect(ledger.reloadDeck(deck, asCardFile: false))
        #expect(ledger.restocked)
        #expect(ledger.show(madeBefore, ending: Self.revealed(), onShow: soldOut.id, now: 0) == .dealAgain)
        let fresh = try dealer.deal()
        #expect(fresh.edition == 1 && fresh.id == "bike")
        #expect(ledger.show(fresh, ending: Self.revealed(), onShow: soldOut.id, now: 0) == .show(announcingSoldOut: false, retryDealAt: nil))
        #expect(!ledger.showsSoldOut && !ledger.restocked)
        // A deck that does not load leaves the old one dealing.
        try "{".write(toFile: deck, atomically: true, encoding: .utf8)
        #expect(!ledger.reloadDeck(deck, asCardFile: false))
        #expect(try dealer.deal().id == "bike")
    }

    @Test("a restart takes up the card on show: the same deal, its strokes and reveal; a new deal only after it")
    func resume() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deck = try Self.writeDeck([Self.card("coffee")], in: folder)
        let deal: DealID
        do {
            let (dealer, ledger) = try Self.open(folder, deck: deck)
            let card = try ledger.firstCard(dealer: dealer)
            deal = try #require(ledger.deal)
            ledger.keep(.down(pen: 0, Point(x: 10, y: 10)), canvas: PixelSize(width: 64, height: 40), brush: 4, now: 0)
            ledger.keep(.up(pen: 0), canvas: PixelSize(width: 64, height: 40), brush: 4, now: 0)
            ledger.flushIfDue(now: 1)
            ledger.noticed([.revealed(cardID: card.id, how: .keyboard, fraction: 0.2, milliseconds: 300)], of: card)
        }
        // The first ledger's writer lets go of the store once its queued writes are done.
        var reopened: (Dealer, Ledger)?
        for _ in 0..<100 where reopened == nil {
            reopened = try? Self.open(folder, deck: deck)
            if reopened == nil { usleep(20_000) }
        }
        let (dealer, ledger) = try #require(reopened)
        let card = try ledger.firstCard(dealer: dealer)
        guard case .resumed(let held, _) = card.origin else { Issue.record("\(card.origin)"); return }
        #expect(held.deal == deal && ledger.deal == deal)
        #expect(held.reveal?.how == .keyboard && held.strokes.hasPrefix("c 64 40 4"))
        let session = ledger.firstSession(card: card, revealAt: 0.6, fraction: 0.2, now: 0)
        #expect(session.phase != .fresh && session.phase != .scratching)
    }

    @Test("a claim card's code is made for its deal and recorded in the deal's own commit; the ledger never records a code no book holds")
    func claims() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deck = try Self.writeDeck([Self.card("bike", claim: true)], in: folder)
        let key = try ClaimKey.generate()
        let (dealer, ledger) = try Self.open(folder, deck: deck, claims: ClaimMaker(key: key, kiosk: "k1"))
        let card = try ledger.firstCard(dealer: dealer)
        let claim = try #require(card.claim)
        #expect(claim.deal == ledger.deal)
        #expect(claim.code == key.code(forDeal: claim.deal.text).grouped)
        #expect(try Self.readStore(folder).claimCode(forDeal: claim.deal) == key.code(forDeal: claim.deal.text).text)
        // Without a book of record (no store), a claim card carries no code.
        let (bare, _) = try Self.open(folder + "/none", deck: deck, claims: ClaimMaker(key: key, kiosk: "k1"), store: false)
        #expect(try bare.deal().claim == nil)
    }
}

/// The ledger with the suite's real PostgreSQL: deals taken from the pool on the dealer
/// (the card maker's worker), recorded on show; the pool lost and found again.
@Suite(.serialized) struct LedgerPoolTests {
    static func start() throws -> (PostgresServer, PoolAddress) {
        let server = try PostgresServer()
        setenv("PGPASSFILE", server.passFile, 1)
        return (server, try PoolAddress(server.conninfo, environment: [:]))
    }

    @Test("deal and show through the pool: the first card is taken and recorded as every other; a take not shown is voided")
    func poolDeals() throws {
        let (server, address) = try Self.start()
        defer { server.stop() }
        let folder = LedgerTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cards = [LedgerTests.card("bike", stock: 3), LedgerTests.card("thanks", weight: 0.000001)]
        let deck = try LedgerTests.writeDeck(cards, in: folder)
        try PostgresPool(address: address, kioskID: "init").initialize(deck: Deck(cards: cards))
        let (dealer, ledger) = try LedgerTests.open(folder, deck: deck, pool: server.conninfo)
        let first = try ledger.firstCard(dealer: dealer)
        guard case .pool(let taken, _) = first.origin else { Issue.record("\(first.origin)"); return }
        #expect(ledger.deal == taken.deal && first.id == "bike")
        let second = try dealer.deal()
        #expect(ledger.show(second, ending: LedgerTests.revealed(), onShow: first.id, now: 0) == .show(announcingSoldOut: false, retryDealAt: nil))
        // A third take that will not be shown goes back to the stock.
        let unshown = try dealer.deal()
        guard case .pool(let voided, _) = unshown.origin else { Issue.record("\(unshown.origin)"); return }
        ledger.void(unshown)
        ledger.end(LedgerTests.revealed())
        ledger.closeAtQuit()
        let voids = try server.sql("SELECT count(*) FROM outcomes WHERE deal = '\(voided.deal.text)' AND outcome = 'void'")
        #expect(voids == "1", "\(voids)")
        let report = try PostgresPool(address: address, kioskID: "report").stockReport(deck: nil)
        #expect(report.first { $0.cardID == "bike" }.map { ($0.dealt, $0.revealed) } ?? (0, 0) == (2, 2))
    }

    @Test("the pool lost: back in a moment (no unlimited card), shown once; found again: dealing goes on")
    func poolLostAndFound() throws {
        let (server, address) = try Self.start()
        defer { server.stop() }
        let folder = LedgerTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cards = [LedgerTests.card("bike", stock: 5)]
        let deck = try LedgerTests.writeDeck(cards, in: folder)
        try PostgresPool(address: address, kioskID: "init").initialize(deck: Deck(cards: cards))
        let (dealer, ledger) = try LedgerTests.open(folder, deck: deck, pool: server.conninfo)
        let first = try ledger.firstCard(dealer: dealer)
        server.kill9()
        let away = try dealer.deal()
        guard case .backSoon(let until) = away.origin else { Issue.record("\(away.origin)"); return }
        #expect(ledger.show(away, ending: LedgerTests.revealed(), onShow: first.id, now: 0) == .show(announcingSoldOut: false, retryDealAt: until))
        #expect(ledger.poolOffline && ledger.deal == nil)
        // Still away: the same card stays on show, nothing recorded.
        let again = try dealer.deal()
        if case .backSoon = again.origin {
            guard case .keepCardOnShow = ledger.show(again, ending: LedgerTests.revealed(), onShow: away.id, now: 0) else {
                Issue.record("shown again"); return
            }
        }
        try server.start()
        var back: DealtCard?
        for _ in 0..<200 {
            let card = try dealer.deal()
            if case .pool = card.origin { back = card; break }
            usleep(100_000)
        }
        let card = try #require(back)
        #expect(ledger.show(card, ending: LedgerTests.revealed(), onShow: away.id, now: 0) == .show(announcingSoldOut: false, retryDealAt: nil))
        #expect(!ledger.poolOffline)
        ledger.end(LedgerTests.revealed())
        ledger.closeAtQuit()
        let report = try PostgresPool(address: address, kioskID: "report").stockReport(deck: nil)
        #expect(report.first { $0.cardID == "bike" }?.dealt == 2)
    }
}
