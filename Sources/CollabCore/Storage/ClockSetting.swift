/// The virtual clock's setting: stored as one server-wide record, so a restart (even after `kill -9`)
/// keeps the offset and the freeze, and shared by the replicas of a cluster through its change log.
public struct ClockSetting: StorableEntity, Equatable {
    public static var kind: EntityKind { .virtualClock }
    public var id: String { "clock" }
    public var storageAccountId: String? { nil }
    /// Milliseconds added to the system time.
    public var offset: Int64
    /// The frozen instant, if time stands still.
    public var frozenAt: Int64?

    /// The setting of a clock that follows the system time.
    public static let systemTime = ClockSetting(offset: 0, frozenAt: nil)

    public init(offset: Int64, frozenAt: Int64?) {
        self.offset = offset
        self.frozenAt = frozenAt
    }

    /// The instants the clock may show: 1970 to the end of the year 9999 (UTC). A change or a restored
    /// snapshot that would take the clock outside them is refused, and a stored setting from before
    /// the bound is held within them, so every sum of the clock and a duration the server keeps fits.
    public static let instants: ClosedRange<Timestamp> = 0...253_402_300_799_999

    /// The instant the setting shows when the system time is `system`, held within ``instants``.
    public func instant(system: Timestamp) -> Timestamp {
        min(max(unboundedInstant(system: system), Self.instants.lowerBound), Self.instants.upperBound)
    }

    /// Checks that the setting shows an instant within ``instants`` at system time `system`.
    /// - Throws: `badRequest` naming the bound.
    public func check(system: Timestamp) throws(CollabError) {
        let instant = unboundedInstant(system: system)
        guard Self.instants.contains(instant) else {
            throw .badRequest("the clock would show \(instant), outside 0...\(Self.instants.upperBound) (1970 to the end of 9999)")
        }
    }

    /// The frozen instant, or system time moved by the offset.
    private func unboundedInstant(system: Timestamp) -> Timestamp {
        frozenAt ?? system.adding(saturating: offset)
    }
}
