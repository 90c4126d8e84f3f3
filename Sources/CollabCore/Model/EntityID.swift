/// Makes the opaque identifiers entities carry.
///
/// Identifiers look like the vendor's (22 characters from a URL-safe alphabet). Randomness is
/// injected so tests and seeds can make identifiers reproducible.
public struct EntityIDGenerator: Sendable {
    private let random: @Sendable () -> UInt64

    /// Creates a generator that draws from the given random source.
    /// - Parameter random: Returns 64 random bits per call.
    public init(random: @escaping @Sendable () -> UInt64) {
        self.random = random
    }

    /// A generator drawing from the system's cryptographically secure generator.
    public static var system: EntityIDGenerator {
        EntityIDGenerator { UInt64.random(in: .min ... .max) }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// A new identifier of `length` characters.
    public func make(length: Int = 22) -> String {
        var result = ""
        result.reserveCapacity(length)
        var bits: UInt64 = 0
        var available = 0
        for _ in 0..<length {
            if available < 6 {
                bits = random()
                available = 64
            }
            result.append(Self.alphabet[Int(bits & 63)])
            bits >>= 6
            available -= 6
        }
        return result
    }

    /// `count` decimal digits, each equally likely: random bytes from 250 up are drawn again (250 is
    /// the largest multiple of ten a byte holds), so reducing the rest modulo ten favours no digit.
    public func makeDigits(_ count: Int) -> String {
        var digits = ""
        digits.reserveCapacity(count)
        var bits: UInt64 = 0
        var available = 0
        var draws = 0
        while digits.count < count {
            if available == 0 {
                bits = random()
                available = 8
                draws += 1
                // A source that keeps answering bytes ≥ 250 (a broken or constant test source) would
                // never end; a sound one needs a second draw per digit with a chance of 1 in 2^64.
                precondition(draws <= 8 * count + 64, "the random source gives no usable bytes")
            }
            let byte = UInt8(truncatingIfNeeded: bits)
            bits >>= 8
            available -= 1
            guard byte < 250 else { continue }
            digits.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "0") + byte % 10))
        }
        return digits
    }

    /// 64 bits from the generator's random source (for identifiers of another shape, e.g. ``CallID``).
    public func randomBits() -> UInt64 { random() }

    /// A new secret token (session cookies, authentication tokens, API keys): 43 characters, 256 bits.
    public func makeSecret() -> String { make(length: 43) }
}
