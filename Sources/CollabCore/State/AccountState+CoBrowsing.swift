extension AccountState {
    /// A co-browsing session of an account.
    public func coBrowsingSession(_ id: String, accountId: String) throws(CollabError) -> CoBrowsingSession {
        guard let session = coBrowsingSessions[id], session.accountId == accountId else { throw .notFound("CoBrowsingSession", id) }
        return session
    }

    /// The co-browsing session of a conversation that has not ended (requested or active), if any; at
    /// most one is open at a time. Check that the caller may see the conversation first.
    public func openCoBrowsingSession(ofConversation conversationId: String) -> CoBrowsingSession? {
        coBrowsingSessions.rows(Indexes.coBrowsingByOpenConversation, conversationId).first
    }

    /// An agent asks the visitor of an active conversation to share the screen.
    public mutating func requestCoBrowsing(
        conversationId: String, agentPersonId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> CoBrowsingSession {
        let conversation = try ownConversation(conversationId, accountId: accountId)
        guard conversation.state == .active else { throw .conflict("co-browsing starts in ACTIVE conversations") }
        guard conversation.isParticipant(agentPersonId), isAgent(agentPersonId, accountId: accountId) else {
            throw .forbidden("only agents in the conversation request co-browsing")
        }
        guard let visitor = conversation.contextPersonId else { throw .conflict("the conversation has no visitor") }
        let session = try open(
            conversation: conversation, visitor: visitor, requestedBy: agentPersonId, active: false, context: context, changes: &changes)
        // The visitor's app in the foreground is asked to show the UI, where the request is accepted.
        requestUI(
            personId: visitor, reason: UIRequests.coBrowsingReason, conversationId: conversationId, detail: ["coBrowsingSessionId": session.id],
            context: context, changes: &changes
        )
        return session
    }

    /// The visitor starts sharing in one of their conversations (no request needed).
    public mutating func startCoBrowsing(
        conversationId: String, visitorPersonId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> CoBrowsingSession {
        let conversation = try ownConversation(conversationId, accountId: accountId)
        if isHidden(conversation, from: visitorPersonId) { throw .notFound("Conversation", conversationId) }
        guard conversation.contextPersonId == visitorPersonId else { throw .forbidden("only the conversation's visitor shares the screen") }
        guard conversation.state.acceptsMessages else { throw .conflict("the conversation is \(conversation.state.rawValue)") }
        return try open(
            conversation: conversation, visitor: visitorPersonId, requestedBy: visitorPersonId, active: true, context: context, changes: &changes)
    }

    private mutating func open(
        conversation: Conversation, visitor: String, requestedBy: String, active: Bool, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> CoBrowsingSession {
        guard coBrowsingSessions.count(Indexes.coBrowsingByOpenConversation, conversation.id) == 0 else {
            throw .conflict("the conversation already has a co-browsing session")
        }
        let bound = ConversationLimits.coBrowsingSessionsPerConversation
        guard coBrowsingSessions.count(Indexes.coBrowsingByConversation, conversation.id) < bound else {
            throw .conflict("the conversation holds the maximum of \(bound) co-browsing sessions")
        }
        // Each open session holds its latest frame in memory (bounded per account by the frame ingest's
        // budget): a visitor shares one screen, so one app cannot take that budget by itself.
        guard coBrowsingSessions.count(Indexes.coBrowsingByOpenVisitor, visitor) < CoBrowsingLimits.openPerVisitor else {
            throw .conflict(
                "the visitor already shares the screen in \(CoBrowsingLimits.openPerVisitor) conversations: stop one first")
        }
        var session = CoBrowsingSession(
            id: context.ids.make(), accountId: conversation.accountId, conversationId: conversation.id, visitorPersonId: visitor,
            requestedBy: requestedBy, requestedAt: context.now
        )
        if active {
            session.state = .active
            session.startedAt = context.now
        }
        saveCoBrowsing(
            session, kind: active ? .coBrowsingStarted : .coBrowsingRequested, conversation: conversation, context: context, changes: &changes)
        if active { collapseOnLayerActivation(session, conversation: conversation, context: context, changes: &changes) }
        return session
    }

    /// The visitor accepts a requested session.
    public mutating func acceptCoBrowsing(
        _ id: String, visitorPersonId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> CoBrowsingSession {
        var session = try coBrowsingSession(id, accountId: accountId)
        if let conversation = conversations[session.conversationId], isHidden(conversation, from: visitorPersonId) {
            throw .notFound("CoBrowsingSession", id)
        }
        guard session.visitorPersonId == visitorPersonId else { throw .forbidden("this session is not yours") }
        guard session.state == .requested else { throw .conflict("the session is \(session.state.rawValue)") }
        session.state = .active
        session.startedAt = context.now
        saveCoBrowsing(session, kind: .coBrowsingStarted, context: context, changes: &changes)
        if let conversation = conversations[session.conversationId] {
            collapseOnLayerActivation(session, conversation: conversation, context: context, changes: &changes)
        }
        return session
    }

    /// Either side stops the session.
    public mutating func stopCoBrowsing(
        _ id: String, personId: String, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> CoBrowsingSession {
        var session = try coBrowsingSession(id, accountId: accountId)
        guard let conversation = conversations[session.conversationId], !isHidden(conversation, from: personId) else {
            throw .notFound("CoBrowsingSession", id)
        }
        guard conversation.participants.contains(where: { $0.personId == personId }) else {
            throw .forbidden("only the conversation's participants stop co-browsing")
        }
        guard session.state != .ended else { throw .conflict("the session has already ended") }
        session.state = .ended
        session.endedAt = context.now
        saveCoBrowsing(session, kind: .coBrowsingEnded, context: context, changes: &changes)
        return session
    }

    /// Ends the open session of a conversation that ends.
    mutating func endCoBrowsing(ofConversation conversationId: String, context: OperationContext, changes: inout ChangeSet) {
        for session in coBrowsingSessions.rows(Indexes.coBrowsingByOpenConversation, conversationId) {
            var ended = session
            ended.state = .ended
            ended.endedAt = context.now
            saveCoBrowsing(ended, kind: .coBrowsingEnded, context: context, changes: &changes)
        }
    }

    /// The frame rate limit of a session now: `iosMaxFpsRate` or `androidMaxFpsRate` along the cascade of
    /// the visitor's client (account → named area → API key), default 5.
    public func maxFps(for session: CoBrowsingSession, ios: Bool, clientToken: String?) -> Int {
        var cascade = ConfigurationCascade(global: directory.globalConfiguration.properties)
        if let client = clientToken.flatMap({ clientSessions[$0] }), let resolved = try? configuration(for: client) {
            cascade = resolved
        } else if let resolved = try? configuration(accountId: session.accountId) {
            cascade = resolved
        }
        return CoBrowsingConfiguration.maxFps(cascade: cascade, ios: ios)
    }

    private mutating func saveCoBrowsing(
        _ session: CoBrowsingSession, kind: DomainEvent.Kind, conversation: Conversation? = nil, context: OperationContext, changes: inout ChangeSet
    ) {
        coBrowsingSessions[session.id] = session
        changes.put(session)
        let conversation = conversation ?? conversations[session.conversationId]
        changes.emit(
            DomainEvent(
                kind: kind, accountId: session.accountId, timestamp: context.now, conversation: conversation,
                personIds: Set(conversation?.activeParticipantIds ?? []).union([session.visitorPersonId]),
                detail: ["coBrowsingSessionId": session.id, "state": session.state.rawValue]
            )
        )
    }
}

/// Bounds on co-browsing: an open session holds its latest frame (up to `--max-frame-bytes`) in memory.
public enum CoBrowsingLimits {
    /// Sessions one visitor may have open at once (an app shares one screen; a second conversation's
    /// request may overlap the first's end).
    public static let openPerVisitor = 2
}
