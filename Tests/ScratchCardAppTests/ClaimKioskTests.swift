import CardRules
import Claims
import Foundation
@preconcurrency import Glibc
import ScratchCore
import ScratchImage
import ScratchStore
import Testing
import TestRequirementTrait
import XvfbSupport

/// A kiosk with a claim card, as a winner and a counter meet it: scratched with XTest
/// under Xvfb until revealed, the QR read off a screenshot with zbarimg, and the code
/// redeemed at a counter once.
@Suite(.serialized) struct ClaimKioskTests {
    static let size = PixelSize(width: 640, height: 400)
    static let bike = RGBA(r: 200, g: 40, b: 40), thanks = RGBA(r: 40, g: 160, b: 60)

    /// A deck of one stocked claim card (and a consolation card never drawn), a key.
    struct Promotion {
        let deck: StockedDeck
        let key: String
        let otherKey: String
        init() throws {
            deck = try StockedDeck([StockedDeck.Entry(id: "bike", colour: ClaimKioskTests.bike, stock: 1),
                                    StockedDeck.Entry(id: "thanks", colour: ClaimKioskTests.thanks, stock: nil, weight: 0)],
                                   size: ClaimKioskTests.size)
            try #"{"cards": [{"id": "bike", "prize": "bike.png", "stock": 1, "claim": true}, {"id": "thanks", "prize": "thanks.png", "weight": 0}]}"#
                .write(toFile: deck.deck, atomically: false, encoding: .utf8)
            key = deck.folder.appendingPathComponent("promo.key").path
            otherKey = deck.folder.appendingPathComponent("other.key").path
            _ = try ClaimKey.createFile(at: key)
            _ = try ClaimKey.createFile(at: otherKey)
        }
    }

