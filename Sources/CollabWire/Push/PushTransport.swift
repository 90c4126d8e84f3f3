/// The channel a push goes out on.
public enum PushTransport: String, Sendable, Codable, CaseIterable, NamedCases {
    /// An alert or background push to the APNs device token.
    case apns = "APNS"
    /// A VoIP push to the PushKit token.
    case apnsVoIP = "APNS_VOIP"
    /// A Firebase Cloud Messaging message.
    case fcm = "FCM"
}
