import CollabCore
import CollabWire
import Hummingbird

/// Recordings: `conversations/{id}/startRecording`, `stopRecording`, `getRecordingState` and
/// `conversationhistory/{id}/getConversationRecordings`. The mock records metadata only (no media).
struct RecordingRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let conversations = group.group("conversations")
        conversations.operation(.post, ":conversationId/startRecording", role: .registeredUser) { _, context in
            let id = try context.pathParameter("conversationId")
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.conversation(id, for: context.principal)
                _ = try state.startRecording(
                    id, personId: context.principal.personId, accountId: try ownAccount(nil, context.principal), context: op, changes: &changes)
            }
            return noContent
        }
        conversations.operation(.post, ":conversationId/stopRecording", role: .registeredUser) { _, context in
            let id = try context.pathParameter("conversationId")
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.conversation(id, for: context.principal)
                _ = try state.stopRecording(id, accountId: try ownAccount(nil, context.principal), context: op, changes: &changes)
            }
            return noContent
        }
        conversations.operation(.post, ":conversationId/getRecordingState", role: .registeredUser) { _, context in
            let id = try context.pathParameter("conversationId")
            let answer = try env.read(context.principal) { state throws(CollabError) in
                let conversation = try state.conversation(id, for: context.principal)
                let running = conversation.runningRecording
                return WebRecordingState(
                    conversationId: id, recordingState: state.recordingState(of: conversation), recordingType: running?.recordingType.rawValue,
                    recordingStartTimestamp: running?.startTimestamp
                )
            }
            return JSONBody.response(answer)
        }
        group.group("conversationhistory").operation(.get, ":conversationId/getConversationRecordings", role: .registeredUser) { _, context in
            let id = try context.pathParameter("conversationId")
            let now = env.clock.now()
            let list = try env.read(context.principal) { state throws(CollabError) in
                let conversation = try state.conversation(id, for: context.principal)
                return WebRecordingList(items: (conversation.recordings ?? []).map { WebRecordingHistory($0, conversationId: id, now: now) })
            }
            return JSONBody.response(list)
        }
    }
}

/// `ConversationRecordingState`.
struct WebRecordingState: Codable, Sendable {
    var type = "ConversationRecordingState"
    var conversationId: String
    var recordingState: String
    var recordingType: String?
    var recordingStartTimestamp: Int64?

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case conversationId, recordingState, recordingType, recordingStartTimestamp
    }
}

/// `ConversationRecordingHistoryData`: a running recording is `INITIALIZING` with no end yet, a
/// stopped one `COMPLETE`. There are no download links: no media is captured.
struct WebRecordingHistory: Codable, Sendable {
    var type = "ConversationRecordingHistoryData"
    var conversationId: String
    var blobStoreId: String
    var fileName: String
    var mimeType: String
    var totalSize: Int64
    var downloadLinks: [WebDownloadLink] = []
    var recordingStartTimestamp: Int64
    var recordingEndTimestamp: Int64?
    var status: String
    var endReason: String?
    var recordingType: String
    var callIds: [String]

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case conversationId, blobStoreId, fileName, mimeType, totalSize, downloadLinks, recordingStartTimestamp, recordingEndTimestamp
        case status, endReason, recordingType, callIds
    }

    init(_ recording: ConversationRecording, conversationId: String, now: Int64) {
        self.conversationId = conversationId
        blobStoreId = recording.id
        fileName = recording.fileName(conversationId: conversationId)
        mimeType = recording.mimeType
        totalSize = recording.totalSize(at: now)
        recordingStartTimestamp = recording.startTimestamp
        recordingEndTimestamp = recording.endTimestamp
        status = recording.endTimestamp == nil ? "INITIALIZING" : "COMPLETE"
        endReason = recording.endReason
        recordingType = recording.recordingType.rawValue
        callIds = recording.callIds
    }
}

/// `ConversationRecordingHistoryDataList`.
struct WebRecordingList: Codable, Sendable {
    var type = "ConversationRecordingHistoryDataList"
    var items: [WebRecordingHistory]

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case items
    }
}

/// `RecordedMinutesData`.
struct WebRecordedMinutes: Codable, Sendable {
    var type = "RecordedMinutesData"
    var recordedMinutes: Int64

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case recordedMinutes
    }
}
