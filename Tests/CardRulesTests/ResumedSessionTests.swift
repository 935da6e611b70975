import Testing
@testable import CardRules

/// A card taken up at a restart, when the wall clock says it was shown some time ago
/// (CardSession.init(resuming:)): the downtime is what the clock says, never less than
/// what the card itself lived before its reveal, never negative.
@Suite struct ResumedSessionTests {
    @Test("A revealed card whose clock went back: on show at least until its reveal, so its idle reset is due no later than the reset time from now")
    func revealedClockBack() {
        let session = CardSession(resuming: "a", revealAt: 0.6, now: 100, shownSecondsAgo: -86_400, touched: true, fraction: 0.7,
                                  reveal: (.threshold, 20, 0.7))
        #expect(session.phase == .done)
        #expect(session.shownAt == 80)
        #expect(session.shownAt + (session.reveal?.after ?? 0) == 100, "revealed at the restart, not in the future")
    }

    @Test("A touched card whose clock went back: shown now; a clock ahead: shown that long ago")
    func touchedClocks() {
        let back = CardSession(resuming: "a", revealAt: 0.6, now: 100, shownSecondsAgo: -86_400, touched: true, fraction: 0.2, reveal: nil)
        #expect(back.shownAt == 100 && back.phase == .scratching)
        let ahead = CardSession(resuming: "a", revealAt: 0.6, now: 100, shownSecondsAgo: 365 * 86_400, touched: true, fraction: 0.2, reveal: nil)
        #expect(ahead.shownAt == 100 - 365 * 86_400)
    }
}
