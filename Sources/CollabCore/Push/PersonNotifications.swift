public import CollabWire
/// A person's notification controls and unread counts, the vendor's `pauseNotifications*` and
/// `getNotificationCount*` model. Time limits are compared with the server clock when a notification
/// is decided or the state is read, so nothing needs a timer: a pause is over as soon as its end passes.
public struct PersonNotifications: Sendable, Codable, Equatable {
    /// `EPauseNotificationsMode`.
    public enum Mode: String, Sendable, Codable, CaseIterable, NamedCases {
        /// Paused (until ``PersonNotifications/pauseEndTimestamp``, if set; AUTO afterwards).
        case on = "ON"
        case off = "OFF"
        /// Paused while an auto-pause reason is in force.
        case auto = "AUTO"
    }

    /// `AutoPauseNotificationsReasonData`.
    public struct AutoPauseReason: Sendable, Codable, Equatable {
        public var sourceId: String
        public var displayName: String?
        /// When the reason stops pausing; `nil`: until removed.
        public var expirationTimestamp: Timestamp?

        func isInForce(at now: Timestamp) -> Bool { expirationTimestamp.map { now < $0 } ?? true }
    }

    /// Most auto-pause reasons one person may hold.
    public static let maxReasons = 100
    /// Longest source id the vendor allows.
    public static let maxSourceIdLength = 36

    public var mode: Mode
    public var pauseEndTimestamp: Timestamp?
    public var autoPauseReasons: [AutoPauseReason]
    /// Unread notifications per conversation (new messages, missed calls) since the person last opened
    /// the collaboration UI.
    public var counts: [String: Int]

    public init(mode: Mode = .off, pauseEndTimestamp: Timestamp? = nil, autoPauseReasons: [AutoPauseReason] = [], counts: [String: Int] = [:]) {
        self.mode = mode
        self.pauseEndTimestamp = pauseEndTimestamp
        self.autoPauseReasons = autoPauseReasons
        self.counts = counts
    }

    /// The mode in force at `now`: an ON pause whose period is over falls back to AUTO.
    public func effectiveMode(at now: Timestamp) -> Mode {
        if mode == .on, let end = pauseEndTimestamp, now >= end { return .auto }
        return mode
    }

    /// Why notifications are paused at `now` (`nil`: they are not), as the outbox shows it.
    public func pauseReason(at now: Timestamp) -> String? {
        switch effectiveMode(at: now) {
        case .off: return nil
        case .on: return "NOTIFICATIONS_PAUSED (pauseNotifications)"
        case .auto:
            let reasons = autoPauseReasons.filter { $0.isInForce(at: now) }.map(\.sourceId)
            return reasons.isEmpty ? nil : "NOTIFICATIONS_AUTO_PAUSED (\(reasons.joined(separator: ", ")))"
        }
    }

    /// The auto-pause reasons still in force at `now`.
    public func reasons(at now: Timestamp) -> [AutoPauseReason] { autoPauseReasons.filter { $0.isInForce(at: now) } }

    /// Unread notifications across every conversation.
    public var total: Int { counts.values.reduce(0, +) }
}
