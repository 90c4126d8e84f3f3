import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Conversation templates over real sockets: `conversations/create` applies the template it names, or
/// the default template of its engagement type, and shows it with `expand=configuration,text`.
@Suite("Conversation templates")
struct ConversationTemplateTests {
    @Test("create applies the named template, else the engagement type's default; one default per engagement type")
    func templateAppliedAtCreate() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            func call(
                _ method: String, _ path: String, query: [(String, String)] = [], _ body: String? = nil
            ) async throws -> (status: Int, object: [String: Any]) {
                let answer = try await admin.raw(method, "/app/rest/v4/" + path, query: query, body: body.map { Data($0.utf8) })
                return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:])
            }
            let first = try await call(
                "POST", "conversationtemplates/create",
                #"{"name":"first","initialEngagementType":"CHAT_REQUEST","defaultTemplate":true,"configuration":{"com.unblu.a":"1"}}"#
            )
            #expect(first.status == 200)
            let firstId = try #require(first.object["id"] as? String)
            let support = try await call(
                "POST", "conversationtemplates/create",
                #"{"name":"support","initialEngagementType":"CHAT_REQUEST","defaultTemplate":true,"#
                    + #""configuration":{"com.unblu.a":"2","com.unblu.b":"x"},"text":{"greeting":{"en":"Hello","de":"Hallo"}}}"#
            )
            let supportId = try #require(support.object["id"] as? String)
            let demoted = try await call("GET", "conversationtemplates/\(firstId)/read")
            #expect(demoted.object["defaultTemplate"] as? Bool == false && demoted.object["version"] as? Int == 2, "one default per type")
            let defaultPath = "conversationtemplates/getDefaultTemplateByEngagementType"
            let byDefault = try await call("GET", defaultPath, query: [("initialEngagementType", "CHAT_REQUEST")])
            #expect(byDefault.object["id"] as? String == supportId)
            #expect(try await call("GET", defaultPath, query: [("initialEngagementType", "VIDEO_REQUEST")]).status == 404)
            #expect(try await call("GET", defaultPath, query: [("initialEngagementType", "NOPE")]).status == 400)

            let named = try await call(
                "POST", "conversations/create", query: [("expand", "configuration,text")],
                #"{"topic":"named","conversationTemplateId":"\#(firstId)","configuration":{"com.unblu.c":"own"}}"#
            )
            #expect(named.status == 200)
            #expect(named.object["conversationTemplateId"] as? String == firstId)
            #expect(named.object["configuration"] as? [String: String] == ["com.unblu.a": "1", "com.unblu.c": "own"], "template, then its own")

            let defaulted = try await call("POST", "conversations/create", #"{"topic":"default"}"#)
            let id = try #require(defaulted.object["id"] as? String)
            #expect(defaulted.object["conversationTemplateId"] as? String == supportId)
            #expect(defaulted.object["configuration"] == nil, "configuration only when expanded")
            let read = try await call("GET", "conversations/\(id)/read", query: [("expand", "configuration,text")])
            #expect(read.object["configuration"] as? [String: String] == ["com.unblu.a": "2", "com.unblu.b": "x"])
            #expect(read.object["text"] as? [String: [String: String]] == ["greeting": ["en": "Hello", "de": "Hallo"]])
            #expect(VendorSchemaCheck.problems(try JSONSerialization.data(withJSONObject: read.object), schema: "ConversationData").isEmpty)

            let missing = try await call("POST", "conversations/create", #"{"topic":"missing","conversationTemplateId":"no-such"}"#)
            #expect(missing.status == 404)
            let bad = try await call("POST", "conversationtemplates/create", #"{"name":"bad","initialEngagementType":"CARRIER_PIGEON"}"#)
            #expect(bad.status == 400 && (bad.object["errorMessage"] as? String ?? "").contains("initialEngagementType"))
        }
    }
}
