import CollabClient
import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// The routes of agents' apps, run-time authorization, UI requests, devices and versions: bad input and
/// missing credentials get their typed (or Web API) 4xx and change nothing (router mode).
@Suite("Apps, tokens and devices: bad input")
struct AppBadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var method: HTTPRequest.Method
        var path: String
        /// `AGENT` (agent-a's basic credentials), `CLIENT` (a started visitor's token), `CONTROL`, `ADMIN` or none.
        var caller: String?
        var body: String?
        var status: Int
        /// The typed body's `type` (mobile and agent APIs), or a part of the Web API `Error` message.
        var expect: String
        var description: String { name }
    }

    static let device = #""deviceId":"bad-input-phone","device":{"os":"iOS"}"#
    /// 300 combining acute accents and the closing quote: after a letter, one Swift `Character` of 300
    /// more code points than a name may hold.
    static let marks = String(repeating: "\u{0301}", count: 300) + "\""
    static let cases: [Case] = [
        .init(
            name: "agent app without API key", method: .post, path: "/agent/v1/clients", body: #"{\#(device),"username":"agent-a","password":"pw"}"#,
            status: 401, expect: "INVALID_API_KEY"),
        .init(
            name: "agent app with an unknown API key", method: .post, path: "/agent/v1/clients",
            body: #"{"apiKey":"nope",\#(device),"username":"agent-a","password":"pw"}"#, status: 401, expect: "INVALID_API_KEY"),
        .init(
            name: "agent app without credentials", method: .post, path: "/agent/v1/clients", body: #"{"apiKey":"desk-key",\#(device)}"#, status: 401,
            expect: "AUTHORIZATION"),
        .init(
            name: "agent app with a wrong password", method: .post, path: "/agent/v1/clients",
            body: #"{"apiKey":"desk-key",\#(device),"username":"agent-a","password":"x"}"#, status: 401, expect: "AUTHORIZATION"),
        .init(
            name: "agent app with a malformed token", method: .post, path: "/agent/v1/clients",
            body: #"{"apiKey":"desk-key",\#(device),"accessToken":"a.b.c"}"#, status: 401, expect: "AUTHORIZATION"),
        .init(
            name: "agent app without a device id", method: .post, path: "/agent/v1/clients",
            body: #"{"apiKey":"desk-key","device":{"os":"iOS"},"username":"agent-a","password":"pw"}"#, status: 400, expect: "BAD_REQUEST"),
        .init(
            name: "agent app with an SDK the server does not pair with", method: .post, path: "/agent/v1/clients",
            body: #"{"apiKey":"desk-key","deviceId":"d","device":{"os":"iOS","sdkVersion":"9.0"},"username":"agent-a","password":"pw"}"#, status: 400,
            expect: "UNSUPPORTED_SERVER_VERSION"),
        .init(
            name: "visitor app whose device id holds a NUL (a database's text column refuses it)", method: .post, path: "/mobile/v1/clients",
            body: #"{"apiKey":"desk-key","deviceId":"a\u0000b","device":{"os":"iOS"}}"#, status: 400, expect: "BAD_REQUEST"),
        .init(
            name: "visitor app whose device id holds a control character", method: .post, path: "/mobile/v1/clients",
            body: #"{"apiKey":"desk-key","deviceId":"a\u0085b","device":{"os":"iOS"}}"#, status: 400, expect: "BAD_REQUEST"),
        .init(
            name: "visitor app whose device id is one letter with 300 combining marks (one Character, 601 bytes)", method: .post,
            path: "/mobile/v1/clients", body: #"{"apiKey":"desk-key","deviceId":"d\#(marks),"device":{"os":"iOS"}}"#, status: 400,
            expect: "BAD_REQUEST"),
        .init(
            name: "visitor app whose device model is one letter with 300 combining marks", method: .post, path: "/mobile/v1/clients",
            body: #"{"apiKey":"desk-key","deviceId":"d","device":{"os":"iOS","model":"m\#(marks)}}"#, status: 400, expect: "BAD_REQUEST"),
        .init(
            name: "visitor app with an SDK the server does not pair with", method: .post, path: "/mobile/v1/clients",
            body: #"{"apiKey":"desk-key","deviceId":"d","device":{"os":"iOS","sdkVersion":"2.1"}}"#, status: 400, expect: "UNSUPPORTED_SERVER_VERSION"
        ),
        .init(
            name: "an agent's push registration at the desk (no app)", method: .put, path: "/agent/v1/clients/current/push", caller: "AGENT",
            body: #"{"apnsToken":"a1a1a1a1a1a1a1a1","version":"ENCRYPTED"}"#, status: 401, expect: "AUTHORIZATION"),
        .init(
            name: "an agent app's state at the desk (no app)", method: .put, path: "/agent/v1/clients/current/app-state", caller: "AGENT",
            body: #"{"appState":"BACKGROUND"}"#, status: 401, expect: "AUTHORIZATION"),
        .init(name: "collapse without a client", method: .post, path: "/mobile/v1/clients/current/collapse", status: 401, expect: "AUTHORIZATION"),
        .init(
            name: "collapse where the action is off", method: .post, path: "/mobile/v1/clients/current/collapse", caller: "CLIENT", status: 409,
            expect: "CONFLICT"),
        .init(
            name: "a forged call credential", method: .get, path: "/mobile/v1/calls/5A0C8F9E-1111-4222-8333-444455556666",
            caller: "vc1.acct.5A0C8F9E-1111-4222-8333-444455556666.YQ.sig", status: 401, expect: "AUTHORIZATION"),
        .init(
            name: "a push registration with a bad nativeInboundCall", method: .put, path: "/mobile/v1/clients/current/push", caller: "CLIENT",
            body: #"{"apnsToken":"a1a1a1a1a1a1a1a1","version":"ENCRYPTED","nativeInboundCall":"yes"}"#, status: 400, expect: "BAD_REQUEST"),
        .init(
            name: "revoking what is not a token", method: .post, path: "/_mock/v1/accounts/desk/tokens/revoke", caller: "CONTROL",
            body: #"{"token":"not.a.jwt"}"#, status: 400, expect: "token"),
        .init(
            name: "revoking without a token", method: .post, path: "/_mock/v1/accounts/desk/tokens/revoke", caller: "CONTROL", body: "{}",
            status: 400, expect: "token"),
        .init(
            name: "removing devices with a wrong $_type", method: .post, path: "/app/rest/v4/persons/PERSON/removeDevices", caller: "ADMIN",
            body: #"{"$_type":"Account"}"#, status: 400, expect: "$_type"),
        .init(
            name: "removing too many devices", method: .post, path: "/app/rest/v4/persons/PERSON/removeDevices", caller: "ADMIN",
            body: #"{"deviceIdentifiers":[\#(Array(repeating: #""d""#, count: 1001).joined(separator: ","))]}"#, status: 400, expect: "at most"),
        .init(
            name: "removing an unknown person's devices", method: .post, path: "/app/rest/v4/persons/unknown/removeDevices", caller: "ADMIN",
            status: 404, expect: "not found"),
        .init(
            name: "a live socket resuming after what is not an event id", method: .get, path: "/mobile/v1/events?lastEventId=abc", caller: "CLIENT",
            status: 400, expect: "BAD_REQUEST"),
        .init(
            name: "an agent's live socket resuming after a negative event id", method: .get, path: "/agent/v1/events?lastEventId=-1", caller: "AGENT",
            status: 400, expect: "BAD_REQUEST"),
        .init(
            name: "a live socket's route asked without a WebSocket upgrade", method: .get, path: "/mobile/v1/events", caller: "CLIENT",
            status: 400, expect: "WebSocket endpoint"),
        .init(
            name: "a misspelt parameter of the push pipeline's settle", method: .get, path: "/_mock/v1/pushes/settle?acount=desk", caller: "CONTROL",
            status: 400, expect: "acount: not a query parameter"),
        .init(
            name: "a misspelt filter of the outbox stream", method: .get, path: "/_mock/v1/pushes/stream?kinds=NEW_MESSAGE", caller: "CONTROL",
            status: 400, expect: "kinds: not a query parameter"),
        .init(
            name: "partial APNs provider key", method: .put, path: "/_mock/v1/accounts/desk/push-settings", caller: "CONTROL",
            body: #"{"apns":{"keyId":"KEY1234567","environment":"sandbox"}}"#, status: 400, expect: "teamId"),
        .init(
            name: "an APNs certificate that is not base64", method: .put, path: "/_mock/v1/accounts/desk/push-settings", caller: "CONTROL",
            body: #"{"apns":{"certificate":{"pkcs12":"%%","password":""},"environment":"sandbox"}}"#, status: 400, expect: "pkcs12"),
        .init(
            name: "an APNs certificate that is no .p12", method: .put, path: "/_mock/v1/accounts/desk/push-settings", caller: "CONTROL",
            body: #"{"apns":{"certificate":{"pkcs12":"bm90IGEgcDEy","password":"x"},"environment":"sandbox"}}"#, status: 400,
            expect: "apns.certificate does not open"),
        .init(
            name: "an APNs key that is no P-256 key", method: .put, path: "/_mock/v1/accounts/desk/push-settings", caller: "CONTROL",
            body: #"{"apns":{"teamId":"TEAM123456","keyId":"KEY1234567","environment":"sandbox","#
                + #""privateKeyPEM":"-----BEGIN PRIVATE KEY-----\nbm9wZQ==\n-----END PRIVATE KEY-----"}}"#,
            status: 400, expect: "apns.privateKeyPEM is not a P-256 private key"),
        .init(
            name: "a relative simulator directory", method: .put, path: "/_mock/v1/accounts/desk/push-settings", caller: "CONTROL",
            body: #"{"simulatorDirectory":"relative/dir"}"#, status: 400, expect: "absolute path"),
    ]

    @Test("answers a 4xx and changes nothing", .serialized, arguments: cases)
    func badInput(_ input: Case) async throws {
        try await InProcessServer.with(seed: queueSeed, configure: { $0.productVersion = ProductVersion("7.49.2") }) { server in
            var authorization: String?
            var path = input.path
            switch input.caller {
            case "AGENT": authorization = InProcessServer.basic("agent-a", "pw")
            case "ADMIN": authorization = InProcessServer.basic("admin-d", "pw")
            case "CONTROL": authorization = "Bearer test-control-token"
            case "CLIENT":
                let started = try await server.call(
                    .post, "/mobile/v1/clients", body: #"{"apiKey":"desk-key","deviceId":"bad-input-visitor","device":{"os":"iOS"}}"#)
                let start = try started.decode(ClientStartResponse.self)
                authorization = "Bearer \(start.token)"
                path = path.replacingOccurrences(of: "PERSON", with: start.person.id)
            case let token?: authorization = "Bearer \(token)"
            case nil: break
            }
            if input.caller == "ADMIN", path.contains("PERSON") {
                let started = try await server.call(
                    .post, "/mobile/v1/clients", body: #"{"apiKey":"desk-key","deviceId":"owner","device":{"os":"iOS"}}"#)
                path = path.replacingOccurrences(of: "PERSON", with: try started.decode(ClientStartResponse.self).person.id)
            }
            let before = try server.stats()
            let response = try await server.call(input.method, path, authorization: authorization, body: input.body)
            #expect(response.status.code == input.status, "\(input.name): \(response.status) \(response.text)")
            #expect(response.text.contains(input.expect), "\(input.name): \(response.text)")
            #expect(try server.stats() == before, "\(input.name) changed state")
        }
    }
}
