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

    /// 64 bits from the generator's random source (for identifiers of another shape, e.g. ``CallID``).
    public func randomBits() -> UInt64 { random() }

    /// A new secret token (session cookies, authentication tokens, API keys): 43 characters, 256 bits.
    public func makeSecret() -> String { make(length: 43) }
}
