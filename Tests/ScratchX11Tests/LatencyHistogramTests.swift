import Testing
@testable import ScratchX11

struct LatencyHistogramTests {
    @Test func percentiles() {
        var h = LatencyHistogram()
        #expect(h.percentile(0.5) == nil)
        for v in 1...100 { h.record(microseconds: v * 10) }
        #expect(h.count == 100)
        #expect(h.percentile(0.5) == 500)
        #expect(h.percentile(0.99) == 990)
        #expect(h.percentile(1) == 1000)
        h.record(microseconds: 10_000_000)
        h.record(microseconds: -4)
        #expect(h.percentile(1) == 65_536)
        #expect(h.percentile(0) == 0)
    }
}
