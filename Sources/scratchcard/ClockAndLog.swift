@preconcurrency import Glibc

// The monotonic clock every part of the program times itself by, the log on stderr, and
// the numbers of the `--stats` lines.

/// Now on the monotonic clock (the X server's and the pacer's), in microseconds.
func monotonicMicroseconds() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1_000_000 + t.tv_nsec / 1000
}

func monotonicSeconds() -> Double { Double(monotonicMicroseconds()) / 1e6 }

func monotonicNanoseconds() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1_000_000_000 + t.tv_nsec
}

/// One line on stderr, after the program's name.
func log(_ message: String) {
    fputs("scratchcard: \(message)\n", stderr)
}

extension String {
    /// `value` with four decimals (`0.5000`), as the stats lines and the log print numbers.
    init(format4 value: Double) {
        let scaled = Int((value * 10_000).rounded())
        let fraction = String(scaled % 10_000)
        self = "\(scaled / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
    }
}
