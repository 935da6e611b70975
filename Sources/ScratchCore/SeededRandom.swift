// Seeded generators: the same numbers on every run and every machine. For pictures that
// must come out the same bytes, bursts, simulations and tests; never for a kiosk's real
// draws, which use the system's secure source.

/// SplitMix64: a small, fast generator with a seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// xorshift64*: the drawn cards' and icons' noise (sparkles, brushed foil).
public struct Noise: Sendable {
    private var state: UInt64

    /// A zero seed would give zeros for ever: it is replaced by a fixed odd one.
    public init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    public mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Uniform in [lo, hi).
    public mutating func between(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * unit() }
}
