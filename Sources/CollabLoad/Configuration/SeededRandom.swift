/// A small, fast random number generator (SplitMix64) that repeats for a seed, so two runs with the
/// same `--seed` make the same choices.
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

    /// `base` scaled by a random factor from 0.5 to 1.5.
    mutating func jittered(_ base: Double) -> Double {
        base * Double.random(in: 0.5...1.5, using: &self)
    }

    /// `count` random bytes as lowercase hex (device tokens).
    mutating func hex(bytes count: Int) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(count * 2)
        for _ in 0..<count {
            let byte = UInt8(truncatingIfNeeded: next())
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }
}
