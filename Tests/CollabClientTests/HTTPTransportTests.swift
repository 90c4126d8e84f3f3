import CollabWire
import Foundation
import Testing

@testable import CollabClient

/// What the transport sends and how it reads answers: credentials, cookies, query encoding, errors.
@Suite("HTTP transport")
struct HTTPTransportTests {
    struct Echo: Codable, Equatable { var value: String }

    @Test("basic credentials, then the session cookie the server set, then custom cookies beside it")
    func credentialsAndCookies() async throws {
        try await ScriptedServer.with({ request in
            request.uri.hasPrefix("/login")
                ? ScriptedServer.json(200, #"{"value":"in"}"#, headers: [("Set-Cookie", "\(webAPISessionCookieName)=abc123; Path=/; HttpOnly")])
                : ScriptedServer.json(200, #"{"value":"ok"}"#)
        }) { server in
            let transport = HTTPTransport(baseURL: server.baseURL, credentials: .basic(username: "admin", password: "pä:ss"))
            let _: Echo = try await transport.send("POST", "/login")
            #expect(transport.sessionToken == "abc123")
            transport.setCustomCookies(["b": "2", "a": "1"])
            transport.setCredentials(.bearer("token-1"))
            let _: Echo = try await transport.send("GET", "/next")
            transport.clearSession()
            let _: Echo = try await transport.send("GET", "/after")
            let requests = server.requests
            #expect(requests[0].header("Authorization") == "Basic " + Data("admin:pä:ss".utf8).base64EncodedString())
            #expect(requests[0].header("Cookie") == nil)
            #expect(requests[1].header("Authorization") == "Bearer token-1")
            #expect(requests[1].header("Cookie") == "a=1; b=2; \(webAPISessionCookieName)=abc123")
            #expect(requests[2].header("Cookie") == "a=1; b=2")
        }
    }

    @Test("a body is sent as JSON without escaped slashes; the query is percent-encoded, `+` included")
    func bodyAndQuery() async throws {
        try await ScriptedServer.with({ _ in ScriptedServer.json(200, #"{"value":"ok"}"#) }) { server in
            let transport = HTTPTransport(baseURL: server.baseURL + "/")
            let _: Echo = try await transport.send("PUT", "/things", query: [("q", "a+b c/é"), ("n", "1")], body: Echo(value: "x/y"))
            let request = try #require(server.requests.first)
            #expect(request.method == "PUT")
            #expect(request.uri == "/things?q=a%2Bb%20c/%C3%A9&n=1")
            #expect(request.header("Content-Type") == "application/json")
            #expect(String(decoding: request.body, as: UTF8.self) == #"{"value":"x/y"}"#)
        }
    }

    @Test("errors: the typed body's type and message, the Web API's errorMessage, or the text; codes by status")
    func errors() async throws {
        try await ScriptedServer.with({ request in
            switch request.uri {
            case "/typed": ScriptedServer.json(403, #"{"type":"FORBIDDEN_ACCOUNT","message":"not yours"}"#)
            case "/webapi": ScriptedServer.json(404, WebAPIError(statusCode: 404, statusDescription: "Not Found", errorMessage: "no such thing"))
            case "/limited": ScriptedServer.json(429, #"{"type":"RATE_LIMITED","message":"slow down"}"#)
            case "/garbled": HTTPTransport.RawResponse(status: 200, headers: [], body: Data("not json".utf8))
            default: HTTPTransport.RawResponse(status: 502, headers: [], body: Data("bad gateway".utf8))
            }
        }) { server in
            let transport = HTTPTransport(baseURL: server.baseURL)
            func failure(_ path: String) async -> CollabClientError? {
                do {
                    let _: Echo = try await transport.send("GET", path)
                    return nil
                } catch {
                    return error
                }
            }
            let typed = await failure("/typed")
            #expect(typed?.code == .forbidden && typed?.status == 403 && typed?.type == "FORBIDDEN_ACCOUNT" && typed?.message == "not yours")
            let webAPI = await failure("/webapi")
            #expect(webAPI?.code == .notFound && webAPI?.message == "no such thing" && webAPI?.type == nil)
            #expect(await failure("/limited")?.code == .rateLimited)
            #expect(await failure("/plain")?.message == "bad gateway")
            #expect(await failure("/garbled")?.code == .decoding)
            let raw = try await transport.raw("GET", "/plain")
            #expect(raw.status == 502, "raw answers whatever the status")
        }
    }

    @Test("a client error maps to the SDK's error types and fatality")
    func clientErrors() {
        func mapped(_ status: Int, type: String? = nil) -> ClientError {
            ClientError(CollabClientError(code: .forStatus(status), status: status, message: "m", type: type))
        }
        #expect(mapped(401).type == .authorization && !mapped(401).isFatal)
        #expect(mapped(503).type == .unavailable && mapped(503).isFatal)
        #expect(mapped(500).type == .internal && mapped(500).isFatal)
        #expect(mapped(409).type == .conflict)
        #expect(mapped(400, type: "INVALID_API_KEY").type == .invalidApiKey && mapped(400, type: "INVALID_API_KEY").isFatal)
        #expect(ClientError(CollabClientError(code: .transport, status: nil, message: "down")).type == .network)
        // A body the server found too slow: its own code, a network error for the SDK, not fatal.
        #expect(CollabClientError.Code.forStatus(408) == .requestTimeout)
        #expect(mapped(408, type: "REQUEST_TIMEOUT").type == .network && !mapped(408, type: "REQUEST_TIMEOUT").isFatal)
    }

    @Test("live-socket URLs: ws for http, wss for https, the query percent-encoded")
    func webSocketURLs() {
        #expect(
            webSocketURL("http://127.0.0.1:8080/", path: "/mobile/v1/events", query: [("token", "a b+c")])
                == "ws://127.0.0.1:8080/mobile/v1/events?token=a%20b%2Bc")
        #expect(webSocketURL("https://mock.example", path: "/agent/v1/events", query: []) == "wss://mock.example/agent/v1/events")
        #expect(webSocketURL("https://h", path: "/p", query: [("ids", "1,2"), ("x", "é")]) == "wss://h/p?ids=1,2&x=%C3%A9")
    }

    @Test("live events through an in-process server fail at once instead of reconnecting forever")
    func liveEventsNeedASocket() throws {
        #expect(throws: CollabClientError.self) { try InProcessExchanges.requireSocket("inprocess://abc", for: "the live event stream") }
        try InProcessExchanges.requireSocket("http://127.0.0.1:8080", for: "the live event stream")
    }
}
