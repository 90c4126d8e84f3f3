/// The minutes of an account's finished recordings, by the day (UTC, from the epoch) each started, so
/// `getRecordedMinutes` over a range costs the days in it that hold recordings, plus the recordings of
/// its first and last day, rather than every recorded conversation the account holds.
public struct RecordedMinutesIndex: Sendable, Equatable {
    /// A finished recording: when it started and the whole minutes it counts for.
    struct Entry: Sendable, Equatable {
        var start: Timestamp
        var minutes: Int64
    }

    /// One day's finished recordings and their minutes together.
    private struct Day: Sendable, Equatable {
        var minutes: Int64 = 0
        var entries: [Entry] = []
    }

    /// A day in milliseconds: the width of the index's buckets.
    public static let dayMillis: Int64 = 86_400_000

    private var days: [Int64: Day] = [:]
    /// The days that hold a recording, ascending.
    private var order = SortedList<Int64>()

    public init() {}

    /// Keeps the index in step with a conversation that changed from `old` to `new` (a recording that
    /// finished, a conversation loaded, replicated or deleted).
    mutating func update(old: Conversation?, new: Conversation?) {
        let before = Self.finished(old)
        let after = Self.finished(new)
        guard before != after else { return }
        for entry in before { remove(entry) }
        for entry in after { add(entry) }
    }

    /// Minutes of the recordings that started in `[from, to)` (either bound absent: unbounded).
    func minutes(from: Timestamp?, to: Timestamp?) -> Int64 {
        let lower = from ?? .min
        let upper = to ?? .max
        guard lower < upper else { return 0 }
        let firstDay = Self.day(of: lower)
        let lastDay = Self.day(of: upper - 1)
        var total: Int64 = 0
        for day in order.ascending(after: firstDay == .min ? nil : firstDay - 1) {
            guard day <= lastDay else { break }
            guard let held = days[day] else { continue }
            if lower <= Self.start(of: day), Self.start(of: day + 1) <= upper {
                total += held.minutes
            } else {
                total += held.entries.reduce(0) { sum, entry in sum + (lower <= entry.start && entry.start < upper ? entry.minutes : 0) }
            }
        }
        return total
    }

    /// When `day` starts, kept within the timestamps (the last day's end is `Int64.max`).
    static func start(of day: Int64) -> Timestamp {
        let (start, overflow) = day.multipliedReportingOverflow(by: dayMillis)
        return overflow ? (day < 0 ? .min : .max) : start
    }

    /// The day `timestamp` falls in (rounded down, also before the epoch).
    static func day(of timestamp: Timestamp) -> Int64 {
        let (quotient, remainder) = timestamp.quotientAndRemainder(dividingBy: dayMillis)
        return remainder < 0 ? quotient - 1 : quotient
    }

    private static func finished(_ conversation: Conversation?) -> [Entry] {
        (conversation?.recordings ?? []).compactMap { recording in
            recording.endTimestamp == nil ? nil : Entry(start: recording.startTimestamp, minutes: recording.recordedMinutes)
        }
    }

    private mutating func add(_ entry: Entry) {
        let day = Self.day(of: entry.start)
        if days[day] == nil { order.insert(day) }
        days[day, default: Day()].minutes += entry.minutes
        days[day, default: Day()].entries.append(entry)
    }

    private mutating func remove(_ entry: Entry) {
        let day = Self.day(of: entry.start)
        guard let index = days[day]?.entries.firstIndex(of: entry) else { return }
        days[day]?.entries.remove(at: index)
        days[day]?.minutes -= entry.minutes
        if days[day]?.entries.isEmpty == true {
            days[day] = nil
            order.remove(day)
        }
    }
}
