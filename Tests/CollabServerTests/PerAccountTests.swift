@testable import CollabServer
import Testing

@Suite("Values per account, each behind its own lock")
struct PerAccountTests {
    @Test("accounts hold separate values; an account never used has none")
    func separateValues() {
        let counts = PerAccount<Int> { 0 }
        for _ in 0..<3 { counts.withLock("a") { $0 += 1 } }
        counts.withLock("b") { $0 += 10 }
        #expect(counts.withExisting("a") { $0 } == 3)
        #expect(counts.withExisting("b") { $0 } == 10)
        #expect(counts.withExisting("c") { $0 } == nil, "asking does not make a value")
    }

    /// Mutex is not recursive: were the two accounts behind one lock, the inner call would never return.
    @Test("one account's lock held, another account's value is reached", .timeLimit(.minutes(1)))
    func locksAreSeparate() {
        let counts = PerAccount<Int> { 0 }
        let seen = counts.withLock("busy") { busy in
            busy += 1
            return counts.withLock("quiet") { quiet in
                quiet += 1
                return quiet
            }
        }
        #expect(seen == 1)
        #expect(counts.withExisting("busy") { $0 } == 1)
    }
}
