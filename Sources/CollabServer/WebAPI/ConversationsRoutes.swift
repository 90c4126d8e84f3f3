import CollabCore
import CollabWire
import Hummingbird

/// `/conversations/…`, `/conversationhistory/…`, `/bots/sendMessage` and `/availability/getAgentAvailability`.
struct ConversationsRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let conversations = group.group("conversations")
        conversations.operation(.post, "create", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let body = try await env.decode(WebConversationCreation.self, from: request)
            try checkType(body)
            let accountId = try ownAccount(nil, context.principal)
            let input = try body.input(accountId: accountId)
            let conversation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                let created = try state.createConversation(
                    input, mayChangePermissions: context.principal.role >= .admin, accountId: accountId, context: op, changes: &changes)
                return state.webConversation(created, expand: expand)
            }
            return JSONBody.response(conversation)
        }
        conversations.operation(.get, ":conversationId/read", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("conversationId")
            let conversation = try env.read(context.principal) { state throws(CollabError) in
                state.webConversation(try state.conversation(id, for: context.principal), expand: expand)
            }
            return JSONBody.response(conversation)
        }
        conversations.searchOperation(role: .registeredUser, queryType: "ConversationQuery", environment: env) {
            state, query, _, context throws(CollabError) in
            try state.searchConversations(query, for: context.principal).webResult("ConversationResult", offset: query.offset) {
                state.webConversation($0)
            }
        }
        conversations.operation(.post, ":conversationId/end", role: .registeredUser) { request, context in
            let id = try context.pathParameter("conversationId")
            let body = try await env.decode(WebEndBody?.self, fromOptional: request)
            let reason = try parseEndReason(body?.reason)
            let conversation = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.conversation(id, for: context.principal)
                let ended = try state.endConversation(
                    id, by: context.principal.personId, reason: reason, comment: body?.comment, accountId: try ownAccount(nil, context.principal),
                    context: op, changes: &changes
                )
                return state.webConversation(ended)
            }
            return JSONBody.response(conversation)
        }
        conversations.operation(.delete, ":conversationId/delete", role: .registeredUser) { _, context in
            let id = try context.pathParameter("conversationId")
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.conversation(id, for: context.principal)
                try state.deleteConversation(id, accountId: try ownAccount(nil, context.principal), context: op, changes: &changes)
            }
            return noContent
        }
        // These four answer without `expand`, as they always have.
        conversations.conversationChange("setRecipient", role: .admin, WebRecipient.self, expands: false, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            let accountId = try ownAccount(nil, principal)
            return try state.setRecipient(id, recipient: try body.domain(), accountId: accountId, context: op, changes: &changes)
        }
        conversations.conversationChange(
            "addParticipant", role: .admin, WebPersonRefBody.self, expands: false, environment: env, prepare: Self.personReference
        ) { state, id, reference, principal, op, changes throws(CollabError) in
            try state.addParticipant(
                id, personId: reference.personId, hidden: reference.hidden ?? false, accountId: try ownAccount(nil, principal), context: op,
                changes: &changes
            )
        }
        conversations.conversationChange(
            "setAssigneePerson", role: .admin, WebPersonRefBody.self, expands: false, environment: env, prepare: Self.personReference
        ) { state, id, reference, principal, op, changes throws(CollabError) in
            try state.setAssignee(id, personId: reference.personId, accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }
        conversations.conversationChange("setTopic", role: .registeredUser, WebTopicBody.self, expands: false, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            try state.setTopic(id, topic: body.topic, accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }

        group.group("conversationhistory").operation(.get, ":conversationId/read", role: .registeredUser) { _, context in
            let id = try context.pathParameter("conversationId")
            let history = try env.read(context.principal) { state throws(CollabError) in
                state.webHistory(try state.conversation(id, for: context.principal), for: context.principal)
            }
            return JSONBody.response(history)
        }

        let calls = group.group("calls")
        calls.operation(.get, ":callId/read", role: .registeredUser) { _, context in
            // Either case, as on the device API: ids are issued in upper case.
            let given = try context.pathParameter("callId")
            let id = CallID.canonical(given) ?? given
            let call = try env.read(context.principal) { state throws(CollabError) in
                state.webCall(try state.call(id, accountId: try ownAccount(nil, context.principal)))
            }
            return JSONBody.response(call)
        }
        calls.searchOperation(role: .registeredUser, queryType: "CallQuery", environment: env) { state, query, _, context throws(CollabError) in
            try state.searchCalls(query, for: context.principal).webResult("CallResult", offset: query.offset) { state.webCall($0) }
        }

        group.group("bots").operation(.post, "sendMessage", role: .admin) { request, context in
            let body = try await env.decode(WebBotPostMessage.self, from: request)
            try checkType(body)
            guard let conversationId = body.conversationId, let sender = body.senderPersonId else {
                throw CollabError.badRequest("conversationId and senderPersonId are required")
            }
            let text = try body.messageData.requiredText()
            let message = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                _ = try state.conversation(conversationId, for: context.principal)
                return try state.postMessage(
                    conversationId, senderPersonId: sender, text: text, clientMessageId: nil, isInternal: body.internal ?? false,
                    accountId: try ownAccount(nil, context.principal), context: op, changes: &changes
                )
            }
            return JSONBody.response(WebSendMessageResult(messageId: message.id))
        }

        group.group("availability").operation(.get, "getAgentAvailability", role: .anonymousUser) { request, context in
            let accountId = try env.accountId(apiKey: request.query("apiKey"), caller: context.principal)
            if let siteId = request.query("namedAreaSiteId") {
                guard try env.read(account: accountId, { $0.namedArea(siteId: siteId, accountId: accountId) }) != nil else {
                    throw CollabError(.notFound, "no named area with siteId '\(siteId)'")
                }
            }
            let online = try env.read(account: accountId) { $0.onlineAgents(accountId: accountId) }
            return JSONBody.response(WebAgentAvailability(availabilityState: online > 0 ? "AVAILABLE" : "UNAVAILABLE", isAvailable: online > 0))
        }
    }
}

