@testable import CardRules
import Foundation
import ScratchCore
import Testing

/// Parses one event line back with JSONSerialization.
func parsed(_ line: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    return try #require(object as? [String: Any])
}

/// The keys of a one-line JSON object in the order written (values hold no quotes
/// here other than escaped ones, which the pattern skips).
func keyOrder(_ line: String) -> [String] {
    let pattern = try! NSRegularExpression(pattern: #"[{,]"((?:[^"\\]|\\.)*)":"#)
    let range = NSRange(line.startIndex..., in: line)
    return pattern.matches(in: line, range: range).map { String(line[Range($0.range(at: 1), in: line)!]) }
}

struct CardEventJSONTests {
    @Test("ready")
    func ready() throws {
        let line = CardEvent.ready(cardID: "coffee", width: 800, height: 600, scale: 1.5).json
        #expect(line == #"{"event":"ready","card":"coffee","width":800,"height":600,"scale":1.5}"#)
        let object = try parsed(line)
        #expect(object["event"] as? String == "ready")
        #expect(object["card"] as? String == "coffee")
        #expect((object["width"] as? NSNumber)?.intValue == 800)
        #expect((object["height"] as? NSNumber)?.intValue == 600)
        #expect((object["scale"] as? NSNumber)?.doubleValue == 1.5)
        #expect(keyOrder(line) == ["event", "card", "width", "height", "scale"])
    }

    @Test("scratch-start, progress, new-card and quit")
    func simple() throws {
        let start = CardEvent.scratchStart(cardID: "a").json
        #expect(try parsed(start) as NSDictionary == ["event": "scratch-start", "card": "a"] as NSDictionary)
        #expect(keyOrder(start) == ["event", "card"])

        let progress = CardEvent.progress(cardID: "a", percent: 30).json
        #expect(progress == #"{"event":"progress","card":"a","percent":30}"#)
        #expect((try parsed(progress)["percent"] as? NSNumber)?.intValue == 30)

        let newCard = CardEvent.newCard(cardID: "b").json
        #expect(try parsed(newCard) as NSDictionary == ["event": "new-card", "card": "b"] as NSDictionary)

        #expect(CardEvent.quit.json == #"{"event":"quit"}"#)
        #expect(try parsed(CardEvent.quit.json) as NSDictionary == ["event": "quit"] as NSDictionary)
    }

    @Test("revealed: the cause, the fraction with 4 decimals, the milliseconds")
    func revealed() throws {
        let line = CardEvent.revealed(cardID: "x", how: .threshold, fraction: 0.601249, milliseconds: 5230).json
        #expect(line == #"{"event":"revealed","card":"x","how":"threshold","fraction":0.6012,"ms":5230}"#)
        let object = try parsed(line)
        #expect(object["how"] as? String == "threshold")
        #expect((object["fraction"] as? NSNumber)?.doubleValue == 0.6012)
        #expect((object["ms"] as? NSNumber)?.intValue == 5230)
        #expect(keyOrder(line) == ["event", "card", "how", "fraction", "ms"])

        let keyboard = CardEvent.revealed(cardID: "x", how: .keyboard, fraction: 0.00005, milliseconds: 0).json
        #expect(keyboard.contains(#""how":"keyboard","fraction":0.0001,"ms":0"#))
        #expect(CardEvent.revealed(cardID: "x", how: .keyboard, fraction: 1, milliseconds: 1).json.contains(#""fraction":1.0000,"#))
        #expect(CardEvent.revealed(cardID: "x", how: .keyboard, fraction: 0, milliseconds: 1).json.contains(#""fraction":0.0000,"#))
        #expect(CardEvent.revealed(cardID: "x", how: .keyboard, fraction: 0.99996, milliseconds: 1).json.contains(#""fraction":1.0000,"#))
    }

    @Test("non-finite numbers become null, so the line stays JSON")
    func nonFinite() throws {
        let ready = CardEvent.ready(cardID: "a", width: 1, height: 1, scale: .nan).json
        #expect(try parsed(ready)["scale"] is NSNull)
        let revealed = CardEvent.revealed(cardID: "a", how: .threshold, fraction: .infinity, milliseconds: 1).json
        #expect(try parsed(revealed)["fraction"] is NSNull)
    }

    @Test("card ids are escaped: quotes, backslashes, control characters; other text as UTF-8")
    func escaping() throws {
        let id = "a\"b\\c\nd\re\tf\u{0}g\u{1F}h\u{08}\u{0C}/é 🎉\u{2028}"
        let line = CardEvent.newCard(cardID: id).json
        #expect(line == #"{"event":"new-card","card":"a\"b\\c\nd\re\tf\u0000g\u001fh\b\f/é 🎉\u2028"}"#)
        #expect(!line.contains("\n") && !line.contains("\r"))
        #expect(try parsed(line)["card"] as? String == id)
        for event in [CardEvent.ready(cardID: id, width: 2, height: 3, scale: 1), .scratchStart(cardID: id),
                      .progress(cardID: id, percent: 10), .revealed(cardID: id, how: .keyboard, fraction: 0.5, milliseconds: 9)] {
            #expect(try parsed(event.json)["card"] as? String == id)
            #expect(keyOrder(event.json).first == "event")
        }
    }
}

struct ProgressTrackerTests {
    @Test("a jump from 0 to 0.57 reports 10...50 at once; further rises report each new step once")
    func steps() {
        var tracker = ProgressTracker()
        #expect(tracker.update(fraction: 0) == [])
        #expect(tracker.update(fraction: 0.09) == [])
        #expect(tracker.update(fraction: 0.57) == [10, 20, 30, 40, 50])
        #expect(tracker.update(fraction: 0.57) == [])
        #expect(tracker.update(fraction: 0.59) == [])
        #expect(tracker.update(fraction: 0.60) == [60])
        #expect(tracker.update(fraction: 0.55) == [])      // never reported twice
        #expect(tracker.update(fraction: 0.65) == [])
        #expect(tracker.update(fraction: 0.71) == [70])
        #expect(tracker.update(fraction: 1) == [80, 90, 100])
        #expect(tracker.update(fraction: 1) == [])
        #expect(tracker.update(fraction: 1.5) == [])
    }

    @Test("exact tenths computed by division count as reached")
    func exactTenths() {
        for total in [10, 30, 70, 1000, 1920 * 1080] {
            var tracker = ProgressTracker()
            var seen: [Int] = []
            for step in 1...10 {
                let pixels = total * step / 10
                seen += tracker.update(fraction: Double(pixels) / Double(total))
                #expect(seen.last == step * 10, "total \(total), step \(step)")
            }
            #expect(seen == Array(stride(from: 10, through: 100, by: 10)))
        }
    }

    @Test("steady small increments report every step exactly once")
    func increments() {
        var tracker = ProgressTracker()
        var seen: [Int] = []
        for i in 0...10_000 { seen += tracker.update(fraction: Double(i) / 10_000) }
        #expect(seen == [10, 20, 30, 40, 50, 60, 70, 80, 90, 100])
    }

    @Test("reset starts over for the next card; nonsense fractions report nothing")
    func reset() {
        var tracker = ProgressTracker()
        #expect(tracker.update(fraction: 0.35) == [10, 20, 30])
        tracker.reset()
        #expect(tracker.update(fraction: 0.2) == [10, 20])
        #expect(tracker.update(fraction: .nan) == [])
        #expect(tracker.update(fraction: -1) == [])
        #expect(tracker.update(fraction: .infinity) == [])
        #expect(tracker.update(fraction: 0.3) == [30])
    }
}

struct RevealTriggerTests {
    @Test("fires exactly once, the first time the threshold is reached, however scratching goes on")
    func once() {
        var trigger = RevealTrigger(threshold: 0.6)
        #expect(!trigger.isOff)
        let fractions = [0.0, 0.1, 0.59, 0.5999999, 0.6, 0.61, 0.8, 0.3, 0.95, 1.0, 1.0]
        let fired = fractions.map { trigger.check(fraction: $0) }
        #expect(fired == [false, false, false, false, true, false, false, false, false, false, false])
        #expect(trigger.hasFired)
    }

    @Test("a jump past the threshold fires once")
    func jump() {
        var trigger = RevealTrigger(threshold: 0.5)
        #expect(trigger.check(fraction: 0.9) == true)
        #expect(trigger.check(fraction: 0.95) == false)
    }

    @Test("reset arms it again for the next card")
    func reset() {
        var trigger = RevealTrigger(threshold: 0.25)
        #expect(trigger.check(fraction: 0.3) == true)
        trigger.reset()
        #expect(trigger.check(fraction: 0.2) == false)
        #expect(trigger.check(fraction: 0.25) == true)
        #expect(trigger.check(fraction: 0.3) == false)
    }

    @Test("a threshold of 100% or more (or NaN) is off: it never fires", arguments: [1.0, 1.5, Double.infinity, Double.nan])
    func off(_ threshold: Double) {
        var trigger = RevealTrigger(threshold: threshold)
        #expect(trigger.isOff)
        for f in stride(from: 0.0, through: 1.0, by: 0.05) { #expect(trigger.check(fraction: f) == false) }
        #expect(trigger.check(fraction: 1) == false)
        #expect(trigger.check(fraction: 2) == false)
    }

    @Test("a threshold of 0 fires at the first check; NaN fractions never fire")
    func zero() {
        var trigger = RevealTrigger(threshold: 0)
        #expect(trigger.check(fraction: .nan) == false)
        #expect(trigger.check(fraction: 0) == true)
        #expect(trigger.check(fraction: 0) == false)
    }
}

struct FadeClockTests {
    @Test("0 before and at the start, 1 at and after the end, 0.5 halfway")
    func endpoints() {
        let fade = FadeClock(start: 100, duration: 0.4)
        #expect(fade.progress(at: 50) == 0)
        #expect(fade.progress(at: 100) == 0)
        #expect(abs(fade.progress(at: 100.2) - 0.5) < 1e-9)
        #expect(abs(fade.progress(at: 100.4) - 1) < 1e-12)
        #expect(fade.progress(at: 101) == 1)
        #expect(fade.progress(at: 1e9) == 1)
        #expect(!fade.isFinished(at: 100))
        #expect(!fade.isFinished(at: 100.39))
        #expect(fade.isFinished(at: 100.4000001))
        #expect(fade.isFinished(at: 200))
        #expect(FadeClock(start: 3).duration == 0.4)
    }

    @Test("rises monotonically, eased: slow at both ends, fastest in the middle")
    func monotonic() {
        let fade = FadeClock(start: 10, duration: 2)
        var previous = -1.0
        var steps: [Double] = []
        for i in 0...1000 {
            let p = fade.progress(at: 10 + 2 * Double(i) / 1000)
            #expect(p >= previous)
            #expect((0...1).contains(p))
            if previous >= 0 { steps.append(p - previous) }
            previous = p
        }
        #expect(steps.first! < steps[500] / 10)
        #expect(steps.last! < steps[500] / 10)
        // Smoothstep: symmetric about the middle.
        #expect(abs(fade.progress(at: 10.5) + fade.progress(at: 11.5) - 1) < 1e-12)
    }

    @Test("a zero or negative duration jumps straight to the prize at the start")
    func instant() {
        for duration in [0.0, -1.0] {
            let fade = FadeClock(start: 5, duration: duration)
            #expect(fade.progress(at: 4.9) == 0)
            #expect(fade.progress(at: 5) == 1)
            #expect(fade.isFinished(at: 5))
            #expect(!fade.isFinished(at: 4.9))
        }
        #expect(FadeClock(start: 0).progress(at: .nan) == 0)
    }
}
