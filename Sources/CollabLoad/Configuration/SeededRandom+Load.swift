import CollabWire

/// The load tool's draws.
extension SeededRandom {
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
