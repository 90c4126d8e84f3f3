import Testing

@testable import CollabServer

@Suite("FailureStreak")
struct FailureStreakTests {
    @Test("of 1,000 failures in a row, the 1st, 10th, 100th and 1,000th are logged")
    func powersOfTen() {
        var streak = FailureStreak()
        let logged = (1...1_000).filter { _ in streak.failed() }
        #expect(logged == [1, 10, 100, 1_000])
        #expect(streak.count == 1_000)
    }

    @Test("a success ends the streak: it says how long it was, and the next failure is logged again")
    func successEndsTheStreak() {
        var streak = FailureStreak()
        let none = streak.succeeded()
        #expect(none == 0, "no streak: nothing to report")
        for _ in 1...12 { _ = streak.failed() }
        let ended = streak.succeeded()
        #expect(ended == 12)
        #expect(streak.count == 0)
        let first = streak.failed(), second = streak.failed()
        #expect(first, "the first failure of a new streak is logged")
        #expect(!second)
    }
}
