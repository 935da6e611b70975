/// Latencies in whole microseconds, kept as a histogram so that a run of weeks takes the
/// same memory as a run of seconds: 1 µs resolution below 65.536 ms, one bucket above.
///
///     var latency = LatencyHistogram()
///     latency.record(microseconds: 850)
///     print(latency.percentile(0.99))
public struct LatencyHistogram: Sendable {
    private var buckets = [UInt32](repeating: 0, count: 65_537)
    public private(set) var count = 0

    public init() {}

    public mutating func record(microseconds: Int) {
        let bucket = Swift.min(Swift.max(microseconds, 0), buckets.count - 1)
        buckets[bucket] &+= 1
        count += 1
    }

    /// The smallest latency at or below which the fraction `p` (0...1) of samples lie;
    /// nil when there are none. The overflow bucket reads as 65536.
    public func percentile(_ p: Double) -> Int? {
        guard count > 0 else { return nil }
        let rank = Swift.max(1, Int((Double(count) * Swift.min(Swift.max(p, 0), 1)).rounded(.up)))
        var seen = 0
        for (value, n) in buckets.enumerated() {
            seen += Int(n)
            if seen >= rank { return value }
        }
        return buckets.count - 1
    }
}
