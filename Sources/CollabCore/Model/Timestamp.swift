/// Milliseconds since 1970-01-01T00:00:00Z, the Web API's time unit.
public typealias Timestamp = Int64

/// The source of the current time.
///
/// The core never reads the wall clock: the server injects a clock, and tests or the control API's
/// virtual clock decide what "now" is, so expiries and timeouts are deterministic.
public protocol CollabClock: Sendable {
    /// The current time in milliseconds since the epoch.
    func now() -> Timestamp
}

extension Timestamp {
    /// Milliseconds from a floating-point count (a JWT's `exp` times 1000, say), held to what a
    /// timestamp can represent: a far-future instant becomes `.max` instead of trapping, NaN becomes 0.
    public init(saturating milliseconds: Double) {
        if milliseconds.isNaN {
            self = 0
        } else if milliseconds >= Double(Int64.max) {
            self = .max
        } else if milliseconds < Double(Int64.min) {
            self = .min
        } else {
            self = Int64(milliseconds)
        }
    }
}

extension FixedWidthInteger where Self: SignedInteger {
    /// `self + other`, held at `.max` or `.min` instead of trapping: for sums of stored values that a
    /// restored snapshot or an upstream answer may set anywhere in the type's range.
    public func adding(saturating other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, held at `.max` or `.min` instead of trapping.
    public func subtracting(saturating other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }

    /// `self * other`, held at `.max` or `.min` instead of trapping.
    public func multiplied(saturating other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : product
    }
}
