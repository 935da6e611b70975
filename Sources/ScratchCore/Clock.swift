@preconcurrency import Glibc

// The monotonic clock every part of the program times itself by, and the program's log
// on stderr.

/// Now on the monotonic clock (the X server's and the pacer's), in microseconds.
public func monotonicMicroseconds() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1_000_000 + t.tv_nsec / 1000
}

public func monotonicSeconds() -> Double { Double(monotonicMicroseconds()) / 1e6 }

public func monotonicNanoseconds() -> Int {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1_000_000_000 + t.tv_nsec
}

/// One line on stderr, after the program's name.
public func log(_ message: String) {
    fputs("scratchcard: \(message)\n", stderr)
}
