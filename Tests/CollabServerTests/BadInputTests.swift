import CollabClient
import CollabWire
import Foundation
import HTTPTypes
import Testing

/// Every class of bad input gets a clear 4xx with the Web API `Error` body and changes nothing.
@Suite("Bad input")
struct BadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var method: String
        var path: String
        var query: [String: String] = [:]
        var body: String?
        var status: Int
        var messageContains: String
        var description: String { name }
    }

    static let cases: [Case] = [
        .init(
            name: "malformed JSON", method: "POST", path: "/app/rest/v4/namedareas/create", body: #"{"name": "x", "#, status: 400,
            messageContains: "not valid JSON"),
        .init(
            name: "not JSON at all", method: "POST", path: "/app/rest/v4/apikeys/create", body: "hello", status: 400,
            messageContains: "not valid JSON"),
        .init(name: "empty body", method: "POST", path: "/app/rest/v4/apikeys/create", body: "", status: 400, messageContains: "body is required"),
        .init(
            name: "wrong $_type", method: "POST", path: "/app/rest/v4/namedareas/create", body: #"{"$_type":"Account","name":"x","siteId":"y"}"#,
            status: 400, messageContains: "$_type"),
        .init(
            name: "wrong field type", method: "POST", path: "/app/rest/v4/namedareas/create", body: #"{"name": 5, "siteId": "y"}"#, status: 400,
            messageContains: "name has the wrong type"),
        .init(
            name: "wrong nested type", method: "POST", path: "/app/rest/v4/apikeys/create", body: #"{"name": "k", "configuration": {"a": 1}}"#,
            status: 400, messageContains: "configuration.a"),
        .init(
            name: "null where a value is needed", method: "POST", path: "/app/rest/v4/accounts/search", body: #"{"searchFilters": [null]}"#,
            status: 400, messageContains: "searchFilters[0]"),
        .init(
            name: "missing required field", method: "POST", path: "/app/rest/v4/namedareas/create", body: #"{"name": "no site"}"#, status: 400,
            messageContains: "siteId is required"),
        .init(
            name: "blank name", method: "POST", path: "/app/rest/v4/apikeys/create", body: #"{"name": "   "}"#, status: 400,
            messageContains: "name is required"),
        .init(
            name: "unknown enum value", method: "POST", path: "/app/rest/v4/users/create", body: #"{"username": "u", "authorizationRole": "GOD"}"#,
            status: 400, messageContains: "authorizationRole must be one of ANONYMOUS_USER"),
        .init(
            name: "user in an unknown team", method: "POST", path: "/app/rest/v4/users/create", body: #"{"username": "u", "teamId": "nope"}"#,
            status: 400, messageContains: "teamId 'nope' names no team"),
        .init(
            name: "person in an unknown team", method: "POST", path: "/app/rest/v4/persons/createOrUpdateVirtual",
            body: #"{"sourceId": "p", "teamId": "nope"}"#, status: 400, messageContains: "teamId 'nope' names no team"),
        .init(
            name: "unknown area type", method: "POST", path: "/app/rest/v4/namedareas/create",
            body: #"{"name": "n", "siteId": "s", "type": "WEIRD"}"#, status: 400, messageContains: "type must be"),
        .init(
            name: "update without version", method: "POST", path: "/app/rest/v4/accounts/update", body: #"{"id": "ACCOUNT", "name": "x"}"#,
            status: 400, messageContains: "version"),
        .init(name: "unknown id", method: "GET", path: "/app/rest/v4/namedareas/does-not-exist/read", status: 404, messageContains: "not found"),
        .init(
            name: "unknown search field", method: "POST", path: "/app/rest/v4/apikeys/search",
            body: #"{"searchFilters": [{"field": "COLOR", "operator": {"type": "EQUALS", "value": "red"}}]}"#, status: 400, messageContains: "COLOR"),
        .init(
            name: "unknown operator", method: "POST", path: "/app/rest/v4/apikeys/search",
            body: #"{"searchFilters": [{"field": "NAME", "operator": {"type": "LIKE", "value": "x"}}]}"#, status: 400, messageContains: "LIKE"),
        .init(
            name: "negative limit", method: "POST", path: "/app/rest/v4/apikeys/search", body: #"{"limit": -5}"#, status: 400,
            messageContains: "limit"),
        .init(
            name: "a page of none", method: "POST", path: "/app/rest/v4/users/search", body: #"{"limit": 0}"#, status: 400,
            messageContains: "limit must be at least 1"),
        .init(
            name: "more sort keys than a search takes", method: "POST", path: "/app/rest/v4/conversations/search",
            body: "{\"orderBy\": [" + Array(repeating: #"{"field": "STATE"}"#, count: 9).joined(separator: ",") + "]}", status: 400,
            messageContains: "orderBy has more than 8 entries"),
        .init(
            name: "more filters than a search takes", method: "POST", path: "/app/rest/v4/persons/search",
            body: "{\"searchFilters\": [" + Array(repeating: #"{"field": "SOURCE_ID", "operator": {"type": "EQUALS", "value": "x"}}"#, count: 33)
                .joined(separator: ",") + "]}", status: 400, messageContains: "searchFilters has more than 32 entries"),
        .init(
            name: "an operator the field's family does not have", method: "POST", path: "/app/rest/v4/users/search",
            body: #"{"searchFilters": [{"field": "USERNAME", "operator": {"type": "GREATER_THAN", "value": 5}}]}"#, status: 400,
            messageContains: "the USERNAME filter does not allow GREATER_THAN"),
        .init(
            name: "an operator $_type of another family", method: "POST", path: "/app/rest/v4/conversations/search",
            body: #"{"searchFilters": [{"field": "TOPIC", "operator": {"$_type": "EqualsTimestampOperator", "type": "EQUALS", "value": 5}}]}"#,
            status: 400, messageContains: "takes EqualsStringOperator"),
        .init(
            name: "an operator $_type that is no operator", method: "POST", path: "/app/rest/v4/persons/search",
            body: #"{"searchFilters": [{"field": "USERNAME", "operator": {"$_type": "Bogus", "type": "EQUALS", "value": "x"}}]}"#,
            status: 400, messageContains: "'Bogus' is not an operator of type EQUALS"),
        .init(
            name: "an operator $_type of another type", method: "POST", path: "/app/rest/v4/users/search",
            body: #"{"searchFilters": [{"field": "USERNAME", "operator": {"$_type": "EqualsStringOperator", "type": "CONTAINS", "value": "x"}}]}"#,
            status: 400, messageContains: "not an operator of type CONTAINS"),
        .init(
            name: "a list operator on a single value", method: "POST", path: "/app/rest/v4/conversations/search",
            body: #"{"searchFilters": [{"field": "ASSIGNEE_PERSON_ID", "operator": {"type": "ANY_OF", "values": ["x"]}}]}"#,
            status: 400, messageContains: "does not allow ANY_OF"),
        .init(
            name: "huge number", method: "POST", path: "/app/rest/v4/apikeys/search", body: #"{"offset": 1e300}"#, status: 400,
            messageContains: "out of range"),
        .init(
            name: "unknown expand", method: "GET", path: "/app/rest/v4/accounts/getCurrentAccount", query: ["expand": "everything"], status: 400,
            messageContains: "expand"),
        .init(name: "missing query parameter", method: "GET", path: "/app/rest/v4/users/getByUsername", status: 400, messageContains: "username"),
        .init(name: "unknown route", method: "GET", path: "/app/rest/v4/nothing/here", status: 404, messageContains: "no route"),
        .init(
            name: "over-long name", method: "POST", path: "/app/rest/v4/apikeys/create", body: #"{"name": "\#(String(repeating: "n", count: 300))"}"#,
            status: 400, messageContains: "longer than"),
        .init(
            name: "body over the limit", method: "POST", path: "/app/rest/v4/apikeys/create",
            body: #"{"name": "big", "description": "\#(String(repeating: "x", count: 70_000))"}"#, status: 413, messageContains: "exceeds the limit"),
    ]

    @Test("answers with a 4xx Error body and changes nothing", .serialized, arguments: cases)
    func badInput(_ input: Case) async throws {
        // In process (HummingbirdTesting's router mode): the same router and middleware, no sockets.
        try await InProcessServer.with { server in
            let superAdmin = InProcessServer.basic("superadmin", "superadmin")
            let accountId =
                try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: superAdmin).decode(WebAccount.self).id ?? ""
            let before = try server.stats()
            var components = URLComponents()
            components.queryItems = input.query.isEmpty ? nil : input.query.map { URLQueryItem(name: $0.key, value: $0.value) }
            let path = input.path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
            let response = try await server.call(
                HTTPRequest.Method(input.method)!, path, authorization: superAdmin,
                body: input.body.map { $0.replacingOccurrences(of: "ACCOUNT", with: accountId) }
            )
            #expect(response.status.code == input.status, "\(input.name): status \(response.status), body \(response.text)")
            let error = try response.decode(WebAPIError.self)
            #expect(error.type == "Error")
            #expect(error.statusCode == input.status)
            #expect(error.errorMessage?.contains(input.messageContains) == true, "\(input.name): message was \(error.errorMessage ?? "nil")")
            #expect(response.headers[.contentType] == "application/json")
            #expect(try server.stats() == before, "\(input.name) changed state")
        }
    }

    @Test("the alias /unblu/rest/v4 serves the same API")
    func alias() async throws {
        try await InProcessServer.with { server in
            let client = AdminClient(baseURL: server.baseURL, credentials: .basic(username: "admin", password: "admin"), prefix: "/unblu/rest/v4")
            let account = try await client.accounts.current()
            #expect(account.name == "demo")
        }
    }

    @Test("many concurrent bad and good requests leave the server healthy")
    func noWedge() async throws {
        try await InProcessServer.with { server in
            let transport = server.transport()
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let body = index.isMultiple(of: 2) ? Data("{\"name\":".utf8) : Data(#"{"name":"k\#(index)"}"#.utf8)
                        return try await transport.raw("POST", "/app/rest/v4/apikeys/create", body: body).status
                    }
                }
                var statuses: [Int: Int] = [:]
                for try await status in group { statuses[status, default: 0] += 1 }
                #expect(statuses == [400: 100, 200: 100])
            }
            #expect(try await server.admin("admin", "admin").apiKeys.search(WebQuery(type: "ApiKeyQuery", limit: 1000)).items?.count == 101)
        }
    }
}
