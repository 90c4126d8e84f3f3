import CollabWire

extension AccountState {
    /// A call of the caller's account.
    public func call(_ id: String, accountId: String) throws(CollabError) -> Call {
        guard let call = calls[id], call.accountId == accountId else { throw .notFound("Call", id) }
        return call
    }

    /// A call of the account, not found for a visitor who never took part in its conversation.
    func visibleCall(_ id: String, to personId: String, accountId: String) throws(CollabError) -> Call {
        let call = try self.call(id, accountId: accountId)
        if let conversation = conversations[call.conversationId], isHidden(conversation, from: personId) { throw .notFound("Call", id) }
        return call
    }

    /// Searches the caller's calls.
    public func searchCalls(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<Call> {
        _ = try callerAccountId(principal)
        // The desk asks for one conversation's calls on every open: from the index, not every call.
        let lookups = SearchLookups().adding("ID", calls.idLookup).adding("CONVERSATION_ID", calls.lookup(Indexes.callByConversation))
            .ordering("ID", count: calls.count, walk: calls.walk(Indexes.callById))
            .ordering("INITIATION_TIMESTAMP", count: calls.count, walk: calls.walk(Indexes.callByInitiation))
            .ordering("END_TIMESTAMP", count: calls.count, walk: calls.walk(Indexes.callByEnd))
        return try SearchSchemas.call.run(query, lookups: lookups, row: { calls[$0] }, all: calls.values, id: \.id)
    }

    /// A participant of an active conversation starts an audio or video call. An agent calls the visitors:
    /// each visitor device gets an incoming-call push (VoIP when it has a PushKit token) or, with the app
    /// in the foreground and the UI closed, a UI visibility request. A visitor calls the conversation's
    /// assigned agent (an outgoing call for the app), who answers or declines on the agent API. The call
    /// rings until answered, declined, ended or `timeout` passes.
    public mutating func startCall(
        conversationId: String, initiatorPersonId: String, callType: Call.CallType, timeout: Int64, accountId: String, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) -> Call {
        let conversation = try ownConversation(conversationId, accountId: accountId)
        if isHidden(conversation, from: initiatorPersonId) { throw .notFound("Conversation", conversationId) }
        guard conversation.state == .active else {
            throw .conflict("calls start in ACTIVE conversations; this one is \(conversation.state.rawValue)")
        }
        let active = conversation.participants.filter { $0.state != .ended }
        guard let initiator = active.first(where: { $0.personId == initiatorPersonId }) else {
            throw .forbidden("only participants of the conversation start calls")
        }
        let callees: [String]
        if isAgent(initiatorPersonId, accountId: accountId) {
            callees = active.filter { $0.type == .contextPerson || $0.type == .secondaryVisitor }.map(\.personId)
            guard !callees.isEmpty else { throw .conflict("the conversation has no visitor to call") }
        } else {
            guard initiator.type == .contextPerson || initiator.type == .secondaryVisitor else {
                throw .forbidden("only agents and visitors start calls")
            }
            callees = active.filter { $0.type == .assignedAgent }.map(\.personId)
            guard !callees.isEmpty else { throw .conflict("the conversation has no agent to call") }
        }
        guard calls.count(Indexes.callByOpenConversation, conversationId) == 0 else {
            throw .conflict("the conversation already has a call")
        }
        guard calls.count(Indexes.callByConversation, conversationId) < ConversationLimits.callsPerConversation else {
            throw .conflict("the conversation holds the maximum of \(ConversationLimits.callsPerConversation) calls")
        }
        var call = Call(
            id: CallID.make(context.ids), accountId: accountId, conversationId: conversationId, callType: callType,
            initiatorPersonId: initiatorPersonId, initiationTimestamp: context.now, timeoutAt: context.now + max(1_000, timeout)
        )
        let configuration = configuration(of: conversation)
        let provider = configuration.value(for: CallServiceProvider.propertyKey)?.value.uppercased()
        call.serviceProvider = provider.flatMap { CallServiceProvider.all.contains($0) ? $0 : nil } ?? CallServiceProvider.openTok
        call.providerSessionId = CallServiceProvider.sessionId(provider: call.serviceProvider!, callId: call.id, ids: context.ids)
        call.audioGreeting = configuration.value(for: CallServiceProvider.audioGreetingKey)?.value
        call.secret = context.ids.makeSecret()
        let callerName = displayName(of: initiatorPersonId)
        for callee in callees {
            call.participations.append(CallParticipation(personId: callee, ringingTimestamp: context.now))
            var content = PushContent(
                type: .incomingCall, title: callerName, text: callType == .video ? "Incoming video call" : "Incoming call",
                conversationId: conversationId, timestamp: context.now
            )
            content.callId = call.id
            content.callType = callType.rawValue
            content.callerName = callerName
            content.callerPersonId = initiatorPersonId
            content.callState = "CALLING"
            content.audioGreeting = call.audioGreeting
            content.callServiceProvider = call.serviceProvider
            // Each device's push carries its own credential for this call (the locked-phone answer).
            let ringing = call
            let personalize = { (content: inout PushContent, device: Device) in
                content.callCredential = CallCredential.make(for: ringing, deviceRecordId: device.id)
            }
            call.ringingDeviceIds += notify(
                personId: callee, accountId: accountId, content: content, context: context, changes: &changes, personalize: personalize
            )
        }
        storeCall(call)
        changes.put(call)
        noteCallInRecording(call.id, conversationId: conversationId, context: context, changes: &changes)
        emitCall(.callStarted, call, conversation: conversation, context: context, changes: &changes)
        return call
    }

    /// A callee answers — a visitor on one of their devices (the other devices that rang get a revoke), or
    /// the agent of a call a visitor started (`deviceId` nil).
    public mutating func answerCall(
        _ id: String, personId: String, deviceId: String?, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Call {
        var call = try visibleCall(id, to: personId, accountId: accountId)
        guard let index = call.participations.firstIndex(where: { $0.personId == personId && $0.personId != call.initiatorPersonId }) else {
            throw .forbidden("this call is not for you")
        }
        guard call.state == .ringing else { throw .conflict("the call is \(call.state.rawValue) and cannot be answered") }
        call.state = .active
        call.acceptTimestamp = context.now
        call.participations[index].joinedTimestamp = context.now
        let answeredDevice = deviceId.map { Device.recordId(personId: personId, deviceId: $0) }
        call.answeredDeviceId = answeredDevice
        revoke(call, except: answeredDevice, context: context, changes: &changes)
        storeCall(call)
        changes.put(call)
        emitCall(.callAnswered, call, context: context, changes: &changes, detail: ["personId": personId])
        return call
    }

    /// A callee declines: the call ends (DECLINED) and every other device that rang gets a revoke (the
    /// declining device, `deviceId` when an app declines, knows already: a revoke would be one more
    /// VoIP push, which iOS makes an app report to CallKit as a call).
    public mutating func declineCall(
        _ id: String, personId: String, deviceId: String? = nil, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Call {
        var call = try visibleCall(id, to: personId, accountId: accountId)
        guard let index = call.participations.firstIndex(where: { $0.personId == personId && $0.personId != call.initiatorPersonId }) else {
            throw .forbidden("this call is not for you")
        }
        guard call.state == .ringing else { throw .conflict("the call is \(call.state.rawValue) and cannot be declined") }
        call.participations[index].endReason = "TERMINATED_BY_PARTICIPANT"
        finish(&call, reason: "DECLINED", context: context)
        revoke(call, except: deviceId.map { Device.recordId(personId: personId, deviceId: $0) }, context: context, changes: &changes)
        storeCall(call)
        changes.put(call)
        emitCall(.callEnded, call, context: context, changes: &changes)
        return call
    }

    /// A participant ends the call. A caller who hangs up before anyone answered leaves a missed call.
    public mutating func endCall(
        _ id: String, personId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Call {
        var call = try visibleCall(id, to: personId, accountId: accountId)
        guard call.participations.contains(where: { $0.personId == personId }) else { throw .forbidden("you are not in this call") }
        guard call.state != .ended else { throw .conflict("the call has already ended") }
        if call.state == .ringing {
            guard personId == call.initiatorPersonId else { throw .conflict("a ringing call is declined, not ended") }
            try miss(
                &call, reason: "ABORTED_BY_INITIATOR", participationReason: "MISSED_BECAUSE_TERMINATED", at: context.now, context: context,
                changes: &changes
            )
        } else {
            finish(&call, reason: "LAST_MANDATORY_PARTICIPANT_LEFT", context: context)
            storeCall(call)
            changes.put(call)
            emitCall(.callEnded, call, context: context, changes: &changes)
        }
        return call
    }

    /// A call still ringing at its timeout becomes missed (NOT_ANSWERED): its devices get a revoke and
    /// the callees a missed-call push.
    mutating func expireCall(_ id: String, now: Timestamp, context: OperationContext, changes: inout ChangeSet) {
        guard var call = calls[id], call.state == .ringing, call.timeoutAt <= now else { return }
        // It ended when it timed out, however late the sweep (a virtual clock moved past it) noticed.
        try? miss(
            &call, reason: "NOT_ANSWERED", participationReason: "MISSED_BECAUSE_TIMEOUT", at: call.timeoutAt, context: context, changes: &changes
        )
    }

    /// Ends the open call of a conversation that ends.
    mutating func endCalls(ofConversation conversationId: String, context: OperationContext, changes: inout ChangeSet) {
        for call in calls.rows(Indexes.callByOpenConversation, conversationId) {
            var ended = call
            let wasRinging = ended.state == .ringing
            finish(&ended, reason: "CONVERSATION_ENDED", context: context)
            if wasRinging { revoke(ended, except: nil, context: context, changes: &changes) }
            storeCall(ended)
            changes.put(ended)
            emitCall(.callEnded, ended, context: context, changes: &changes)
        }
    }

    private mutating func miss(
        _ call: inout Call, reason: String, participationReason: String, at endedAt: Timestamp, context: OperationContext,
        changes: inout ChangeSet
    ) throws(CollabError) {
        for index in call.participations.indices
        where call.participations[index].personId != call.initiatorPersonId && call.participations[index].joinedTimestamp == nil {
            call.participations[index].endReason = participationReason
        }
        finish(&call, reason: reason, at: endedAt, context: context)
        revoke(call, except: nil, context: context, changes: &changes)
        let callerName = displayName(of: call.initiatorPersonId)
        for participation in call.participations where participation.personId != call.initiatorPersonId {
            var content = PushContent(
                type: .missedCall, title: "Missed call", text: "\(callerName) tried to call you", conversationId: call.conversationId,
                timestamp: context.now)
            content.callId = call.id
            content.callType = call.callType.rawValue
            content.callerName = callerName
            content.callerPersonId = call.initiatorPersonId
            content.callState = "IDLE"
            content.callEndReason = participationReason
            content.callStartTimestamp = call.initiationTimestamp
            notify(
                personId: participation.personId, accountId: call.accountId, content: content, context: context, changes: &changes,
                countsTowardBadge: true)
        }
        storeCall(call)
        changes.put(call)
        var detail = ["missed": "true"]
        detail["reason"] = participationReason
        emitCall(.callEnded, call, context: context, changes: &changes, detail: detail)
    }

    /// Ends the call at `endedAt` (default: now).
    private func finish(_ call: inout Call, reason: String, at endedAt: Timestamp? = nil, context: OperationContext) {
        call.state = .ended
        call.endTimestamp = endedAt ?? context.now
        call.endReason = reason
        for index in call.participations.indices where call.participations[index].leftTimestamp == nil {
            call.participations[index].leftTimestamp = endedAt ?? context.now
        }
    }

    /// Tells the devices that rang that the call is over (ended, declined or answered elsewhere), and
    /// why: the state and `callEndReason` (`ANSWERED_ELSEWHERE`, or the call's end reason), so an app
    /// that gets it as a VoIP push reports an unsuccessful call.
    private mutating func revoke(_ call: Call, except deviceRecordId: String?, context: OperationContext, changes: inout ChangeSet) {
        let targets = Set(call.ringingDeviceIds).subtracting([deviceRecordId].compactMap { $0 })
        guard !targets.isEmpty else { return }
        for personId in Set(targets.compactMap { devices[$0]?.personId }) {
            var content = PushContent(type: .revokeCall, title: "", text: "", conversationId: call.conversationId, timestamp: context.now)
            content.callId = call.id
            content.callType = call.callType.rawValue
            content.callState = call.vendorState
            content.callEndReason = call.state == .active ? "ANSWERED_ELSEWHERE" : call.endReason
            notify(personId: personId, accountId: call.accountId, content: content, context: context, changes: &changes, only: targets)
        }
    }

    private func emitCall(
        _ kind: DomainEvent.Kind, _ call: Call, conversation: Conversation? = nil, context: OperationContext, changes: inout ChangeSet,
        detail: [String: String] = [:]
    ) {
        let conversation = conversation ?? conversations[call.conversationId]
        var details = detail
        details["callId"] = call.id
        details["callType"] = call.callType.rawValue
        details["callState"] = call.state.rawValue
        details["initiatorPersonId"] = call.initiatorPersonId
        if let reason = call.endReason { details["endReason"] = reason }
        var event = DomainEvent(
            kind: kind, accountId: call.accountId, timestamp: context.now, conversation: conversation,
            personIds: Set(call.participations.map(\.personId)).union(conversation?.activeParticipantIds ?? []), detail: details
        )
        event.call = call
        changes.emit(event)
    }
}
