import CollabClient
import CollabCore
import CollabStore
import CollabWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import CollabServer

/// The operations issue 12 added, against every role and across accounts (router mode): each needs
/// the vendor's `x-required-role`; probing with unknown ids and empty bodies changes nothing; another
/// account's ids answer 404.
@Suite("Vendor operations: roles and isolation")
struct VendorOperationRoleTests {
    typealias Operation = RoleRulesTests.Operation

    static let operations: [Operation] = [
        .init(method: "POST", path: "/app/rest/v4/authenticator/switchToAccount", body: "{}", required: .superAdmin),
        .init(method: "POST", path: "/app/rest/v4/authenticator/impersonate", body: "{}", required: .superAdmin),
        .init(method: "POST", path: "/app/rest/v4/authenticator/resetImpersonation", body: "{}", required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/users/createWithRandomPassword", body: "{}", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/users/unknown/hasPassword", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/users/unknown/removePassword", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/persons/unknown/pauseNotifications", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/persons/unknown/resumeNotifications", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/persons/unknown/autoPauseNotifications", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/persons/unknown/addAutoPauseNotificationsReason", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/persons/unknown/removeAutoPauseNotificationsReason", body: "{}", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/persons/unknown/getNotificationCount", required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/persons/unknown/getNotificationCountForConversations", body: "{}", required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/persons/searchAgentsByState", body: #"{"limit":-1}"#, required: .admin),
        .init(method: "POST", path: "/app/rest/v4/personpresences/search", body: #"{"limit":-1}"#, required: .admin),
        .init(method: "GET", path: "/app/rest/v4/personpresences/unknown/read", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/persons/unknown/removeDevices", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/conversations/unknown/offboardParticipant", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/conversations/unknown/updateMetadata", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/conversations/unknown/setVisitorData", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/conversationhistory/search", body: #"{"limit":-1}"#, required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/conversationhistory/unknown/exportMessageLog", body: "{}", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/global/ping", required: .anonymousUser),
        .init(method: "GET", path: "/app/rest/v4/global/productVersion", required: .registeredUser),
        .init(method: "POST", path: "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithPin", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithLink", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/invitations/requeueConversation", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/invitations/inviteAgentToConversation", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/invitations/forwardConversationToAgent", body: "{}", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/invitations/unknown/read", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/invitations/search", body: #"{"limit":-1}"#, required: .admin),
        .init(method: "POST", path: "/app/rest/v4/invitations/unknown/revoke", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/invitations/unknown/renewPin", required: .admin),
    ]

    @Test("each role may call exactly the operations at or below it; probing changes nothing", .serialized, arguments: operations)
    func roles(operation: Operation) async throws {
        let server = try await MockCollabServer(
            configuration: ServerConfiguration(port: 0, storage: .memory, seed: twoAccountSeed, passwordHashCost: 4), logger: TestServer.logger
        )
        try await server.buildApplication().test(.router) { client in
            let before = try server.environment.stats(accountId: nil, journalEntries: 0)
            func call(_ authorization: String?) async throws -> HTTPResponse.Status {
                var headers = HTTPFields()
                if let authorization { headers[.authorization] = authorization }
                if operation.body != nil { headers[.contentType] = "application/json" }
                let response = try await client.execute(
                    uri: operation.path, method: HTTPRequest.Method(operation.method)!, headers: headers,
                    body: operation.body.map { ByteBuffer(string: $0) }
                )
                return response.status
            }
            for caller in RoleRulesTests.callers {
                let password = caller.username == "root" ? "root" : "pw-a"
                let status = try await call("Basic " + Data("\(caller.username):\(password)".utf8).base64EncodedString())
                if caller.role >= operation.required {
                    #expect(status != .forbidden && status != .unauthorized, "\(caller.username) should be allowed \(operation), got \(status)")
                } else {
                    #expect(status == .forbidden, "\(caller.username) (\(caller.role)) must be refused \(operation), got \(status)")
                }
            }
            if operation.required > .anonymousUser {
                #expect(try await call(nil) == .unauthorized, "anonymous must get 401 for \(operation)")
            }
            #expect(try server.environment.stats(accountId: nil, journalEntries: 0) == before, "probing \(operation) changed state")
        }
    }

    @Test("another account's persons, conversations and invitations answer 404")
    func isolation() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let alpha = server.admin("alpha-admin", "pw-a").transport
            let beta = server.admin("beta-admin", "pw-b").transport
            let person: WebPerson = try await alpha.send(
                "POST", "/app/rest/v4/persons/createOrUpdateVirtual", body: WebPerson(sourceId: "alpha-v2", personType: "VISITOR"))
            let personId = try #require(person.id)
            let creation = #"{"$_type":"ConversationCreationData","participants":[{"$_type":"ConversationCreationParticipantData","#
                + #""personId":"\#(personId)","participationType":"CONTEXT_PERSON"}]}"#
            let created = try await alpha.raw("POST", "/app/rest/v4/conversations/create", body: Data(creation.utf8))
            #expect(created.status == 200)
            let conversationId = try #require((try JSONSerialization.jsonObject(with: created.body) as? [String: Any])?["id"] as? String)
            let pin = try await alpha.raw(
                "POST", "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithPin",
                body: Data(#"{"conversationId":"\#(conversationId)"}"#.utf8)
            )
            let invitationId = try #require((try JSONSerialization.jsonObject(with: pin.body) as? [String: Any])?["id"] as? String)
            for (method, path, body) in [
                ("POST", "persons/\(personId)/pauseNotifications", "{}"), ("GET", "persons/\(personId)/getNotificationCount", nil),
                ("POST", "persons/\(personId)/removeDevices", nil),
                ("POST", "conversations/\(conversationId)/updateMetadata", "{}"), ("POST", "conversations/\(conversationId)/setVisitorData", "{}"),
                ("POST", "conversations/\(conversationId)/offboardParticipant", #"{"personId":"\#(personId)"}"#),
                ("POST", "conversationhistory/\(conversationId)/exportMessageLog", "{}"),
                ("POST", "invitations/inviteAnonymousVisitorToConversationWithPin", #"{"conversationId":"\#(conversationId)"}"#),
                ("POST", "invitations/requeueConversation", #"{"conversationId":"\#(conversationId)"}"#),
                ("GET", "invitations/\(invitationId)/read", nil), ("POST", "invitations/\(invitationId)/revoke", nil),
                ("POST", "invitations/\(invitationId)/renewPin", nil),
            ] as [(String, String, String?)] {
                let status = try await beta.raw(method, "/app/rest/v4/\(path)", body: body.map { Data($0.utf8) }).status
                #expect(status == 404, "beta-admin \(method) \(path) → \(status)")
            }
            let search = try await beta.raw("POST", "/app/rest/v4/invitations/search", body: Data("{}".utf8))
            let items = (try JSONSerialization.jsonObject(with: search.body) as? [String: Any])?["items"] as? [Any]
            #expect(items?.isEmpty ?? true, "beta sees none of alpha's invitations")
        }
    }
}
