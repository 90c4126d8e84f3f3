import CollabCore
import CollabWire
import Hummingbird

/// What a backend calls first: `conversations/{id}/updateMetadata`, `setVisitorData`,
/// `conversationhistory/search`, `conversationhistory/{id}/exportMessageLog`, `global/ping`,
/// `global/productVersion`, `persons/searchAgentsByState` and `searchVisitorsByState`, `personpresences/search` and `read` (with the
/// app's `deviceInfo`), and MockCollab's `persons/{id}/removeDevices`.
struct BackendBasicsRoutes {
    let environment: CollabEnvironment

    /// What `global/productVersion` reports when no vendor version is configured (`--product-version`).
    static let productVersion = "MockCollab (Web API v4 subset)"

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let conversations = group.group("conversations")
        conversations.conversationChange("updateMetadata", role: .admin, [String: String].self, expands: false, environment: env) {
            state, id, metadata, principal, op, changes throws(CollabError) in
            try state.updateMetadata(id, metadata: metadata, accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }
        conversations.conversationChange(
            "setVisitorData", role: .admin, WebVisitorDataBody.self, expands: false, environment: env,
            prepare: { body throws(CollabError) in
                if let type = body.type, type != "ConversationsSetVisitorDataBody" {
                    throw .badRequest("$_type must be 'ConversationsSetVisitorDataBody', not '\(type)'")
                }
                return body
            }
        ) { state, id, body, principal, op, changes throws(CollabError) in
            try state.setVisitorData(id, visitorData: body.visitorData, accountId: try ownAccount(nil, principal), context: op, changes: &changes)
        }

        let history = group.group("conversationhistory")
        history.searchOperation(role: .registeredUser, queryType: "ConversationHistoryQuery", environment: env) {
            state, query, _, context throws(CollabError) in
            // The visibility rules are worked out once for the page, not once per conversation.
            let visibility = state.visibilityRules(for: context.principal)
            return try state.searchConversationHistory(query, for: context.principal)
                .webResult("ConversationHistoryDataResult", offset: query.offset) { state.webHistory($0, under: visibility) }
        }
        history.operation(.post, ":conversationId/exportMessageLog", role: .admin) { request, context in
            let id = try context.pathParameter("conversationId")
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "MessageExportQuery")
            let page = try env.read(context.principal) { state throws(CollabError) in
                try state.exportMessages(ofConversation: id, query, for: context.principal).webResult("MessageExportResult", offset: query.offset) {
                    WebHistoryMessage($0)
                }
            }
            return JSONBody.response(page)
        }

        let global = group.group("global")
        global.operation(.get, "ping", role: .anonymousUser) { _, _ in
            // Answered only once the server serves requests, which is what the vendor's ping tells.
            JSONBody.response(WebGlobalPing())
        }
        global.operation(.get, "productVersion", role: .registeredUser) { _, _ in
            JSONBody.response(WebProductVersion(productVersion: env.configuration.productVersion?.text ?? Self.productVersion))
        }

        group.group("persons").operation(.post, "searchAgentsByState", role: .admin) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "AgentStateQuery")
            let now = env.clock.now()
            let page = try env.read(context.principal) { state throws(CollabError) in
                try state.searchAgentStates(query, now: now, for: context.principal)
                    .webResult("AgentPersonStateResult", offset: query.offset) { row in
                        var web = WebAgentPersonState(row.person, now: now)
                        web.onlineState = row.onlineState
                        return web
                    }
            }
            return JSONBody.response(page)
        }
        group.group("persons").operation(.post, "searchVisitorsByState", role: .admin) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "VisitorStateQuery")
            let page = try env.read(context.principal) { state throws(CollabError) in
                try state.searchVisitorStates(query, for: context.principal).webResult("VisitorPersonStateResult", offset: query.offset) {
                    WebVisitorPersonState(personId: $0.person.id, onlineState: $0.onlineState)
                }
            }
            return JSONBody.response(page)
        }
        let presences = group.group("personpresences")
        presences.searchOperation(role: .admin, queryType: "PersonPresenceQuery", environment: env) { state, query, _, context throws(CollabError) in
            try state.searchPersonPresences(query, for: context.principal).webResult("PersonPresenceResult", offset: query.offset) {
                WebPersonPresence($0, device: state.device(forClient: $0.id))
            }
        }
        presences.operation(.get, ":presenceId/read", role: .admin) { _, context in
            let id = try context.pathParameter("presenceId")
            let presence = try env.read(context.principal) { state throws(CollabError) in
                let session = try state.personPresence(id, for: context.principal)
                return WebPersonPresence(session, device: state.device(forClient: session.id))
            }
            return JSONBody.response(presence)
        }
        // MockCollab's own operation (the vendor's Web API has none): a backend removes a person's
        // devices, as the SDK documentation leaves device management to it.
        group.group("persons").operation(.post, ":personId/removeDevices", role: .admin) { request, context in
            let id = try context.pathParameter("personId")
            let body = try await env.decode(WebRemoveDevicesBody?.self, fromOptional: request)
            if let type = body?.type, type != "PersonsRemoveDevicesBody" {
                throw CollabError.badRequest("$_type must be 'PersonsRemoveDevicesBody', not '\(type)'")
            }
            let identifiers = try body?.deviceIdentifiers.map { list throws(CollabError) in
                guard list.count <= Limits.readMultipleCount else {
                    throw .badRequest("deviceIdentifiers holds at most \(Limits.readMultipleCount) ids")
                }
                return Set(list)
            }
            try await env.write(context.principal) { state, changes, _ throws(CollabError) in
                _ = try state.removeDevices(ofPerson: id, deviceIds: identifiers, for: context.principal, changes: &changes)
            }
            return noContent
        }
    }
}

