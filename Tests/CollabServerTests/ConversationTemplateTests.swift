import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Conversation templates: `conversations/create` applies the template it names, or the default template
/// of its engagement type, and shows it with `expand=configuration,text` (over real sockets); a
/// conversation that inherits from its template follows the template's later changes (in process).
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

    @Test("a conversation that inherits from its template follows the template's later changes; a copy does not")
    func inheritedTemplateChanges() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            let admin = server.admin("admin-d", "pw").transport
            func call(_ path: String, query: [(String, String)] = [], _ body: String? = nil) async throws -> [String: Any] {
                let answer = try await admin.raw(body == nil ? "GET" : "POST", "/app/rest/v4/" + path, query: query, body: body.map { Data($0.utf8) })
                #expect(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
                return (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
            }
            let expand = [("expand", "configuration,text")]
            let template = try await call(
                "conversationtemplates/create",
                #"{"name":"live","initialEngagementType":"CHAT_REQUEST","inheritConfigurationAndTexts":true,"#
                    + #""configuration":{"com.unblu.a":"1"},"text":{"greeting":{"en":"Hi"}}}"#
            )
            let templateId = try #require(template["id"] as? String)
            let inheriting = try await call(
                "conversations/create", query: expand,
                #"{"topic":"follows","conversationTemplateId":"\#(templateId)","configuration":{"com.unblu.c":"own"}}"#
            )
            #expect(inheriting["inheritConfigurationAndTexts"] as? Bool == true, "the template's flag when the body leaves it out")
            #expect(inheriting["configuration"] as? [String: String] == ["com.unblu.a": "1", "com.unblu.c": "own"])
            let copy = try await call(
                "conversations/create", query: expand,
                #"{"topic":"copy","conversationTemplateId":"\#(templateId)","inheritConfigurationAndTexts":false}"#
            )
            #expect(copy["inheritConfigurationAndTexts"] as? Bool == false, "the body's flag wins")
            let (inheritingId, copyId) = (try #require(inheriting["id"] as? String), try #require(copy["id"] as? String))

            _ = try await call(
                "conversationtemplates/update",
                #"{"id":"\#(templateId)","version":1,"name":"live","initialEngagementType":"CHAT_REQUEST","inheritConfigurationAndTexts":true,"#
                    + #""configuration":{"com.unblu.a":"2","com.unblu.b":"new"},"text":{"greeting":{"en":"Hello"}}}"#
            )
            let followed = try await call("conversations/\(inheritingId)/read", query: expand)
            #expect(followed["configuration"] as? [String: String] == ["com.unblu.a": "2", "com.unblu.b": "new", "com.unblu.c": "own"])
            #expect(followed["text"] as? [String: [String: String]] == ["greeting": ["en": "Hello"]])
            #expect(VendorSchemaCheck.problems(try JSONSerialization.data(withJSONObject: followed), schema: "ConversationData").isEmpty)
            let kept = try await call("conversations/\(copyId)/read", query: expand)
            #expect(kept["configuration"] as? [String: String] == ["com.unblu.a": "1"], "a copy keeps what it got")
            #expect(kept["text"] as? [String: [String: String]] == ["greeting": ["en": "Hi"]])

            // The conversation's own configuration stays on top of the template's.
            let own = try await call("conversations/\(inheritingId)/updateConfiguration", query: expand, #"{"com.unblu.a":"mine"}"#)
            #expect(own["configuration"] as? [String: String] == ["com.unblu.a": "mine", "com.unblu.b": "new"])
            // Gone, the template leaves the conversation its own values only.
            #expect(try await admin.raw("DELETE", "/app/rest/v4/conversationtemplates/\(templateId)/delete").status == 204)
            let orphan = try await call("conversations/\(inheritingId)/read", query: expand)
            #expect(orphan["configuration"] as? [String: String] == ["com.unblu.a": "mine"])
        }
    }
}
