@preconcurrency import Glibc
import Foundation

/// How a card ended.
public enum CardOutcome: String, Sendable, CaseIterable {
    /// The prize was revealed (by scratching past the threshold or by a key).
    case revealed
    /// Scratched partly, or not at all, and left: reset by the abandon timer or by `r`.
    case abandoned
    /// The program ended while the card was still covered.
    case quit
}

/// One card's record in the outcome log: one JSON object on one line.
///
///     {"shown":"2026-11-29T18:37:00.000Z","card":"coffee","prize":"/srv/coffee.png","outcome":"revealed","how":"threshold","fraction":0.6012,"reveal_ms":5230,"duration_ms":20250}
///
/// A zone ticket's adds its picks, in the order started, each with its symbol (`ZonePick`):
///
///     {..., "duration_ms":20250,"picks":[{"zone":4,"symbol":"☕"},{"zone":0,"symbol":"☕"},{"zone":8,"symbol":"lemon.png"}]}
public struct OutcomeRecord: Equatable, Sendable {
    /// When the card appeared, in seconds since 1970 (UTC).
    public var shownAt: Double
    public var cardID: String
    /// The prize image's path, or "built-in".
    public var prize: String
    public var outcome: CardOutcome
    /// How it was revealed, when it was.
    public var how: RevealCause?
    /// The scratched fraction when the card ended (or was revealed).
    public var fraction: Double
    /// From appearing to the reveal, when there was one.
    public var revealMilliseconds: Int?
    /// From appearing to the end.
    public var durationMilliseconds: Int
    /// The claim code a claim card carried (grouped), when it was revealed: the log's
    /// `"claim"`.
    public var claim: String?
    /// A zone card: the zones the player started, in order, each with the symbol it
    /// showed (`ZonePick`); the log's `"picks"`.
    public var picks: [ZonePick]?

    public init(shownAt: Double, cardID: String, prize: String, outcome: CardOutcome, how: RevealCause?,
                fraction: Double, revealMilliseconds: Int?, durationMilliseconds: Int) {
        self.shownAt = shownAt
        self.cardID = cardID
        self.prize = prize
        self.outcome = outcome
        self.how = how
        self.fraction = fraction
        self.revealMilliseconds = revealMilliseconds
        self.durationMilliseconds = durationMilliseconds
    }

    /// The record as one line of JSON, without the newline.
    public var json: String {
        var fields = [("shown", JSONText.quoted(Self.timestamp(shownAt))), ("card", JSONText.quoted(cardID)),
                      ("prize", JSONText.quoted(prize)), ("outcome", JSONText.quoted(outcome.rawValue))]
        if let how { fields.append(("how", JSONText.quoted(how.rawValue))) }
        fields.append(("fraction", PlainDecimal.format((fraction * 10_000).rounded() / 10_000) ?? "null"))
        if let revealMilliseconds { fields.append(("reveal_ms", String(revealMilliseconds))) }
        fields.append(("duration_ms", String(durationMilliseconds)))
        if let claim { fields.append(("claim", JSONText.quoted(claim))) }
        if let picks { fields.append(("picks", ZonePick.json(picks))) }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// ISO 8601 in UTC with milliseconds: 2026-11-29T18:37:00.000Z.
    static func timestamp(_ seconds: Double) -> String {
        var whole = time_t(seconds.rounded(.down))
        let millis = Int(((seconds - seconds.rounded(.down)) * 1000).rounded(.down))
        var parts = tm()
        gmtime_r(&whole, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
    }

    /// A line's fields as JSON holds them. (JSONDecoder, not JSONSerialization: that one
    /// is swift-corelibs-foundation's, which would link ICU into the static binary.)
    private struct Fields: Decodable {
        var shown: String
        var card: String
        var prize: String
        var outcome: String
        var how: String?
        var fraction: Double
        var reveal_ms: Int?
        var duration_ms: Int
        /// Picks with their symbols, or (a log from before they were recorded) zones only.
        var picks: [ZonePick]?
    }

    /// Reads one line back; nil when it is not a whole record (a torn line, noise).
    public init?(line: Substring) {
        guard line.first == "{", line.last == "}",
              let fields = try? JSONDecoder().decode(Fields.self, from: Data(line.utf8)),
              let outcome = CardOutcome(rawValue: fields.outcome),
              let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(fields.shown),
              fields.picks.map(ZonePick.areValid) ?? true
        else { return nil }
        self.init(shownAt: date.timeIntervalSince1970, cardID: fields.card, prize: fields.prize, outcome: outcome,
                  how: fields.how.flatMap(RevealCause.init(rawValue:)), fraction: fields.fraction,
                  revealMilliseconds: fields.reveal_ms, durationMilliseconds: fields.duration_ms)
        picks = fields.picks
    }
}

/// The outcome log: an append-only file of JSON lines, one per card, private to the
/// user (0600). Each record is one `write` of a whole line on a descriptor opened with
/// O_APPEND, then `fsync`: a crash or kill -9 leaves at most one torn last line, which
/// readers skip, and the next run starts on a fresh line so no later record joins it.
public final class OutcomeLog {
    public let path: String
    private let descriptor: Int32

    public init(path: String) throws(OutcomeLogError) {
        self.path = path
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw OutcomeLogError(path: path, message: "cannot open the log: \(String(cString: strerror(errno)))") }
        descriptor = fd
        // The mode of a file that already existed stays as its owner set it, unless it
        // is readable by others: then tighten it.
        var status = stat()
        if fstat(fd, &status) == 0, status.st_mode & 0o077 != 0 { _ = fchmod(fd, 0o600) }
        // A torn last line from a crash: end it, so the next record starts whole.
        if status.st_size > 0 {
            let reader = open(path, O_RDONLY | O_CLOEXEC)
            if reader >= 0 {
                var last: UInt8 = 0
                if pread(reader, &last, 1, off_t(status.st_size - 1)) == 1, last != UInt8(ascii: "\n") {
                    var newline = UInt8(ascii: "\n")
                    _ = write(fd, &newline, 1)
                }
                close(reader)
            }
        }
    }

    deinit { close(descriptor) }

    /// Appends one record and makes it durable before returning.
    public func append(_ record: OutcomeRecord) throws(OutcomeLogError) {
        let line = Array((record.json + "\n").utf8)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw OutcomeLogError(path: path, message: "could not append a record: \(String(cString: strerror(errno)))")
        }
        guard fsync(descriptor) == 0 else {
            throw OutcomeLogError(path: path, message: "could not sync the log: \(String(cString: strerror(errno)))")
        }
    }

