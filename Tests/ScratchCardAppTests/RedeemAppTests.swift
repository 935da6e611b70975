import Foundation
@preconcurrency import Glibc
import Claims
import PostgresSupport
import CardRules
import ScratchCore
import ScratchStore
import Testing
import TestRequirementTrait

/// `scratchcard claim-key new`, `redeem` and `claims` as a counter uses them: real
/// processes against a real store and a private PostgreSQL pool.
@Suite(.serialized) struct RedeemAppTests {
    static let bike = DeckCard(id: "bike", prize: "/p/bike.png", stock: 1000)

    /// The issuer a kiosk uses (its card's "claim" flag stands in for the id here).
    static func issuer(_ key: ClaimKey) -> ClaimIssuer {
        ClaimIssuer(kiosk: "hall-1") { card, deal in card.id == "bike" ? key.code(forDeal: deal.text).text : nil }
    }

    /// Runs scratchcard with `input` on stdin; the exit status and both outputs.
    static func run(_ arguments: [String], input: String = "", environment: [String: String]? = nil,
                    timeout: Double = 60) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: App.executable)
        process.arguments = arguments
        process.environment = environment ?? ProcessInfo.processInfo.environment
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inFile = folder.appendingPathComponent("in"), outFile = folder.appendingPathComponent("out"), errFile = folder.appendingPathComponent("err")
        try input.write(to: inFile, atomically: false, encoding: .utf8)
        try Data().write(to: outFile)
        try Data().write(to: errFile)
        process.standardInput = try FileHandle(forReadingFrom: inFile)
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        let deadline = monotonicNow() + timeout
        while process.isRunning && monotonicNow() < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: outFile, encoding: .utf8), try String(contentsOf: errFile, encoding: .utf8))
    }

    @Test("claim-key new: mode 0600, a fingerprint printed and never the key; never overwritten; loose, short, missing keys are exit 2")
    func keyFiles() throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("promo.key").path
        let made = try Self.run(["claim-key", "new", path])
        #expect(made.status == 0, "\(made.err)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(made.out.contains("fingerprint \(try ClaimKey(contentsOf: path).fingerprint)"))
        #expect(!made.out.contains(text.prefix(16)) && !made.err.contains(text.prefix(16)))
        let again = try Self.run(["claim-key", "new", path])
        #expect(again.status == 2 && again.err.contains("never overwritten"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)

        let store = folder.appendingPathComponent("kiosk.db").path
        do { _ = try KioskStore(path: store, access: .kiosk) }
        chmod(path, 0o644)
        let loose = try Self.run(["redeem", "00000", "--claim-key", path, "--store", store])
        #expect(loose.status == 2 && loose.err.contains("mode 644"), "\(loose)")
        let short = folder.appendingPathComponent("short.key").path
        try #require(FileManager.default.createFile(atPath: short, contents: Data("0011223344\n".utf8), attributes: [.posixPermissions: 0o600]))
        let shortRun = try Self.run(["redeem", "00000", "--claim-key", short, "--store", store])
        #expect(shortRun.status == 2 && shortRun.err.contains("too short"), "\(shortRun)")
        let missing = try Self.run(["redeem", "00000", "--claim-key", folder.appendingPathComponent("none.key").path, "--store", store])
        #expect(missing.status == 2 && missing.err.contains("no claim key"), "\(missing)")
        let noStore = try Self.run(["redeem", "00000", "--claim-key", short, "--store", folder.appendingPathComponent("nowhere.db").path])
        #expect(noStore.status == 2)
        let usage = try Self.run(["redeem", "--claim-key", path])
        #expect(usage.status == 2 && usage.err.contains("--store PATH or --pool CONNINFO"))
        // A pool that cannot be reached: its own status, 6, and a message naming it.
        chmod(path, 0o600)
        let validLooking = try ClaimKey(contentsOf: path).code(forDeal: DealID.random().text).grouped
        let gone = try Self.run(["redeem", validLooking, "--claim-key", path, "--pool", "host=\(folder.path)/nowhere dbname=x user=x"])
        #expect(gone.status == 6 && gone.err.contains("nowhere"), "\(gone)")
        let noClaims = try Self.run(["claims", "--store", folder.appendingPathComponent("nowhere.db").path])
        #expect(noClaims.status == 2 && noClaims.err.contains("no store there"), "\(noClaims)")
    }

    @Test("redeem against a store: once (exit 0), then refused with the first time and counter (3); every character changed (4), another key's code (4), an unknown deal (5), stdin answers as alone")
    func storeCounter() throws {
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyPath = folder.appendingPathComponent("promo.key").path, otherPath = folder.appendingPathComponent("other.key").path
        let key = try ClaimKey.createFile(at: keyPath), other = try ClaimKey.createFile(at: otherPath)
        let storePath = folder.appendingPathComponent("kiosk.db").path
        let deal: DealID
        do {
            let store = try KioskStore(path: storePath, access: .kiosk)
            store.claimIssuer = Self.issuer(key)
            deal = try #require(try store.deal(Self.bike, shownAt: 1_764_000_000, ending: nil))
        }
        let code = key.code(forDeal: deal.text)
        let base = ["--claim-key", keyPath, "--store", storePath]

        // Typed as a person might: lower case, spaces where the dashes were.
        let first = try Self.run(["redeem", code.grouped.lowercased().replacingOccurrences(of: "-", with: " "), "--counter", "desk A"] + base)
        #expect(first.status == 0, "\(first)")
        #expect(first.out == "valid: bike dealt 2025-11-24T16:00:00Z at hall-1 (deal \(deal.text)), redeemed now by desk A\n")
        let listed = try Self.run(["claims", "--store", storePath, "--json"])
        let record = try #require(try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [String: Any])
        #expect(record["code"] as? String == code.grouped && record["redeemed_by"] as? String == "desk A")
        let when = try #require(record["redeemed"] as? String)
        let second = try Self.run(["redeem", code.text, "--counter", "desk B"] + base)
        #expect(second.status == 3 && second.out == "already redeemed \(when) by desk A\n", "\(second)")

        // Every character changed (to the next letter of the alphabet): the check's own message.
        let plain = Array(code.text.utf8)
        for i in plain.indices {
            var changed = plain
            let value = ClaimCode.alphabet.firstIndex(of: plain[i])!
            changed[i] = ClaimCode.alphabet[(value + 1 + i) % 32]
            let slip = try Self.run(["redeem", String(decoding: changed, as: UTF8.self)] + base)
            #expect(slip.status == 4 && slip.out.contains("check character"), "position \(i): \(slip)")
        }
        let forged = try Self.run(["redeem", other.code(forDeal: deal.text).grouped] + base)
        #expect(forged.status == 4 && forged.out == "not a valid code\n", "\(forged)")
        let unknown = try Self.run(["redeem", key.code(forDeal: DealID.random().text).grouped] + base)
        #expect(unknown.status == 5 && unknown.out.contains("has no such claim"), "\(unknown)")
        let alien = try Self.run(["redeem", "UUUUU-" + code.grouped.dropFirst(6)] + base)
        #expect(alien.status == 2 && alien.out.contains("'U'"), "\(alien)")

        // A scanner's lines: each answered as it would be alone.
        let lines = [code.grouped, other.code(forDeal: deal.text).text, "", "k7q2m", key.code(forDeal: DealID.random().text).text]
        let scanned = try Self.run(["redeem", "--counter", "desk C"] + base, input: lines.joined(separator: "\r\n") + "\n")
        #expect(scanned.status == 0, "\(scanned)")
        let answers = scanned.out.split(separator: "\n").map(String.init)
        #expect(answers.count == 4)
        #expect(answers.first == "already redeemed \(when) by desk A")
        #expect(answers.dropFirst().first == "not a valid code")
        #expect(answers.dropFirst(2).first?.contains("25 letters and digits") == true)
        #expect(answers.last?.contains("has no such claim") == true)
        // The key never shows.
        let keyText = try String(contentsOfFile: keyPath, encoding: .utf8).prefix(20)
        for output in [first, second, forged, unknown, scanned, listed] { #expect(!output.out.contains(keyText) && !output.err.contains(keyText)) }
    }

    @Test("eight redeem processes on one code against the pool at once: exactly one exit 0, seven exit 3 naming it",
          .requires(PostgresServer.unavailable))
    func eightCounters() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyPath = folder.appendingPathComponent("promo.key").path
        let key = try ClaimKey.createFile(at: keyPath)
        let initialized = try Self.run(["pool", "init", "--pool", server.conninfo, "--claim-key", keyPath], environment: server.environment)
        #expect(initialized.status == 0 && initialized.out.contains(key.fingerprint), "\(initialized)")
        setenv("PGPASSFILE", server.passFile, 1)
        let pool = PostgresPool(address: try PoolAddress(server.conninfo, environment: [:]), kioskID: "hall-1")
        try pool.initialize(deck: Deck(cards: [Self.bike]))
        pool.claimIssuer = Self.issuer(key)
        let deal = DealID.random()
        #expect(try pool.deal(deal, card: Self.bike, shownAt: 1_764_000_000))
        let code = key.code(forDeal: deal.text).grouped

        let results = ResultList()
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            do {
                results.add(try Self.run(["redeem", code, "--claim-key", keyPath, "--pool", server.conninfo, "--counter", "counter-\(k)"],
                                         environment: server.environment))
            } catch { Issue.record("\(error)") }
        }
        let all = results.all
        #expect(all.filter { $0.status == 0 }.count == 1, "\(all)")
        #expect(all.filter { $0.status == 3 }.count == 7, "\(all)")
        let winner = try #require(all.first { $0.status == 0 }?.out.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(all.filter { $0.status == 3 }.allSatisfy { $0.out.hasSuffix("by \(winner)\n") })
        // A kiosk (here pool deal) with another key is refused at start.
        let otherPath = folder.appendingPathComponent("other.key").path
        _ = try ClaimKey.createFile(at: otherPath)
        let deckPath = folder.appendingPathComponent("deck.json").path
        try Data().write(to: folder.appendingPathComponent("bike.png"))
        try #"{"cards": [{"id": "bike", "prize": "bike.png"}]}"#.write(toFile: deckPath, atomically: false, encoding: .utf8)
        let wrong = try Self.run(["pool", "deal", "--pool", server.conninfo, "--deck", deckPath, "--count", "1", "--claim-key", otherPath],
                                 environment: server.environment)
        #expect(wrong.status == 2 && wrong.err.contains("not the pool's"), "\(wrong)")
    }

    @Test("pool deal --claim-key makes a claim for each claim card dealt, as a kiosk does; claims --pool lists them; they redeem",
          .requires(PostgresServer.unavailable))
    func poolDealMakesClaims() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyPath = folder.appendingPathComponent("promo.key").path
        _ = try Self.run(["claim-key", "new", keyPath])
        let deckPath = folder.appendingPathComponent("deck.json").path
        try Data().write(to: folder.appendingPathComponent("bike.png"))
        try Data().write(to: folder.appendingPathComponent("thanks.png"))
        try #"{"cards": [{"id": "bike", "prize": "bike.png", "stock": 3, "claim": true}, {"id": "thanks", "prize": "thanks.png", "weight": 0.0001}]}"#
            .write(toFile: deckPath, atomically: false, encoding: .utf8)
        let pool = ["--pool", server.conninfo]
        #expect(try Self.run(["pool", "init", "--deck", deckPath, "--claim-key", keyPath] + pool, environment: server.environment).status == 0)
        let dealt = try Self.run(["pool", "deal", "--deck", deckPath, "--count", "3", "--claim-key", keyPath, "--kiosk-id", "rehearsal"] + pool,
                                 environment: server.environment)
        #expect(dealt.status == 0, "\(dealt)")
        let listed = try Self.run(["claims", "--json"] + pool, environment: server.environment)
        let claims = listed.out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let bikes = dealt.out.split(separator: " ").first { $0.hasPrefix("stocked=") }.map { Int($0.dropFirst(8)) ?? -1 } ?? -1
        #expect(claims.count == bikes && bikes >= 1, "\(listed.out) \(dealt.out)")
        #expect(claims.allSatisfy { $0["card"] as? String == "bike" && $0["kiosk"] as? String == "rehearsal" && $0["redeemed"] is NSNull })
        let code = try #require(claims.first?["code"] as? String)
        let redeemed = try Self.run(["redeem", code, "--claim-key", keyPath, "--counter", "desk"] + pool, environment: server.environment)
        #expect(redeemed.status == 0 && redeemed.out.contains("at rehearsal"), "\(redeemed)")
        let text = try Self.run(["claims"] + pool, environment: server.environment)
        #expect(text.out.contains("\(code) bike at rehearsal dealt ") && text.out.contains("by desk"), "\(text.out)")
    }

    @Test("a pool of 500 claims redeemed by 8 counters at once, each reading all 500 codes: each claim redeemed exactly once",
          .requires(PostgresServer.unavailable))
    func fiveHundred() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let folder = try App.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyPath = folder.appendingPathComponent("promo.key").path
        let key = try ClaimKey.createFile(at: keyPath)
        setenv("PGPASSFILE", server.passFile, 1)
        let pool = PostgresPool(address: try PoolAddress(server.conninfo, environment: [:]), kioskID: "hall-1")
        try pool.initialize(deck: Deck(cards: [Self.bike]))
        pool.claimIssuer = Self.issuer(key)
        var deals: [DealID] = []
        for _ in 0..<500 {
            let deal = DealID.random()
            #expect(try pool.deal(deal, card: Self.bike, shownAt: 1_764_000_000))
            deals.append(deal)
        }
        let codes = deals.map { key.code(forDeal: $0.text).grouped }
        let results = ResultList()
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            do {
                results.add(try Self.run(["redeem", "--claim-key", keyPath, "--pool", server.conninfo, "--counter", "counter-\(k)"],
                                         input: codes.shuffled().joined(separator: "\n") + "\n", environment: server.environment, timeout: 120))
            } catch { Issue.record("\(error)") }
        }
        let lines = results.all.flatMap { $0.out.split(separator: "\n") }
        #expect(results.all.allSatisfy { $0.status == 0 })
        #expect(lines.count == 4000)
        let valid = lines.filter { $0.hasPrefix("valid: ") }
        #expect(valid.count == 500)
        let redeemedDeals = valid.compactMap { $0.split(separator: "(deal ").last?.split(separator: ")").first.map(String.init) }
        #expect(Set(redeemedDeals) == Set(deals.map(\.text)))
        #expect(lines.filter { $0.hasPrefix("already redeemed ") }.count == 3500)
        let claims = try pool.claims()
        #expect(claims.count == 500 && claims.allSatisfy { $0.redeemedAt != nil })
        // Shared among the counters, not all taken by one.
        #expect(Set(claims.compactMap(\.redeemedBy)).count > 1)
    }
}

final class ResultList: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [(status: Int32, out: String, err: String)] = []
    func add(_ r: (status: Int32, out: String, err: String)) { lock.lock(); results.append(r); lock.unlock() }
    var all: [(status: Int32, out: String, err: String)] { lock.lock(); defer { lock.unlock() }; return results }
}
