@testable import CardRules
import ScratchCore
import Testing

struct CardSessionTests {
    @Test("the threshold reveals once; scratching after it changes nothing")
    func revealsOnce() {
        var session = CardSession(cardID: "c", revealAt: 0.6, now: 10)
        #expect(session.pressed() == [.scratchStart(cardID: "c")])
        #expect(session.pressed() == [])
        #expect(session.scratched(fraction: 0.25, now: 11) == [.progress(cardID: "c", percent: 10), .progress(cardID: "c", percent: 20)])
        let events = session.scratched(fraction: 0.61, now: 12.5)
        #expect(events.map(\.name) == ["progress", "progress", "progress", "progress", "revealed"])
        #expect(events.last == .revealed(cardID: "c", how: .threshold, fraction: 0.61, milliseconds: 2500))
        #expect(!session.acceptsScratches)
        #expect(session.scratched(fraction: 0.9, now: 13) == [])
        #expect(session.revealRequested(fraction: 0.9, now: 13) == [])
    }

    @Test("the fade runs on the clock and ends done, in the whole prize")
    func fadeOnTheClock() throws {
        var session = CardSession(cardID: "c", revealAt: 1, now: 0)      // auto-reveal off
        #expect(session.scratched(fraction: 0.99, now: 1).allSatisfy { $0.name == "progress" })
        #expect(session.acceptsScratches)
        #expect(session.revealRequested(fraction: 0.3, now: 2) == [.revealed(cardID: "c", how: .keyboard, fraction: 0.3, milliseconds: 2000)])
        #expect(session.isAnimating)
        let early = session.fadeProgress(now: 2.1) ?? -1
        let later = session.fadeProgress(now: 2.3) ?? -1
        #expect(early > 0 && early < later && later < 1)
        #expect(session.fadeProgress(now: 2.5) == 1)
        #expect(session.phase == .done)
        #expect(session.fadeProgress(now: 3) == nil)
        #expect(!session.isAnimating)
    }
}
