public import CollabWire

/// What the notification table decides for one device.
public enum NotificationDecision: String, Sendable, Equatable {
    /// Send a push.
    case push
    /// Ask the running app to show the collaboration UI (an event, no push).
    case uiVisibilityRequest
    /// The open UI shows it already.
    case nothing
}

/// The SDK's notification table: what reaches a device for a new message or an incoming call, by app state.
///
/// | app state | new message | incoming call |
/// |---|---|---|
/// | background (or no running client) | push | push (VoIP) |
/// | foreground, collaboration UI closed | push | UI visibility request |
/// | foreground, collaboration UI open | nothing | nothing |
///
/// Missed-call, inbound-request, read-message and revoke pushes follow the new-message column.
public enum NotificationPolicy {
    public static func decide(_ kind: PushKind, appState: AppState?) -> NotificationDecision {
        switch (appState ?? .background, kind) {
        case (.foregroundUIOpen, _): .nothing
        case (.foregroundUIClosed, .incomingCall): .uiVisibilityRequest
        default: .push
        }
    }
}
