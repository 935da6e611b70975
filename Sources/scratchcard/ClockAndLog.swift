// The numbers of the `--stats` lines (the clock and the log are ScratchCore's Clock.swift).

extension String {
    /// `value` with four decimals (`0.5000`), as the stats lines and the log print numbers.
    init(format4 value: Double) {
        let scaled = Int((value * 10_000).rounded())
        let fraction = String(scaled % 10_000)
        self = "\(scaled / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
    }
}
