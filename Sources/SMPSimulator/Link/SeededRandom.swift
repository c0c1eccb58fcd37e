/// SplitMix64: a small deterministic generator for fault decisions.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// True with the given probability in percent.
    mutating func chance(_ percent: Double) -> Bool {
        guard percent > 0 else { return false }
        return Double(next() >> 11) / Double(1 << 53) * 100 < percent
    }
}