/// `ConversationsSetVisitorDataBody`.
struct WebVisitorDataBody: Codable, Sendable {
    var type: String?
    var visitorData: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", visitorData
    }
}

/// `GlobalPingResponse`.
struct WebGlobalPing: Encodable {
    var type = "GlobalPingResponse"
    var status = "OK"

    enum CodingKeys: String, CodingKey {
        case type = "$_type", status
    }
}

/// `ProductVersion`.
struct WebProductVersion: Encodable {
    var type = "ProductVersion"
    var productVersion: String

    enum CodingKeys: String, CodingKey {
        case type = "$_type", productVersion
    }
}

/// `ConversationHistoryMessageData` for a text message.
struct WebHistoryMessage: Codable, Sendable {
    var type = "ConversationHistoryMessageData"
    var id: String
    var conversationId: String
    var sendTimestamp: Int64
    var serverTimestamp: Int64
    var senderPersonId: String
    var messageType = "TEXT"
    var `internal`: Bool
    var text: String

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, conversationId, sendTimestamp, serverTimestamp, senderPersonId
        case messageType = "type"
        case `internal`, text
    }

    init(_ message: ConversationMessage) {
        id = message.id
        conversationId = message.conversationId
        sendTimestamp = message.serverTimestamp
        serverTimestamp = message.serverTimestamp
        senderPersonId = message.senderPersonId
        self.internal = message.isInternal
        text = message.text
    }
}

/// `PersonPresenceData` for a started mobile client: the person is present from the client's start
/// (a stopped client is gone, so `leftTimestamp` never shows), on the device its `deviceInfo` describes.
struct WebPersonPresence: Codable, Sendable {
    var type = "PersonPresenceData"
    var id: String
    var creationTimestamp: Int64
    var modificationTimestamp: Int64
    var accountId: String
    var joinedTimestamp: Int64
    var personId: String
    var deviceInfo: WebDeviceInfo

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, creationTimestamp, modificationTimestamp, accountId, joinedTimestamp, personId, deviceInfo
    }

    /// - Parameter device: The client's device record, once it registered for push.
    init(_ session: ClientSession, device: Device?) {
        // The public client id, never the client's token.
        id = session.clientId
        creationTimestamp = session.createdAt
        modificationTimestamp = session.lastSeenAt
        accountId = session.accountId
        joinedTimestamp = session.createdAt
        personId = session.personId
        deviceInfo = WebDeviceInfo(session, device: device)
    }
}

/// The vendor's `DeviceInfo` of a mobile app: the app's device id, its system, and — once it registered
/// — its push token (APNs, else FCM), PushKit token and push-notification version.
struct WebDeviceInfo: Codable, Sendable {
    var type = "DeviceInfo"
    var id: String
    var accountId: String
    var creationTimestamp: Int64
    var modificationTimestamp: Int64
    var identifier: String
    var identifierSource = "DEVICE_ID"
    var deviceType = "MOBILE"
    var osName: String
    var osVersion: String?
    var ownerPersonId: String
    var pushToken: String?
    var pushKitToken: String?
    var mobilePushNotificationVersion: Int?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, accountId, creationTimestamp, modificationTimestamp, identifier, identifierSource
        case deviceType = "type"
        case osName, osVersion, ownerPersonId, pushToken, pushKitToken, mobilePushNotificationVersion
    }

    init(_ session: ClientSession, device: Device?) {
        id = Device.recordId(personId: session.personId, deviceId: session.deviceId)
        accountId = session.accountId
        creationTimestamp = device?.registeredAt ?? session.createdAt
        modificationTimestamp = device?.updatedAt ?? session.lastSeenAt
        identifier = session.deviceId
        osName = session.device.os
        osVersion = session.device.osVersion
        ownerPersonId = session.personId
        pushToken = device?.apnsToken ?? device?.fcmToken
        pushKitToken = device?.pushKitToken
        mobilePushNotificationVersion = device.map { Self.number(of: $0.version) }
    }

    /// The version as a number, as the vendor's field is an integer; the numbering is the mock's own
    /// (1 NotEncrypted, the legacy version; 2 Encrypted; 3 EncryptedService).
    static func number(of version: PushVersion) -> Int {
        switch version {
        case .notEncrypted: 1
        case .encrypted: 2
        case .encryptedService: 3
        }
    }
}

/// `POST persons/{personId}/removeDevices` (MockCollab's own): the app device ids to remove; absent: all.
struct WebRemoveDevicesBody: Codable, Sendable {
    var type: String?
    var deviceIdentifiers: [String]?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", deviceIdentifiers
    }
}

/// `VisitorPersonStateData`.
struct WebVisitorPersonState: Codable, Sendable {
    var type = "VisitorPersonStateData"
    var personId: String
    /// `EOnlineState`.
    var onlineState: String
    /// `EPersonStateType`.
    var personStateType = "VISITOR"

    enum CodingKeys: String, CodingKey {
        case type = "$_type", personId, onlineState
        case personStateType = "type"
    }
}
