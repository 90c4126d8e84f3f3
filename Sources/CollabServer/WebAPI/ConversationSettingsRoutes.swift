import CollabCore
import CollabWire
import Hummingbird

/// `/conversations/{id}/…` settings: setContextPerson, setVisibility, setStarred, setAwaitedPersonType,
/// setScheduledTimestamp, setLocale, changeParticipantVisibility, updateConfiguration, updateText,
/// addExternalParticipant. Each answers the conversation (`expand` applies).
struct ConversationSettingsRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let conversations = group.group("conversations")
        let env = environment
        conversations.conversationChange("setContextPerson", role: .admin, WebPersonSettingBody.self, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            try state.setContextPerson(
                id, personId: try requireField(body.personId, "personId"), accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }
        conversations.conversationChange("setVisibility", role: .admin, WebVisibilityBody.self, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            let visibility = try ConversationVisibility(parsing: body.conversationVisibility, field: "conversationVisibility")
            return try state.setVisibility(id, visibility: visibility, accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }
        conversations.conversationChange("setStarred", role: .admin, WebPersonSettingBody.self, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            let personId = try requireField(body.personId, "personId")
            let starred = try requireField(body.starred, "starred")
            return try state.setStarred(
                id, personId: personId, starred: starred, accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }
        conversations.conversationChange("setAwaitedPersonType", role: .admin, WebAwaitedBody.self, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            let type = try AwaitedPersonType(parsing: body.awaitedPersonType, field: "awaitedPersonType")
            return try state.setAwaitedPersonType(id, type: type, accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }
        conversations.conversationChange("setScheduledTimestamp", role: .registeredUser, WebScheduleBody.self, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            try state.setScheduledTimestamp(
                id, timestamp: try requireField(body.scheduledTimestamp, "scheduledTimestamp"), for: principal, context: op, changes: &changes)
        }
        conversations.conversationChange("setLocale", role: .admin, WebLocaleBody.self, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            try state.setLocale(
                id, locale: try requireField(body.locale, "locale"), accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }
        conversations.conversationChange("changeParticipantVisibility", role: .admin, WebPersonSettingBody.self, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            let personId = try requireField(body.personId, "personId")
            let hidden = try requireField(body.hidden, "hidden")
            return try state.changeParticipantVisibility(
                id, personId: personId, hidden: hidden, accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }
        conversations.conversationChange("updateConfiguration", role: .registeredUser, [String: String].self, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            try state.updateConversationConfiguration(
                id, configuration: body, mayChangePermissions: principal.role >= .admin, accountId: try ownAccount(nil, principal),
                context: op, changes: &changes)
        }
        conversations.conversationChange("updateText", role: .admin, [String: [String: String]].self, environment: env) {
            state, id, body, principal, op, changes throws(CollabError) in
            try state.updateConversationText(id, text: body, accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }
        conversations.conversationChange("addExternalParticipant", role: .admin, WebExternalParticipantBody.self, environment: env) {
            state, id, body, principal, _, _ throws(CollabError) in
            try state.addExternalParticipant(
                id, contactId: try requireField(body.externalMessengerContactId, "externalMessengerContactId"),
                accountId: try ownAccount(nil, principal))
        }
    }
}

/// A required body field.
func requireField<Value>(_ value: Value?, _ field: String) throws(CollabError) -> Value {
    guard let value else { throw .badRequest("\(field) is required") }
    if let text = value as? String, text.isEmpty { throw .badRequest("\(field) is required") }
    return value
}

/// `ConversationsSetContextPersonBody`, `ConversationsSetStarredBody`, `ConversationsChangeParticipantVisibilityBody`.
struct WebPersonSettingBody: Codable, Sendable {
    var personId: String?
    var starred: Bool?
    var hidden: Bool?
}

/// `ConversationsSetVisibilityBody`.
struct WebVisibilityBody: Codable, Sendable {
    var conversationVisibility: String?
}

/// `ConversationsSetAwaitedPersonTypeBody`.
struct WebAwaitedBody: Codable, Sendable {
    var awaitedPersonType: String?
}

/// `ConversationsSetScheduledTimestampBody`.
struct WebScheduleBody: Codable, Sendable {
    var scheduledTimestamp: Int64?
}

/// `ConversationsSetLocaleBody` (and `AuthenticatorSetDefaultLocaleBody`).
struct WebLocaleBody: Codable, Sendable {
    var locale: String?
}

/// `ConversationsAddExternalParticipantBody`.
struct WebExternalParticipantBody: Codable, Sendable {
    var externalMessengerContactId: String?
}
