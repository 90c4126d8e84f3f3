public import CollabWire
/// One recording of a conversation's call or collaboration layer (the vendor's
/// `ConversationRecordingHistoryData`). The mock keeps the metadata only: no media is captured, so the
/// size is what the vendor's encoder would plausibly have written for the recording's length, and
/// there is nothing to download.
public struct ConversationRecording: Sendable, Codable, Equatable {
    /// `ERecordingType`.
    public enum RecordingType: String, Sendable, Codable, CaseIterable, NamedCases {
        case audio = "AUDIO"
        case audioVideo = "AUDIO_VIDEO"
    }

    /// The blob store id of the recording.
    public var id: String
    public var recordingType: RecordingType
    public var startTimestamp: Timestamp
    /// When it stopped; `nil` while it runs.
    public var endTimestamp: Timestamp?
    /// `ERecordingEndReason` once it stopped.
    public var endReason: String?
    /// The calls held while it ran.
    public var callIds: [String]
    /// Who started it, when a person did.
    public var startedByPersonId: String?

    /// Bytes per second of media the size is reckoned with: 32 kbit/s audio, 500 kbit/s audio and video.
    public var bytesPerSecond: Int64 { recordingType == .audio ? 4_000 : 62_500 }

    /// The recording's length in milliseconds (up to `now` while it runs).
    /// (Saturating, as the size and minutes below: a restored snapshot may hold any times.)
    public func duration(at now: Timestamp) -> Int64 { max(0, (endTimestamp ?? now).subtracting(saturating: startTimestamp)) }

    /// The size a real recording of this length would have.
    public func totalSize(at now: Timestamp) -> Int64 { duration(at: now).multiplied(saturating: bytesPerSecond) / 1000 }

    /// Whole minutes, rounded up: what recorded-minutes totals count.
    public var recordedMinutes: Int64 {
        guard endTimestamp != nil else { return 0 }
        return duration(at: 0).adding(saturating: 59_999) / 60_000
    }

    public var mimeType: String { recordingType == .audio ? "audio/webm" : "video/webm" }

    public func fileName(conversationId: String) -> String { "recording-\(conversationId)-\(startTimestamp).webm" }

    /// Recordings one conversation keeps; starting another drops the oldest.
    public static let maximumPerConversation = 100
}