extension ConversationsRoutes {
    /// The person a `WebPersonRefBody` names (required, checked before the state is read).
    @Sendable static func personReference(_ body: WebPersonRefBody) throws(CollabError) -> (personId: String, hidden: Bool?) {
        guard let personId = body.personId else { throw .badRequest("personId is required") }
        return (personId, body.hidden)
    }
}

extension WebConversationCreation {
    func input(accountId: String) throws(CollabError) -> ConversationInput {
        var recipient: ConversationRecipient?
        if let given = self.recipient {
            guard let typeText = given.recipientType, let type = RecipientType(rawValue: typeText) else {
                throw .badRequest("recipient.type must be NAMED_AREA, ACCOUNT, AGENT or TEAM")
            }
            guard let id = given.id, !id.isEmpty else { throw .badRequest("recipient.id is required") }
            recipient = ConversationRecipient(type: type, id: id)
        }
        var contextPerson: String?
        var others: [(personId: String, type: ParticipationType)] = []
        for (index, participant) in (participants ?? []).enumerated() {
            guard let personId = participant.personId else { throw .badRequest("participants[\(index)].personId is required") }
            let type = try ParticipationType(parsing: participant.participationType, field: "participants[\(index)].participationType")
            if type == .contextPerson, contextPerson == nil {
                contextPerson = personId
            } else {
                others.append((personId, type))
            }
        }
        return ConversationInput(
            topic: topic, recipient: recipient, engagementType: try parseEngagement(initialEngagementType), contextPersonId: contextPerson,
            participants: others, sourceId: sourceId, sourceUrl: sourceUrl, locale: locale, metadata: metadata, templateId: conversationTemplateId,
            configuration: configuration, text: text, inheritConfigurationAndTexts: inheritConfigurationAndTexts
        )
    }
}

extension WebRecipient {
    func domain() throws(CollabError) -> ConversationRecipient {
        guard let id, !id.isEmpty else { throw .badRequest("id is required") }
        switch type {
        case "NamedAreaData": return ConversationRecipient(type: .namedArea, id: id)
        case "AccountData": return ConversationRecipient(type: .account, id: id)
        case "PersonData": return ConversationRecipient(type: .agent, id: id)
        case "TeamData": return ConversationRecipient(type: .team, id: id)
        default: throw .badRequest("$_type must be NamedAreaData, AccountData, PersonData or TeamData")
        }
    }
}

extension AccountState {
    func webCall(_ call: Call) -> WebCall {
        var web = WebCall(
            id: call.id, accountId: call.accountId, conversationId: call.conversationId, initiatorPersonId: call.initiatorPersonId,
            callType: call.callType.rawValue, creationTimestamp: call.initiationTimestamp, initiationTimestamp: call.initiationTimestamp,
            acceptTimestamp: call.acceptTimestamp, establishedTimestamp: call.acceptTimestamp, endTimestamp: call.endTimestamp,
            endReason: call.endReason, participations: call.participations.map {
                WebCallParticipation(
                    accountId: call.accountId, personId: $0.personId, ringingTimestamp: $0.ringingTimestamp, joinedTimestamp: $0.joinedTimestamp,
                    leftTimestamp: $0.leftTimestamp)
            }
        )
        web.serviceProviderCallId = call.id
        web.serviceProviderType = call.serviceProvider
        return web
    }

    func webRecipient(_ recipient: ConversationRecipient, accountId: String) -> WebRecipient {
        switch recipient.type {
        case .account: WebRecipient(type: "AccountData", id: recipient.id, displayName: recipient.id == account.id ? account.name : nil)
        case .namedArea: WebRecipient(type: "NamedAreaData", id: recipient.id, accountId: accountId, displayName: namedAreas[recipient.id]?.name)
        case .agent: WebRecipient(type: "PersonData", id: recipient.id, accountId: accountId, displayName: persons[recipient.id]?.displayName)
        case .team: WebRecipient(type: "TeamData", id: recipient.id, accountId: accountId, displayName: declared.table(Team.self)[recipient.id]?.name)
        }
    }

