import CollabCore
import CollabWire
import Hummingbird

/// `/persons/{id}/pauseNotifications`, `resumeNotifications`, `autoPauseNotifications`,
/// `addAutoPauseNotificationsReason`, `removeAutoPauseNotificationsReason`, `getNotificationCount`,
/// `getNotificationCountForConversations`.
struct PersonNotificationRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        @Sendable func stateResponse(_ person: Person) -> Response {
            JSONBody.response(WebAgentPersonState(person, now: env.clock.now()))
        }
        group.operation(.post, ":personId/pauseNotifications", role: .admin) { request, context in
            let id = try context.pathParameter("personId")
            let body = try await env.decode(WebTimeoutBody?.self, fromOptional: request)
            let person = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.pauseNotifications(
                    personId: id, timeoutSeconds: body?.timeoutSeconds, for: context.principal, context: op, changes: &changes)
            }
            return stateResponse(person)
        }
        group.operation(.post, ":personId/resumeNotifications", role: .admin) { _, context in
            let id = try context.pathParameter("personId")
            let person = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.resumeNotifications(personId: id, for: context.principal, context: op, changes: &changes)
            }
            return stateResponse(person)
        }
        group.operation(.post, ":personId/autoPauseNotifications", role: .admin) { _, context in
            let id = try context.pathParameter("personId")
            let person = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.autoPauseNotifications(personId: id, for: context.principal, context: op, changes: &changes)
            }
            return stateResponse(person)
        }
        group.operation(.post, ":personId/addAutoPauseNotificationsReason", role: .admin) { request, context in
            let id = try context.pathParameter("personId")
            let body = try await env.decode(WebAutoPauseReasonBody.self, from: request)
            let person = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.addAutoPauseReason(
                    personId: id, sourceId: body.sourceId, displayName: body.displayName, timeoutSeconds: body.timeoutSeconds, for: context.principal,
                    context: op, changes: &changes
                )
            }
            return stateResponse(person)
        }
        group.operation(.post, ":personId/removeAutoPauseNotificationsReason", role: .admin) { request, context in
            let id = try context.pathParameter("personId")
            let body = try await env.decode(WebAutoPauseReasonBody.self, from: request)
            let person = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.removeAutoPauseReason(personId: id, sourceId: body.sourceId, for: context.principal, context: op, changes: &changes)
            }
            return stateResponse(person)
        }
        group.operation(.get, ":personId/getNotificationCount", role: .registeredUser) { _, context in
            let id = try context.pathParameter("personId")
            let count = try env.read(context.principal) { state throws(CollabError) in
                try state.notificationCount(personId: id, conversationIds: nil, for: context.principal)
            }
            return JSONBody.response(WebNotificationCount(personId: id, totalNotificationCount: count))
        }
        group.operation(.post, ":personId/getNotificationCountForConversations", role: .registeredUser) { request, context in
            let id = try context.pathParameter("personId")
            let body = try await env.decode(WebNotificationCountRequest.self, from: request)
            if let type = body.type, type != "NotificationCountForConversationsRequest" {
                throw CollabError.badRequest("$_type must be 'NotificationCountForConversationsRequest', not '\(type)'")
            }
            let count = try env.read(context.principal) { state throws(CollabError) in
                try state.notificationCount(personId: id, conversationIds: body.conversationIds ?? [], for: context.principal)
            }
            return JSONBody.response(WebNotificationCountForConversations(notificationCount: count))
        }
    }
}

/// `PersonsPauseNotificationsBody`.
struct WebTimeoutBody: Codable, Sendable {
    var timeoutSeconds: Int?
}

/// `PersonsAddAutoPauseNotificationsReasonBody` and `PersonsRemoveAutoPauseNotificationsReasonBody`.
struct WebAutoPauseReasonBody: Codable, Sendable {
    var sourceId: String?
    var displayName: String?
    var timeoutSeconds: Int?
}

/// `NotificationCountForConversationsRequest`.
struct WebNotificationCountRequest: Codable, Sendable {
    var type: String?
    var conversationIds: [String]?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", conversationIds
    }
}

/// `AgentPersonStateData`: the notification controls of a person, evaluated at `now`.
struct WebAgentPersonState: Codable, Sendable {
    struct Reason: Codable, Sendable {
        var type = "AutoPauseNotificationsReasonData"
        var sourceId: String
        var displayName: String?
        var expirationTimestamp: Int64?

        enum CodingKeys: String, CodingKey {
            case type = "$_type", sourceId, displayName, expirationTimestamp
        }
    }

    var type = "AgentPersonStateData"
    var personId: String
    /// `EOnlineState`, where known.
    var onlineState: String?
    var statusMessage: String?
    var pauseNotificationsMode: String
    var pauseNotificationsState: String
    var pauseNotificationsEndTimestamp: Int64?
    var autoPauseNotificationsReasons: [Reason]

    enum CodingKeys: String, CodingKey {
        case type = "$_type", personId, onlineState, statusMessage, pauseNotificationsMode, pauseNotificationsState, pauseNotificationsEndTimestamp
        case autoPauseNotificationsReasons
    }

    init(_ person: Person, now: Int64) {
        let state = person.notifications ?? PersonNotifications()
        personId = person.id
        statusMessage = person.statusMessage
        let mode = state.effectiveMode(at: now)
        pauseNotificationsMode = mode.rawValue
        pauseNotificationsState = state.pauseReason(at: now) == nil ? "OFF" : "ON"
        pauseNotificationsEndTimestamp = mode == .on ? state.pauseEndTimestamp : nil
        autoPauseNotificationsReasons = state.reasons(at: now).map {
            Reason(sourceId: $0.sourceId, displayName: $0.displayName, expirationTimestamp: $0.expirationTimestamp)
        }
    }
}

/// `NotificationCountData`.
struct WebNotificationCount: Encodable {
    var type = "NotificationCountData"
    var personId: String
    var totalNotificationCount: Int

    enum CodingKeys: String, CodingKey {
        case type = "$_type", personId, totalNotificationCount
    }
}

/// `NotificationCountForConversationsData`.
struct WebNotificationCountForConversations: Encodable {
    var type = "NotificationCountForConversationsData"
    var notificationCount: Int

    enum CodingKeys: String, CodingKey {
        case type = "$_type", notificationCount
    }
}
