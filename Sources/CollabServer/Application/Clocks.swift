public import CollabCore
import Foundation
import Synchronization

/// The server's clock: the system time plus an adjustable offset, or a frozen instant.
///
/// The control API moves it (virtual time) so tests can drive expiries and timeouts without waiting.
public final class AdjustableClock: CollabClock {
    private let state = Mutex(ClockSetting.systemTime)
    private let system: @Sendable () -> Timestamp

    /// Creates a clock that follows the system time.
    public init() {
        self.system = { SystemClock().now() }
    }

    /// Creates a clock frozen at `instant` (for tests).
    public init(frozenAt instant: Timestamp) {
        self.system = { SystemClock().now() }
        state.withLock { $0.frozenAt = instant }
    }

    public func now() -> Timestamp {
        let system = system()
        return state.withLock { $0.instant(system: system) }
    }

    /// Moves time forward (or back) by `milliseconds`.
    public func advance(by milliseconds: Int64) {
        change(frozen: nil, advancedBy: milliseconds)
    }

    /// Stops time at the current instant, or resumes it from there.
    public func setFrozen(_ frozen: Bool) {
        change(frozen: frozen, advancedBy: nil)
    }

    /// The setting freezing or unfreezing and then advancing would leave, without changing the clock (a
    /// change is stored before it applies).
    /// - Throws: `badRequest` when the clock would leave ``ClockSetting/instants``.
    public func proposed(frozen: Bool?, advancedBy milliseconds: Int64?) throws(CollabError) -> ClockSetting {
        let system = system()
        let next = state.withLock { Self.setting($0, frozen: frozen, advancedBy: milliseconds, system: system) }
        try next.check(system: system)
        return next
    }

    private func change(frozen: Bool?, advancedBy milliseconds: Int64?) {
        let system = system()
        state.withLock { $0 = Self.setting($0, frozen: frozen, advancedBy: milliseconds, system: system) }
    }

    /// `setting` frozen at its current instant (`true`) or running on from it (`false`), then moved by
    /// `milliseconds`.
    private static func setting(_ setting: ClockSetting, frozen: Bool?, advancedBy milliseconds: Int64?, system: Timestamp) -> ClockSetting {
        var next = setting
        let current = setting.instant(system: system)
        if frozen == true {
            next.frozenAt = current
        } else if frozen == false, setting.frozenAt != nil {
            next = ClockSetting(offset: current - system, frozenAt: nil)
        }
        if let milliseconds {
            if let instant = next.frozenAt {
                next.frozenAt = instant.adding(saturating: milliseconds)
            } else {
                next.offset = next.offset.adding(saturating: milliseconds)
            }
        }
        return next
    }

    /// Whether time is frozen.
    public var isFrozen: Bool { state.withLock { $0.frozenAt != nil } }

    /// The offset and frozen instant, as a cluster's replicas share them.
    public var setting: ClockSetting {
        state.withLock { $0 }
    }

    /// Takes the setting another replica of the cluster made.
    public func apply(_ setting: ClockSetting) {
        state.withLock { $0 = setting }
    }

    /// The offset from system time, in milliseconds.
    public var offset: Int64 { now() - system() }
}

/// Real time, never moved: for what leaves the process to be checked against another party's clock
/// (the push services' credentials), whatever the server's virtual clock says.
public struct SystemClock: CollabClock {
    public init() {}

    public func now() -> Timestamp { Timestamp((Date().timeIntervalSince1970 * 1000).rounded()) }
}
