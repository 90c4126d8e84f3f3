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

/// The dialog bot operations against every role and across accounts (router mode): each needs the
/// vendor's `x-required-role` (ADMIN); probing with unknown ids and empty bodies changes nothing;
/// another account's bots answer 404.
@Suite("Dialog bots: roles and isolation")
struct BotRoleTests {
    typealias Operation = RoleRulesTests.Operation

    static let operations: [Operation] = [
        .init(method: "POST", path: "/app/rest/v4/bots/create", body: "{}", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/bots/unknown/read", required: .admin),
        .init(method: "GET", path: "/app/rest/v4/bots/getByName?name=unknown", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/bots/search", body: #"{"limit":-1}"#, required: .admin),
        .init(method: "POST", path: "/app/rest/v4/bots/update", body: "{}", required: .admin),
        .init(method: "DELETE", path: "/app/rest/v4/bots/unknown/delete", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/bots/unknown/sendPing", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/bots/sendDialogMessage", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/bots/finishDialog", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/bots/startDialogBotTypingIndicator", body: "{}", required: .admin),
        .init(method: "POST", path: "/app/rest/v4/bots/cancelDialogBotTypingIndicator", body: "{}", required: .admin),
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
                    #expect(status.code < 500, "\(caller.username) \(operation) → \(status)")
                } else {
                    #expect(status == .forbidden, "\(caller.username) (\(caller.role)) must be refused \(operation), got \(status)")
                }
            }
            #expect(try await call(nil) == .unauthorized, "anonymous must get 401 for \(operation)")
            #expect(try server.environment.stats(accountId: nil, journalEntries: 0) == before, "probing \(operation) changed state")
        }
    }

    @Test("another account's bots answer 404 and are not found by name or search")
    func isolation() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let alpha = server.admin("alpha-admin", "pw-a").transport
            let beta = server.admin("beta-admin", "pw-b").transport
            let created = try await alpha.raw(
                "POST", "/app/rest/v4/bots/create",
                body: Data(#"{"$_type":"DialogBotData","name":"Alpha bot","webhookEndpoint":"http://127.0.0.1:9/bot"}"#.utf8)
            )
            #expect(created.status == 200)
            let id = try #require((try JSONSerialization.jsonObject(with: created.body) as? [String: Any])?["id"] as? String)
            for (method, path, body) in [
                ("GET", "bots/\(id)/read", nil), ("DELETE", "bots/\(id)/delete", nil), ("POST", "bots/\(id)/sendPing", nil),
                ("POST", "bots/update", #"{"id":"\#(id)","version":1,"name":"Stolen","webhookEndpoint":"http://127.0.0.1:9/x"}"#),
            ] as [(String, String, String?)] {
                let status = try await beta.raw(method, "/app/rest/v4/\(path)", body: body.map { Data($0.utf8) }).status
                #expect(status == 404, "beta-admin \(method) \(path) → \(status)")
            }
            #expect(try await beta.raw("GET", "/app/rest/v4/bots/getByName", query: [("name", "Alpha bot")]).status == 404)
            let search = try await beta.raw("POST", "/app/rest/v4/bots/search", body: Data("{}".utf8))
            let items = (try JSONSerialization.jsonObject(with: search.body) as? [String: Any])?["items"] as? [Any]
            #expect(items?.isEmpty ?? true, "beta sees none of alpha's bots")
            // A beta bot may share alpha's bot's name: names are unique per account.
            let same = try await beta.raw(
                "POST", "/app/rest/v4/bots/create",
                body: Data(#"{"$_type":"DialogBotData","name":"Alpha bot","webhookEndpoint":"http://127.0.0.1:9/bot"}"#.utf8)
            )
            #expect(same.status == 200)
            #expect(try await alpha.raw("GET", "/app/rest/v4/bots/\(id)/read").status == 200, "alpha's bot is untouched")
        }
    }

    @Test("another account cannot write into, type in or finish a dialog even with its token")
    func dialogIsolation() async throws {
        let bot = try await BotReceiver()
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let alpha = server.admin("alpha-admin", "pw-a").transport
            let beta = server.admin("beta-admin", "pw-b").transport
            let created = try await alpha.raw(
                "POST", "/app/rest/v4/bots/create",
                body: Data(#"{"$_type":"DialogBotData","name":"Alpha onboarder","webhookEndpoint":"\#(bot.url)","onboardingFilter":"BOTH"}"#.utf8)
            )
            #expect(created.status == 200)
            let person: WebPerson = try await alpha.send(
                "POST", "/app/rest/v4/persons/createOrUpdateVirtual", body: WebPerson(sourceId: "alpha-bot-v", personType: "VISITOR"))
            let personId = try #require(person.id)
            let creation = #"{"$_type":"ConversationCreationData","participants":[{"$_type":"ConversationCreationParticipantData","#
                + #""personId":"\#(personId)","participationType":"CONTEXT_PERSON"}]}"#
            let conversation = try await alpha.raw("POST", "/app/rest/v4/conversations/create", body: Data(creation.utf8))
            #expect(conversation.status == 200)
            let opened = try await bot.wait(for: "outbound.bot.dialog.opened")
            let token = try #require((try JSONSerialization.jsonObject(with: opened.body) as? [String: Any])?["dialogToken"] as? String)
            for (path, body) in [
                ("sendDialogMessage", #"{"dialogToken":"\#(token)","messageData":{"type":"TEXT","text":"hijack"}}"#),
                ("startDialogBotTypingIndicator", #"{"dialogToken":"\#(token)"}"#),
                ("finishDialog", #"{"dialogToken":"\#(token)","reason":"ABORTED"}"#),
            ] {
                let status = try await beta.raw("POST", "/app/rest/v4/bots/\(path)", body: Data(body.utf8)).status
                #expect(status == 404, "beta-admin \(path) → \(status)")
            }
            let finished = try await alpha.raw(
                "POST", "/app/rest/v4/bots/finishDialog", body: Data(#"{"dialogToken":"\#(token)","reason":"HAND_OFF"}"#.utf8))
            #expect(finished.status == 204, "the dialog is still alpha's to finish")
        }
        try await bot.stop()
    }
}
