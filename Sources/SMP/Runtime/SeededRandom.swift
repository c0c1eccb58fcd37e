/// SplitMix64: a small deterministic generator, so that fault decisions and randomised tests reproduce.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Makes a generator; the same seed gives the same numbers.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// True with the given probability in percent.
    public mutating func chance(_ percent: Double) -> Bool {
        guard percent > 0 else { return false }
        return Double(next() >> 11) / Double(1 << 53) * 100 < percent
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}
