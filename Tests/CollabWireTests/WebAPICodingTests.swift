import CollabWire
import Foundation
import Testing

/// The Web API's vendor shapes as JSON: the `$_type` discriminator, omitted nulls, the query body.
@Suite("Web API wire coding")
struct WebAPICodingTests {
    private func json(_ value: some Encodable) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test("every object carries its vendor discriminator under `$_type`, and absent fields are left out")
    func discriminators() throws {
        let objects: [(any WebAPIObject, String)] = [
            (WebAccount(name: "acme"), "Account"), (WebApiKey(name: "key"), "ApiKey"), (WebNamedArea(siteId: "area"), "NamedArea"),
            (WebUser(username: "agent"), "User"), (WebPerson(sourceId: "visitor"), "PersonData"),
            (WebConversation(id: "c1"), "ConversationData"), (WebConversationHistory(id: "c1"), "ConversationHistoryData"),
            (WebSendMessageResult(messageId: "m1"), "SendMessageResult"), (WebWebhookRegistration(name: "hook"), "WebhookRegistration"),
            (WebAgentAvailability(availabilityState: "AVAILABLE", isAvailable: true), "AgentAvailabilityStateData"),
        ]
        for (object, expected) in objects {
            let body = try json(object)
            #expect(body["$_type"] as? String == expected, "\(type(of: object))")
            #expect(type(of: object).typeName == expected)
            #expect(body["type"] == nil, "\(type(of: object)) must not write `type` for its discriminator")
            #expect(!body.values.contains { $0 is NSNull }, "\(type(of: object)) writes no nulls")
        }
        let account = try json(WebAccount(name: "acme"))
        #expect(Set(account.keys) == ["$_type", "name"])
    }

    @Test("a request may omit `$_type`; one naming another type is told apart")
    func expectedType() throws {
        let omitted = try JSONDecoder().decode(WebAccount.self, from: Data(#"{"name":"acme"}"#.utf8))
        #expect(omitted.type == nil && omitted.hasExpectedType)
        let right = try JSONDecoder().decode(WebAccount.self, from: Data(#"{"$_type":"Account","name":"acme"}"#.utf8))
        #expect(right.hasExpectedType)
        let wrong = try JSONDecoder().decode(WebAccount.self, from: Data(#"{"$_type":"ApiKey","name":"acme"}"#.utf8))
        #expect(!wrong.hasExpectedType)
    }

    @Test("an entity's header and fields write one object; the area's and the interceptor's own `type` stay apart from `$_type`")
    func entityHeader() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var area = WebNamedArea(name: "Billing", siteId: "billing", areaType: "META_TAG")
        area.id = "n1"
        area.creationTimestamp = 1
        area.modificationTimestamp = 2
        area.version = 3
        area.accountId = "a1"
        area.configuration = ["k": "v"]
        let areaText = #"{"$_type":"NamedArea","accountId":"a1","configuration":{"k":"v"},"creationTimestamp":1,"id":"n1","#
            + #""modificationTimestamp":2,"name":"Billing","siteId":"billing","type":"META_TAG","version":3}"#
        let areaWritten = String(decoding: try encoder.encode(area), as: UTF8.self)
        #expect(areaWritten == areaText)
        #expect(try JSONDecoder().decode(WebNamedArea.self, from: Data(areaText.utf8)) == area)

        var interceptor = WebMessageInterceptor(name: "check", messageFilter: "ALL")
        interceptor.version = 1
        let interceptorText = #"{"$_type":"ExternalMessageInterceptorData","messageFilter":"ALL","name":"check","type":"EXTERNAL","version":1}"#
        let interceptorWritten = String(decoding: try encoder.encode(interceptor), as: UTF8.self)
        #expect(interceptorWritten == interceptorText)
        let decoded = try JSONDecoder().decode(WebMessageInterceptor.self, from: Data(interceptorText.utf8))
        #expect(decoded == interceptor && decoded.interceptorType == "EXTERNAL" && decoded.type == WebMessageInterceptor.typeName)
    }

    @Test("a text message carries both discriminators: `$_type` TextMessageData and the message `type` TEXT")
    func textMessage() throws {
        let message = WebTextMessage(
            id: "m1", conversationId: "c1", accountId: "a1", senderPerson: WebPerson(sourceId: "v"), timestamp: 1_800_000_000_000, text: "Hi",
            internal: false
        )
        let body = try json(message)
        #expect(body["$_type"] as? String == "TextMessageData")
        #expect(body["type"] as? String == "TEXT")
        #expect(body["textType"] as? String == "SIMPLE_TEXT")
        #expect(body["fallbackText"] as? String == "Hi")
        #expect((body["senderPerson"] as? [String: Any])?["$_type"] as? String == "PersonData")
        let decoded = try JSONDecoder().decode(WebTextMessage.self, from: JSONEncoder().encode(message))
        #expect(decoded == message)
    }

    @Test("the error body round-trips with its `Error` discriminator")
    func errorBody() throws {
        let error = WebAPIError(statusCode: 404, statusDescription: "Not Found", errorMessage: "no such conversation")
        let body = try json(error)
        #expect(body["$_type"] as? String == "Error" && body["statusCode"] as? Int == 404)
        #expect(try JSONDecoder().decode(WebAPIError.self, from: JSONEncoder().encode(error)) == error)
    }

    @Test("a search query round-trips, nested filters and operators with their own `$_type`")
    func query() throws {
        let text = #"""
            {"$_type":"ConversationQuery","offset":10,"limit":5,
             "orderBy":[{"$_type":"ConversationOrderBy","field":"CREATION_TIMESTAMP","order":"DESCENDING"}],
             "searchFilters":[{"$_type":"OrConversationSearchFilter","searchFilters":[
                {"$_type":"TopicConversationSearchFilter","field":"TOPIC","operator":{"$_type":"StringOperator","type":"CONTAINS","value":"order"}},
                {"$_type":"StateConversationSearchFilter",
                 "operator":{"$_type":"EConversationStateOperator","type":"IN","values":["ACTIVE","QUEUED"]}}]}]}
            """#
        let query = try JSONDecoder().decode(WebQuery.self, from: Data(text.utf8))
        #expect(query.type == "ConversationQuery" && query.offset == 10 && query.limit == 5)
        let order = try #require(query.orderBy?.first)
        #expect(order.discriminator == "ConversationOrderBy" && order.field == "CREATION_TIMESTAMP" && order.order == "DESCENDING")
        let compound = try #require(query.searchFilters?.first)
        #expect(compound.discriminator == "OrConversationSearchFilter" && compound.field == nil)
        let nested = try #require(compound.searchFilters)
        #expect(nested[0].operator?.value == .string("order"))
        #expect(nested[1].operator?.values == [.string("ACTIVE"), .string("QUEUED")])
        #expect(try JSONDecoder().decode(WebQuery.self, from: JSONEncoder().encode(query)) == query)
    }

    @Test("a search value keeps its JSON type: boolean, integer, fraction, text")
    func scalars() throws {
        let decoded = try JSONDecoder().decode([JSONScalar].self, from: Data(#"[true, 42, 1.5, "42", -9007199254740993]"#.utf8))
        #expect(decoded == [.bool(true), .int(42), .double(1.5), .string("42"), .int(-9_007_199_254_740_993)])
        #expect(String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self) == #"[true,42,1.5,"42",-9007199254740993]"#)
    }
}