    /// A conversation as the Web API shows it; its configuration and texts only when expanded.
    func webConversation(_ conversation: Conversation, expand: Expansion = Expansion()) -> WebConversation {
        var web = WebConversation(id: conversation.id)
        web.accountId = conversation.accountId
        web.creationTimestamp = conversation.creationTimestamp
        web.endTimestamp = conversation.endTimestamp
        web.topic = conversation.topic
        web.recipient = webRecipient(conversation.recipient, accountId: conversation.accountId)
        web.participants = conversation.participants.map {
            var participant = WebParticipant(personId: $0.personId, participationType: $0.type.rawValue, state: $0.state.rawValue, hidden: $0.hidden)
            participant.conversationStarred = $0.starred ?? false
            return participant
        }
        web.state = conversation.state.rawValue
        web.initialEngagementType = conversation.initialEngagementType.rawValue
        web.conversationVisibility = (conversation.visibility ?? .private).rawValue
        web.locale = conversation.locale
        web.sourceId = conversation.sourceId
        web.sourceUrl = conversation.sourceUrl
        web.endReason = conversation.endReason?.rawValue
        web.awaitedPersonType = conversation.awaitedPersonType.rawValue
        web.awaitedPersonTypeChangeTimestamp = conversation.awaitedPersonTypeChangeTimestamp
        if conversation.initialEngagementType == .scheduledConversation { web.scheduledTimestamp = conversation.scheduledTimestamp }
        web.metadata = conversation.metadata
        web.visitorData = conversation.visitorData
        if expand.configuration { web.configuration = effectiveConfiguration(of: conversation) ?? [:] }
        if expand.text { web.text = effectiveText(of: conversation) ?? [:] }
        web.conversationTemplateId = conversation.conversationTemplateId
        web.inheritConfigurationAndTexts = conversation.inheritConfigurationAndTexts
        web.externalMessengerChannelId = conversation.externalMessengerChannelId
        return web
    }

    /// A conversation's history as `principal` reads it: the persons the account's visibility rules hide
    /// from it are left out (their participations stay, without the person).
    func webHistory(_ conversation: Conversation, for principal: Principal) -> WebConversationHistory {
        webHistory(conversation, under: visibilityRules(for: principal))
    }

    /// A conversation's history as the caller `visibility` was worked out for reads it (once for a page).
    func webHistory(_ conversation: Conversation, under visibility: PersonVisibility) -> WebConversationHistory {
        var history = WebConversationHistory(id: conversation.id)
        history.recipient = webRecipient(conversation.recipient, accountId: conversation.accountId)
        let persons = visiblePersons(conversation.participants.map(\.personId) + [conversation.endPersonId].compactMap { $0 }, under: visibility)
        history.endPerson = conversation.endPersonId.flatMap { persons[$0] }.map { WebPerson($0, expand: Expansion()) }
        history.participants = conversation.participants.map {
            WebParticipantHistory(
                state: $0.state.rawValue, joinedTimestamp: $0.joinedTimestamp, leftTimestamp: $0.leftTimestamp, hidden: $0.hidden,
                participationType: $0.type.rawValue, person: persons[$0.personId].map { WebPerson($0, expand: Expansion()) }
            )
        }
        history.createdTimestamp = conversation.creationTimestamp
        history.assigneeJoinTimestamp = conversation.assigneeJoinTimestamp
        history.endTimestamp = conversation.endTimestamp
        history.lastMessageTimestamp = conversation.lastMessageTimestamp
        history.state = conversation.state.rawValue
        history.initialEngagementType = conversation.initialEngagementType.rawValue
        history.locale = conversation.locale
        history.endReason = conversation.endReason?.rawValue
        history.endComment = conversation.endComment
        history.topic = conversation.topic
        history.sourceUrl = conversation.sourceUrl
        history.stateChanges = conversation.stateChanges.map { WebStateChange(state: $0.state.rawValue, timestamp: $0.timestamp) }
        return history
    }
}

extension Optional where Wrapped == WebBotPostMessage.MessageData {
    /// The text of a `TextPostMessageData`, the only kind of `PostMessageData` the mock posts.
    /// - Throws: `badRequest` naming `messageData` when there is none or it is not a text message.
    func requiredText() throws(CollabError) -> String {
        guard let data = self, data.messageType == nil || data.messageType == "TEXT", data.type == nil || data.type == "TextPostMessageData" else {
            throw .badRequest("messageData must be a text message (TextPostMessageData)")
        }
        guard let text = data.text ?? data.fallbackText else { throw .badRequest("messageData.text is required") }
        return text
    }
}
