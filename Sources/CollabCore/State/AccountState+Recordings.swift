/// Conversation recordings (`startRecording`, `stopRecording`, `getRecordingState`,
/// `conversationhistory/{id}/getConversationRecordings`, recorded minutes). The mock records metadata,
/// never media: a recording is its start, stop, type, calls and a plausible size.
extension AccountState {
    /// MockCollab's configuration keys for recordings (the vendor leaves them to its server setup).
    public enum RecordingRule {
        /// `false` refuses `startRecording`/`stopRecording` (default `true`).
        public static let manualKey = "com.unblu.conversation.recording.allowManualStartStop"
        /// `AUDIO` or `AUDIO_VIDEO`; unset, a recording is AUDIO_VIDEO unless the only layer is an audio call.
        public static let typeKey = "com.unblu.conversation.recording.recordingType"
    }

    /// `EConversationRecordingState` of a conversation: IDLE before any recording, STARTED while one
    /// runs, STOPPED after the last one stopped.
    public func recordingState(of conversation: Conversation) -> String {
        guard let last = conversation.recordings?.last else { return "IDLE" }
        return last.endTimestamp == nil ? "STARTED" : "STOPPED"
    }

    /// Starts recording a conversation that has an active call or co-browsing session and no running
    /// recording. Webhooks get `conversation.recording_started`.
    public mutating func startRecording(
        _ id: String, personId: String?, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try openConversation(id, accountId: accountId)
        let cascade = try checkManualRecording(conversation)
        guard conversation.runningRecording == nil else { throw .conflict("conversation \(id) is already being recorded") }
        let openCalls = calls.rows(Indexes.callByOpenConversation, id).filter { $0.state == .active }
        let coBrowsing = coBrowsingSessions.rows(Indexes.coBrowsingByOpenConversation, id).contains { $0.state == .active }
        guard !openCalls.isEmpty || coBrowsing else {
            throw .conflict("conversation \(id) has no active call or co-browsing session to record")
        }
        let type: ConversationRecording.RecordingType
        if let configured = cascade.value(for: RecordingRule.typeKey)?.value {
            guard let parsed = ConversationRecording.RecordingType(rawValue: configured.uppercased()) else {
                throw .badRequest("\(RecordingRule.typeKey) must be AUDIO or AUDIO_VIDEO, not '\(configured)'")
            }
            type = parsed
        } else {
            type = !coBrowsing && openCalls.allSatisfy { $0.callType == .audio } ? .audio : .audioVideo
        }
        var recordings = conversation.recordings ?? []
        if recordings.count >= ConversationRecording.maximumPerConversation { recordings.removeFirst() }
        recordings.append(
            ConversationRecording(
                id: context.ids.make(), recordingType: type, startTimestamp: context.now, callIds: openCalls.map(\.id), startedByPersonId: personId)
        )
        conversation.recordings = recordings
        save(conversation, context: context, changes: &changes)
        emit(.recordingStarted, conversation, context: context, changes: &changes)
        return conversation
    }

    /// Stops the running recording; its metadata becomes available (`conversation.recording_available`).
    public mutating func stopRecording(
        _ id: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Conversation {
        var conversation = try ownConversation(id, accountId: accountId)
        _ = try checkManualRecording(conversation)
        guard conversation.runningRecording != nil else { throw .conflict("conversation \(id) has no running recording") }
        finishRecording(&conversation, context: context, changes: &changes)
        save(conversation, context: context, changes: &changes)
        return conversation
    }

    /// Ends the running recording of a conversation that ends (the caller saves the conversation).
    mutating func finishRecording(_ conversation: inout Conversation, context: OperationContext, changes: inout ChangeSet) {
        guard var recordings = conversation.recordings, let last = recordings.indices.last, recordings[last].endTimestamp == nil else { return }
        recordings[last].endTimestamp = context.now
        recordings[last].endReason = "NORMAL"
        conversation.recordings = recordings
        emit(.recordingAvailable, conversation, context: context, changes: &changes)
    }

    /// A call that starts while a recording runs is held during it.
    mutating func noteCallInRecording(_ callId: String, conversationId: String, context: OperationContext, changes: inout ChangeSet) {
        guard var conversation = conversations[conversationId], var recordings = conversation.recordings, let last = recordings.indices.last,
            recordings[last].endTimestamp == nil, !recordings[last].callIds.contains(callId)
        else { return }
        recordings[last].callIds.append(callId)
        conversation.recordings = recordings
        save(conversation, context: context, changes: &changes)
    }

    /// Minutes recorded in this account's conversations by recordings that started in `[from, to)`
    /// (each recording rounded up to whole minutes; running ones do not count yet). Read from the
    /// minutes kept by day (``RecordedMinutesIndex``): the days in the range, not every recording.
    public func recordedMinutes(from: Timestamp?, to: Timestamp?) -> Int64 {
        recordedMinutesByDay.minutes(from: from, to: to)
    }

    private func checkManualRecording(_ conversation: Conversation) throws(CollabError) -> ConfigurationCascade {
        let cascade = configuration(of: conversation)
        if cascade.value(for: RecordingRule.manualKey)?.value.lowercased() == "false" {
            throw .forbidden("starting and stopping recordings by hand is not allowed (\(RecordingRule.manualKey))")
        }
        return cascade
    }
}
