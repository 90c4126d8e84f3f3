/// A fixed sequence of pseudo-random numbers (a linear congruential generator), so a randomised test's
/// failure is seen again on the next run.
struct SeededNumbers {
    var state: UInt64

    /// The next number in `0..<bound`.
    mutating func next(below bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// The next number in `0..<bound`, as a timestamp or duration.
    mutating func next(below bound: Int64) -> Int64 { Int64(next(below: Int(bound))) }
}
