import CollabCore
import CollabStore
import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import CollabServer

/// Valid Web API bodies of the declared kinds (``EntityRegistry``) for the layer's tables: one per kind
/// that has `create`, made unique by `tag`; `users` gives the seeded users' ids by username (and the ids
/// of what a sample refers to, see ``InProcessServer/sample(_:tag:)``).
enum EntitySamples {
    static func create(_ typeName: String, tag: String, users: [String: String]) -> String? {
        switch typeName {
        case "DialogBotData": #"{"$_type":"DialogBotData","name":"bot-\#(tag)","webhookEndpoint":"http://127.0.0.1:9/bot"}"#
        case "NamedArea": #"{"$_type":"NamedArea","name":"area-\#(tag)","siteId":"site-\#(tag)"}"#
        case "ApiKey": #"{"$_type":"ApiKey","name":"key-\#(tag)","apiKey":"key-\#(tag)"}"#
        case "WebhookRegistration":
            #"{"$_type":"WebhookRegistration","name":"hook-\#(tag)","endpoint":"http://127.0.0.1:9/hook","events":["ping"]}"#
        case "CannedResponse": #"{"$_type":"CannedResponse","title":"title-\#(tag)","text":"Hello","ownerType":"ACCOUNT"}"#
        case "CustomActionData": #"{"$_type":"CustomConversationActionData","type":"CONVERSATION","key":"key-\#(tag)","name":"Act"}"#
        case "PersonLabel": #"{"$_type":"PersonLabel","name":"label-\#(tag)","color":"red"}"#
        case "PersonVisibilityRuleData": #"{"$_type":"PersonVisibilityRuleData","name":"rule-\#(tag)","enabled":false}"#
        case "DeputyRelationship":
            #"{"$_type":"DeputyRelationship","agentUserId":"\#(users["alpha-agent"] ?? "")","deputyId":"\#(users["alpha-supervisor"] ?? "")"}"#
        case "Domain": #"{"$_type":"Domain","domainName":"https://\#(tag).example"}"#
        case "SuggestionSourceData":
            #"{"$_type":"SuggestionSourceData","name":"source-\#(tag)","outboundEndpoint":"http://127.0.0.1:9/s","outboundTimeoutMillis":1000}"#
        case "Team": #"{"$_type":"Team","name":"team-\#(tag)","description":"desk"}"#
        case "ConversationTemplate": #"{"$_type":"ConversationTemplate","name":"template-\#(tag)","initialEngagementType":"CHAT_REQUEST"}"#
        case "ExternalMessengerChannel":
            #"{"$_type":"CustomExternalMessengerChannel","type":"CUSTOM","name":"channel-\#(tag)","webhookEndpoint":"http://127.0.0.1:9/m"}"#
        case "ExternalMessengerContact":
            #"{"$_type":"ExternalMessengerContact","externalMessengerChannelId":"\#(users["channel"] ?? "")","sourceId":"contact-\#(tag)"}"#
        default: nil
        }
    }

    /// The kinds the Web API can create.
    static var creatable: [String] {
        EntityRegistry.kinds.filter { $0.creatable }.map { $0.typeName }
    }
}

extension DeclaredEntity {
    static var creatable: Bool { declaration.operations.create != nil }
}

extension InProcessServer {
    /// The ids of account alpha's users by username.
    func userIds(account: String = "alpha") throws -> [String: String] {
        let accountId = try #require(server.environment.repository.directory.account(named: account)?.id)
        return try server.environment.read(account: accountId) { state in
            Dictionary(uniqueKeysWithValues: state.users.values.map { ($0.username, $0.id) })
        }
    }

    /// A valid create body of `typeName` in alpha, after creating what it refers to (a contact's channel).
    func sample(_ typeName: String, tag: String) async throws -> String? {
        var references = try userIds()
        if typeName == ExternalMessengerContact.typeName {
            let body = try #require(EntitySamples.create(ExternalMessenger.typeName, tag: "for-\(tag)", users: references))
            references["channel"] = try await json(.post, "externalmessengers/create", body: body).object["id"] as? String
        }
        return EntitySamples.create(typeName, tag: tag, users: references)
    }

    /// Sends `body` as alpha's admin (or `user`) and returns the answer's JSON object.
    func json(
        _ method: HTTPRequest.Method, _ path: String, as user: String = "alpha-admin", password: String = "pw-a", body: String? = nil
    ) async throws -> (status: Int, object: [String: Any]) {
        let answer = try await call(method, "/app/rest/v4/" + path, authorization: Self.basic(user, password), body: body)
        let object = (try? JSONSerialization.jsonObject(with: Data(answer.body.readableBytesView))) as? [String: Any] ?? [:]
        return (Int(answer.status.code), object)
    }
}
