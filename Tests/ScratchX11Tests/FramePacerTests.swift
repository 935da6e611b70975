import Testing
@testable import ScratchX11

/// The pacing rule on its own: a simulated clock, no display.
struct FramePacerTests {
    @Test("the first put goes at once; one right after waits a whole interval; after a pause, at once again")
    func firstAfterPauseGoesAtOnce() {
        var pacer = FramePacer(rate: 60)
        #expect(pacer.mayPut(at: 10))
        #expect(pacer.earliestPut(at: 10) == 10)
        pacer.didPut(at: 10)
        #expect(!pacer.mayPut(at: 10.001))
        #expect(abs(pacer.earliestPut(at: 10.001) - (10 + 1.0 / 60)) < 1e-12)
        #expect(!pacer.mayPut(at: 10 + 1.0 / 60 - 0.001))
        #expect(pacer.mayPut(at: 10 + 1.0 / 60))
        // Half a second later nothing holds it back.
        #expect(pacer.mayPut(at: 10.5))
        #expect(pacer.earliestPut(at: 10.5) == 10.5)
    }

    @Test("a late wake does not push the later slots back: they stay on the grid of the first put")
    func lateWakesDoNotAccumulate() {
        var pacer = FramePacer(rate: 100)       // slots every 10 ms
        pacer.didPut(at: 0)
        pacer.didPut(at: 0.0125)                // the 10 ms slot, 2.5 ms late
        #expect(abs(pacer.earliestPut(at: 0.013) - 0.020) < 1e-12, "the next slot is still at 20 ms")
        pacer.didPut(at: 0.0201)
        #expect(abs(pacer.earliestPut(at: 0.021) - 0.030) < 1e-12)
        // A put one and a half intervals after its slot (nothing was waiting at 30 ms)
        // takes the slot at 30 ms: the next is at 40 ms.
        pacer.didPut(at: 0.035)
        #expect(abs(pacer.earliestPut(at: 0.036) - 0.040) < 1e-12)
        // After a pause of two intervals or more the grid starts again.
        pacer.didPut(at: 0.1003)
        #expect(abs(pacer.earliestPut(at: 0.101) - 0.1103) < 1e-12)
        #expect(pacer.lastPut == 0.1003)
    }

    @Test("a new rate (the window went to another monitor) keeps the last slot: the next put waits the new interval after it")
    func changingRateKeepsTheGrid() {
        var pacer = FramePacer(rate: 100)       // slots every 10 ms
        pacer.didPut(at: 1)
        let slower = pacer.changingRate(to: 50)
        #expect(slower.rate == 50 && slower.interval == 0.02)
        #expect(slower.lastPut == 1 && slower.lastSlot == 1)
        #expect(abs(slower.earliestPut(at: 1.001) - 1.02) < 1e-12, "20 ms after the last slot, not 10")
        #expect(abs(slower.animationInterval - 0.04) < 1e-12, "the animations' stride follows: 2 intervals, 25 a second")
        #expect(FramePacer(rate: 60).changingRate(to: 75).mayPut(at: 0), "no put yet: at once")
    }

    @Test("a wake a few microseconds early is on time; one a tenth of a millisecond early more is not")
    func slack() {
        var pacer = FramePacer(rate: 100)
        pacer.didPut(at: 1)
        #expect(pacer.mayPut(at: 1.01 - 0.000_05))
        #expect(!pacer.mayPut(at: 1.01 - 0.000_2))
    }

    @Test("1000 events a second for 2 s: at most one put per interval, every event in one put, none waits over an interval")
    func thousandHertzDrag() {
        var pacer = FramePacer(rate: 60)
        var waiting: [Double] = []
        var puts: [Double] = []
        var longestWait = 0.0
        var carried = 0
        // Events every millisecond; the loop wakes for each event and at the slot.
        var t = 0.0
        var slot: Double?
        func tryPut(_ now: Double) {
            guard !waiting.isEmpty else { return }
            if pacer.mayPut(at: now) {
                puts.append(now)
                pacer.didPut(at: now)
                for arrival in waiting { longestWait = max(longestWait, now - arrival) }
                carried += waiting.count
                waiting.removeAll()
                slot = nil
            } else {
                slot = pacer.earliestPut(at: now)
            }
        }
        for i in 0..<2000 {
            t = Double(i) / 1000
            if let due = slot, due <= t { tryPut(due) }
            waiting.append(t)
            tryPut(t)
        }
        if let due = slot { tryPut(due) }
        #expect(carried == 2000)
        for (a, b) in zip(puts, puts.dropFirst()) { #expect(b - a >= 1.0 / 60 - FramePacer.slack) }
        #expect(puts.count <= 2 * 60 + 1)
        #expect(puts.count >= 2 * 60 - 1)
        #expect(longestWait <= 1.0 / 60 + 1e-9)
        #expect(puts.first == 0, "the first event of the drag is put at once")
    }

    @Test("animations: a whole number of intervals near 30 frames a second, never faster than puts")
    func animationInterval() {
        #expect(abs(FramePacer(rate: 60).animationInterval - 2.0 / 60) < 1e-12)
        #expect(abs(FramePacer(rate: 144).animationInterval - 5.0 / 144) < 1e-12)
        #expect(abs(FramePacer(rate: 30).animationInterval - 1.0 / 30) < 1e-12)
        #expect(abs(FramePacer(rate: 24).animationInterval - 1.0 / 24) < 1e-12, "slower than 30: every interval")
        #expect(abs(FramePacer(rate: 1000).animationInterval - 33.0 / 1000) < 1e-12)
        let pacer = FramePacer(rate: 60)
        #expect(abs(pacer.nextAnimationFrame(after: 3) - (3 + 2.0 / 60)) < 1e-12)
    }

    @Test("rates out of range are clamped; not a number counts as 60")
    func clamping() {
        #expect(FramePacer(rate: 0).rate == 1)
        #expect(FramePacer(rate: -5).rate == 1)
        #expect(FramePacer(rate: 1e9).rate == 1000)
        #expect(FramePacer(rate: .infinity).rate == 1000)
        #expect(FramePacer(rate: .nan).rate == 60)
        #expect(FramePacer(rate: 75.02).interval == 1 / 75.02)
    }
}
