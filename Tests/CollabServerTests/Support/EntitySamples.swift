import CollabCore
import CollabStore
import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import CollabServer

/// Valid Web API bodies of the declared kinds (``EntityRegistry``) for the layer's tables: one per kind
/// that has `create`, made unique by `tag`; `users` gives the seeded users' ids by username.
enum EntitySamples {
    static func create(_ typeName: String, tag: String, users: [String: String]) -> String? {
        switch typeName {
        case "CannedResponse": #"{"$_type":"CannedResponse","title":"title-\#(tag)","text":"Hello","ownerType":"ACCOUNT"}"#
        case "CustomActionData": #"{"$_type":"CustomConversationActionData","type":"CONVERSATION","key":"key-\#(tag)","name":"Act"}"#
        case "PersonLabel": #"{"$_type":"PersonLabel","name":"label-\#(tag)","color":"red"}"#
        case "PersonVisibilityRuleData": #"{"$_type":"PersonVisibilityRuleData","name":"rule-\#(tag)","enabled":false}"#
        case "DeputyRelationship":
            #"{"$_type":"DeputyRelationship","agentUserId":"\#(users["alpha-agent"] ?? "")","deputyId":"\#(users["alpha-supervisor"] ?? "")"}"#
        case "Domain": #"{"$_type":"Domain","domainName":"https://\#(tag).example"}"#
        case "SuggestionSourceData":
            #"{"$_type":"SuggestionSourceData","name":"source-\#(tag)","outboundEndpoint":"http://127.0.0.1:9/s","outboundTimeoutMillis":1000}"#
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

    /// Sends `body` as alpha's admin (or `user`) and returns the answer's JSON object.
    func json(
        _ method: HTTPRequest.Method, _ path: String, as user: String = "alpha-admin", password: String = "pw-a", body: String? = nil
    ) async throws -> (status: Int, object: [String: Any]) {
        let answer = try await call(method, "/app/rest/v4/" + path, authorization: Self.basic(user, password), body: body)
        let object = (try? JSONSerialization.jsonObject(with: Data(answer.body.readableBytesView))) as? [String: Any] ?? [:]
        return (Int(answer.status.code), object)
    }
}
