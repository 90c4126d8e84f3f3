/// The requests to show or hide the collaboration UI that the server makes of a running app (the SDK
/// delegate's `didRequestShowUi` / hide request), as live events.
public enum UIRequests {
    /// Hide the individual UI when a layer activates (mobile co-browsing starts).
    public static let autoCollapseKey = "com.unblu.conversation.ui.autoCollapseIndividualUiOnLayerActivation"
    /// The collapse action in the visitor's overview action bar, which the user taps to hide the UI.
    public static let collapseActionKey = "com.unblu.visitor.ui.showOverviewActionBarCollapseAction"
    /// The reason of a show request for mobile co-browsing an agent asks for.
    public static let coBrowsingReason = "MOBILE_COBROWSING"
    /// The reason of a hide request because a layer (co-browsing) activated.
    public static let layerActivatedReason = "LAYER_ACTIVATED"
    /// The reason of a hide request the user's collapse action made.
    public static let collapseReason = "COLLAPSE"
}

extension AccountState {
    /// Asks the person's running apps that are in the foreground with the collaboration UI closed to
    /// show it: a `ui.visibility_request` event (no push), with `reason`, the conversation and `detail`.
    /// Apps in the background hear of it by push where there is one (incoming calls); apps showing the
    /// UI need nothing.
    mutating func requestUI(
        personId: String, reason: String, conversationId: String, detail extra: [String: String] = [:], context: OperationContext,
        changes: inout ChangeSet
    ) {
        guard clientSessions.count(Indexes.clientByForegroundPerson, personId) > 0 else { return }
        var detail = extra
        detail["reason"] = reason
        detail["conversationId"] = conversationId
        changes.emit(DomainEvent(kind: .uiVisibilityRequest, accountId: accountId, timestamp: context.now, personIds: [personId], detail: detail))
    }

    /// A co-browsing layer activated for the visitor: with `autoCollapseIndividualUiOnLayerActivation`
    /// on (along the conversation's cascade) the visitor's apps are asked to hide the collaboration UI,
    /// so the app's own screens — what is shared — show.
    mutating func collapseOnLayerActivation(
        _ session: CoBrowsingSession, conversation: Conversation, context: OperationContext, changes: inout ChangeSet
    ) {
        guard Self.isEnabled(UIRequests.autoCollapseKey, in: configuration(of: conversation)) else { return }
        let detail = [
            "reason": UIRequests.layerActivatedReason, "requestedByUser": "false", "conversationId": conversation.id,
            "coBrowsingSessionId": session.id,
        ]
        changes.emit(
            DomainEvent(kind: .uiHideRequest, accountId: accountId, timestamp: context.now, personIds: [session.visitorPersonId], detail: detail))
    }

    /// The user tapped the collapse action of the visitor UI (shown when `showOverviewActionBarCollapseAction`
    /// is on along the client's cascade): a hide request to that client alone.
    /// - Throws: `conflict` when the client's configuration does not show the action.
    public mutating func collapseUI(clientToken: String, context: OperationContext, changes: inout ChangeSet) throws(CollabError) {
        guard let session = clientSessions[clientToken] else { throw .unauthorized("unknown or stopped client") }
        guard Self.isEnabled(UIRequests.collapseActionKey, in: try configuration(for: session)) else {
            throw .conflict("the collapse action is off: set \(UIRequests.collapseActionKey) to true")
        }
        var detail = ["reason": UIRequests.collapseReason, "requestedByUser": "true"]
        detail["conversationId"] = session.openConversationId
        var event = DomainEvent(kind: .uiHideRequest, accountId: accountId, timestamp: context.now, personIds: [session.personId], detail: detail)
        event.clientId = session.clientId
        changes.emit(event)
    }
}