    static func zbar(_ image: RGBAImage, in folder: URL) throws -> [String] {
        let path = folder.appendingPathComponent("screen-\(UUID().uuidString).png").path
        try PNGFile.write(image, to: path)
        defer { unlink(path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        process.arguments = ["--quiet", "--raw", path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("scratched to the reveal: the QR on screen gives the code the event, the store and the log hold; redeemed once, then refused; slips and another key refused",
          .requires(Requirement.zbarimg))
    func revealAndRedeem() throws {
        let promo = try Promotion()
        let deck = promo.deck
        defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height)
        defer { server.stop() }
        let kiosk = try RunningApp(deck.kioskArguments(brush: 40, extra: ["--claim-key", promo.key, "--kiosk-id", "hall-1", "--log", deck.log]),
                                   environment: server.environment)
        defer { if kiosk.process.isRunning { kill(kiosk.pid, SIGKILL) } }
        let window = try server.scratchcardWindow()
        #expect(waitUntil { kiosk.cardShown?.card == "bike" })
        // Before the reveal: the foil hides the code.
        #expect(try Self.zbar(server.capture(window: window), in: deck.folder).isEmpty)
        for y in stride(from: 20, through: 380, by: 40) { try server.drag(window: window, from: (0, y), through: [(320, y), (639, y)]) }
        #expect(waitUntil { kiosk.eventNames.contains("revealed") })
        let revealed = try #require(kiosk.events.first { $0["event"] as? String == "revealed" })
        let code = try #require(revealed["claim"] as? String)
        #expect(try ClaimCode(parsing: code).grouped == code)
        // The whole prize faded in, its band white: then the screen is read.
        let screen = try server.waitForPixels(window: window) { $0[Self.size.width - 2, Self.size.height - 2] == .white && $0[5, 5] == Self.bike }
        #expect(try Self.zbar(screen, in: deck.folder) == [code])
        // The store holds the same, and nothing else said it on stderr.
        let claims = try KioskStore(path: deck.store, access: .read).claims()
        let plainCode = try ClaimCode(parsing: code).text
        #expect(claims.count == 1 && claims.first?.code == plainCode && claims.first?.kiosk == "hall-1")
        #expect(claims.first?.deal.text == kiosk.cardShown?.deal)
        kill(kiosk.pid, SIGTERM)
        #expect(kiosk.wait() == 0)
        let logged = try String(contentsOfFile: deck.log, encoding: .utf8)
        #expect(logged.contains("\"claim\":\"\(code)\""), "\(logged)")
        #expect(!kiosk.standardError.contains(code) && !kiosk.standardError.contains(plainCode))
        let keyText = try String(contentsOfFile: promo.key, encoding: .utf8).prefix(24)
        #expect(!kiosk.standardOutput.contains(keyText) && !kiosk.standardError.contains(keyText) && !logged.contains(keyText))

        // The counter: once, then who and when; every character changed; another key.
        let base = ["--claim-key", promo.key, "--store", deck.store]
        let first = try RedeemAppTests.run(["redeem", code, "--counter", "desk A"] + base)
        #expect(first.status == 0 && first.out.hasPrefix("valid: bike dealt ") && first.out.contains("at hall-1 (deal \(claims.first?.deal.text ?? "?")), redeemed now by desk A"), "\(first)")
        let second = try RedeemAppTests.run(["redeem", code, "--counter", "desk B"] + base)
        let when = try #require(try KioskStore(path: deck.store, access: .read).claims().first?.redeemedAt)
        #expect(second.status == 3 && second.out == "already redeemed \(utcTime(when)) by desk A\n", "\(second)")
        let plain = Array(try ClaimCode(parsing: code).text.utf8)
        for i in plain.indices {
            var changed = plain
            changed[i] = ClaimCode.alphabet[(ClaimCode.alphabet.firstIndex(of: plain[i])! + 7) % 32]
            let slip = try RedeemAppTests.run(["redeem", String(decoding: changed, as: UTF8.self)] + base)
            #expect(slip.status == 4, "position \(i): \(slip)")
        }
        let other = try ClaimKey(contentsOf: promo.otherKey).code(forDeal: claims.first?.deal.text ?? "")
        let foreign = try RedeemAppTests.run(["redeem", other.grouped] + base)
        #expect(foreign.status == 4 && foreign.out == "not a valid code\n", "\(foreign)")
        let wrongKey = try RedeemAppTests.run(["redeem", code, "--claim-key", promo.otherKey, "--store", deck.store])
        #expect(wrongKey.status == 4, "\(wrongKey)")
    }

    @Test("killed (kill -9) just after the reveal: the card taken up again shows the same code, which the store holds and redeems",
          .requires(Requirement.zbarimg))
    func killedAfterReveal() throws {
        let promo = try Promotion()
        let deck = promo.deck
        defer { deck.remove() }
        let server = try Xvfb(width: Self.size.width, height: Self.size.height)
        defer { server.stop() }
        let arguments = deck.kioskArguments(brush: 40, extra: ["--claim-key", promo.key, "--kiosk-id", "hall-1"])
        let first = try RunningApp(arguments, environment: server.environment)
        let window = try server.scratchcardWindow()
        #expect(waitUntil { first.cardShown?.card == "bike" })
        for y in stride(from: 20, through: 380, by: 40) { try server.drag(window: window, from: (0, y), through: [(320, y), (639, y)]) }
        #expect(waitUntil { first.eventNames.contains("revealed") })
        let code = try #require(first.events.first { $0["event"] as? String == "revealed" }?["claim"] as? String)
        kill(first.pid, SIGKILL)
        first.wait()

        let second = try RunningApp(arguments, environment: server.environment)
        defer { kill(second.pid, SIGKILL) }
        let window2 = try server.scratchcardWindow()
        #expect(waitUntil { second.cardShown?.resumed == true })
        // Revealed or covered again (a reveal whose commit was lost), the prize carries
        // the same code: scratched again if need be, it is on the screen.
        if !(try server.capture(window: window2)[Self.size.width - 2, Self.size.height - 2] == .white) {
            for y in stride(from: 20, through: 380, by: 40) { try server.drag(window: window2, from: (0, y), through: [(320, y), (639, y)]) }
        }
        let screen = try server.waitForPixels(window: window2) { $0[Self.size.width - 2, Self.size.height - 2] == .white }
        #expect(try Self.zbar(screen, in: deck.folder) == [code])
        let redeemed = try RedeemAppTests.run(["redeem", code, "--claim-key", promo.key, "--store", deck.store])
        #expect(redeemed.status == 0, "\(redeemed)")
    }

    @Test("a deck with a claim card and no --claim-key is refused at start (exit 2), naming the card")
    func claimNeedsKey() throws {
        let promo = try Promotion()
        defer { promo.deck.remove() }
        let run = try runToExit(promo.deck.kioskArguments())
        #expect(run.status == 2 && run.err.contains("\"bike\" is a claim") && run.err.contains("--claim-key"), "\(run)")
    }
}

/// `--print-claims` against a private CUPS server with a cups-pdf printer.
@Suite(.serialized, .requires(CupsServer.unavailable))
struct ClaimTicketKioskTests {
    @Test("a reveal prints one ticket whose QR decodes to the claim's code; with the printer stopped the kiosk goes on, and the ticket prints when it is enabled")
    func printsTicket() throws {
        let promo = try ClaimKioskTests.Promotion()
        let deck = promo.deck
        defer { deck.remove() }
        let cups = try CupsServer()
        defer { cups.remove() }
        try cups.start()
        try cups.setEnabled(false)
        let server = try Xvfb(width: ClaimKioskTests.size.width, height: ClaimKioskTests.size.height)
        defer { server.stop() }
        var environment = server.environment
        environment["CUPS_SERVER"] = cups.server
        let kiosk = try RunningApp(deck.kioskArguments(brush: 40, idleReset: 1,
                                                       extra: ["--claim-key", promo.key, "--kiosk-id", "hall-1", "--print-claims", cups.printer]),
                                   environment: environment)
        defer { if kiosk.process.isRunning { kill(kiosk.pid, SIGKILL) } }
        let window = try server.scratchcardWindow()
        #expect(waitUntil { kiosk.cardShown?.card == "bike" })
        for y in stride(from: 20, through: 380, by: 40) { try server.drag(window: window, from: (0, y), through: [(320, y), (639, y)]) }
        #expect(waitUntil { kiosk.eventNames.contains("revealed") })
        let code = try #require(kiosk.events.first { $0["event"] as? String == "revealed" }?["claim"] as? String)
        // The queue is stopped: the ticket waits there, said on stderr; the kiosk goes on
        // (its idle reset deals the next card: the sold-out one, the bike's stock being 1).
        #expect(waitUntil(timeout: 15) { kiosk.standardError.contains("is stopped") }, "\(kiosk.standardError)")
        #expect(waitUntil(timeout: 15) { kiosk.eventNames.contains("sold-out") })
        #expect(cups.printed.isEmpty && cups.queuedJobs == 1)
        try cups.setEnabled(true)
        #expect(waitUntil(timeout: 60) { cups.printed.count == 1 && cups.queuedJobs == 0 })
        let printed = try #require(cups.printed.first)
        #expect(try cups.qrCodes(inPDF: printed) == [code])
        #expect(!kiosk.standardError.contains(code))
    }
}
