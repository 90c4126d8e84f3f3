/// Failures in a row of work that is tried again and again, such as the clock-driven work while a
/// cluster's database is away (tried every tick). It says which failures to log: the 1st, 10th, 100th,
/// … in a row. So an outage costs a few log lines, not one per try, and how long it has lasted still
/// shows.
struct FailureStreak: Sendable {
    /// Failures since the last success.
    private(set) var count = 0

    /// Counts a failure; `true` when it is one to log (its number in the streak is a power of ten).
    mutating func failed() -> Bool {
        count += 1
        var number = count
        while number % 10 == 0 { number /= 10 }
        return number == 1
    }

    /// Ends the streak and returns how many failures it held (0 when the work had not failed).
    mutating func succeeded() -> Int {
        defer { count = 0 }
        return count
    }
}