    /// Appends a notice line (a JSON object with a `"notice"` key: something an operator
    /// should know, like a damaged store moved aside), synced; readers skip it.
    public func note(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        _ = fsync(descriptor)
    }

    /// Every whole record in the file, and how many lines were not whole records
    /// (notice lines are neither).
    public static func read(path: String) throws(OutcomeLogError) -> (records: [OutcomeRecord], damagedLines: Int) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OutcomeLogError(path: path, message: "cannot read the log")
        }
        var records: [OutcomeRecord] = [], damaged = 0
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            if let record = OutcomeRecord(line: line) { records.append(record) } else if !line.hasPrefix("{\"notice\":") { damaged += 1 }
        }
        return (records, damaged)
    }

    /// A summary for people: counts per outcome and per prize, then, for zone tickets,
    /// how often each zone and each symbol was picked, per card; with `eachTicket`, each
    /// ticket's picks in order too. `unreadablePicks`: records whose picks could not be
    /// read (a damaged value in a store), counted in, their picks left out and said so.
    public static func summary(of records: [OutcomeRecord], damagedLines: Int, unreadablePicks: Int = 0,
                               eachTicket: Bool = false) -> String {
        var out = "cards: \(records.count)"
        var notes: [String] = []
        if damagedLines > 0 { notes.append("\(damagedLines) damaged line\(damagedLines == 1 ? "" : "s") skipped") }
        if unreadablePicks > 0 { notes.append("the picks of \(unreadablePicks) card\(unreadablePicks == 1 ? "" : "s") unreadable, left out") }
        if !notes.isEmpty { out += " (" + notes.joined(separator: "; ") + ")" }
        out += "\nby outcome:"
        for outcome in CardOutcome.allCases {
            out += " \(outcome.rawValue) \(records.filter { $0.outcome == outcome }.count)"
        }
        out += "\nby prize:"
        let prizes = Dictionary(grouping: records, by: \.cardID)
        for card in prizes.keys.sorted() {
            let group = prizes[card]!
            let parts = CardOutcome.allCases.compactMap { o -> String? in
                let n = group.filter { $0.outcome == o }.count
                return n == 0 ? nil : "\(o.rawValue) \(n)"
            }
            out += "\n  \(card): \(group.count) (\(parts.joined(separator: ", ")))"
        }
        return out + picksSummary(of: records, eachTicket: eachTicket) + "\n"
    }

    /// The zone tickets' part of `summary` ("" when there were none): per card, the
    /// zones and symbols picked with how many times each (zones in order, symbols most
    /// picked first), so that the odds a deck promises can be set beside what players met.
    static func picksSummary(of records: [OutcomeRecord], eachTicket: Bool) -> String {
        let tickets = records.filter { $0.picks != nil }
        guard !tickets.isEmpty else { return "" }
        var out = "\npicks (zone tickets, zones numbered from 0):"
        let byCard = Dictionary(grouping: tickets, by: \.cardID)
        for card in byCard.keys.sorted() {
            let picks = byCard[card]!.flatMap { $0.picks ?? [] }
            let n = byCard[card]!.count
            out += "\n  \(card): \(n) ticket\(n == 1 ? "" : "s"), \(picks.count) pick\(picks.count == 1 ? "" : "s")"
            guard !picks.isEmpty else { continue }
            let zones = Dictionary(grouping: picks, by: \.zone).mapValues(\.count)
            out += "\n    by zone: " + zones.keys.sorted().map { "\($0) (\(zones[$0]!))" }.joined(separator: ", ")
            // A pick from a log written before symbols were recorded names no symbol.
            let symbols = Dictionary(grouping: picks, by: { $0.symbol.map(ZonePick.oneLine) ?? "(not recorded)" })
                .mapValues(\.count)
            let order = symbols.keys.sorted { symbols[$0]! != symbols[$1]! ? symbols[$0]! > symbols[$1]! : $0 < $1 }
            out += "\n    by symbol: " + order.map { "\($0) (\(symbols[$0]!))" }.joined(separator: ", ")
        }
        if eachTicket {
            out += "\npicks by ticket:"
            for ticket in tickets {
                let picks = ticket.picks ?? []
                out += "\n  \(OutcomeRecord.timestamp(ticket.shownAt)) \(ticket.cardID) \(ticket.outcome.rawValue): "
                    + (picks.isEmpty ? "none" : ZonePick.text(picks))
            }
        }
        return out
    }
}
