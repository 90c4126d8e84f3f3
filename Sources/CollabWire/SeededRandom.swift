/// A small, fast random number generator (SplitMix64) that repeats for a seed: the load tool's
/// `--seed` and the server's fault rules draw from it, so the same seed makes the same choices.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator for `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// A generator derived from this seed for one stream of choices (e.g. one visitor), independent
    /// of how many numbers other streams draw.
    public static func stream(_ index: Int, seed: UInt64) -> SeededRandom {
        var mixer = SeededRandom(seed: seed ^ (0x9E37_79B9_7F4A_7C15 &* UInt64(index + 1)))
        return SeededRandom(seed: mixer.next())
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
