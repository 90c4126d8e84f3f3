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
}
