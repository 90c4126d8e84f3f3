import CollabClient
import CollabWire
import Foundation
import Testing

/// `redirectOnSuccess` after `login` and `authenticateWithToken` is followed only to same-origin paths;
/// anything else is ignored (the login succeeds and answers its `LoginResult`).
@Suite("Login redirects stay on the server")
struct RedirectTests {
    static let hostile = [
        "//evil.example/x", "/\\evil.example", "/%5Cevil.example", "/%5cevil.example", "/%2F%2Fevil.example", "/%252F%252Fevil.example",
        "https://evil.example/", "javascript:alert(1)", "\\\\evil.example", "/\t/evil.example", "/x\r\nSet-Cookie: a=b", " //evil.example",
        "/%09/evil.example", "/%00", "evil.example", "///evil.example", "/\u{FF0F}evil.example",
    ]

    /// A transport to the server in process: nothing follows redirects there, so the test sees the 302 itself.
    func withTransport(_ server: InProcessServer, _ body: (HTTPTransport) async throws -> Void) async throws {
        try await body(server.transport(.none))
    }

    @Test("login: a same-origin path redirects; hosts, schemes, backslashes, control characters and encoded variants do not")
    func login() async throws {
        try await InProcessServer.with { server in
            try await withTransport(server) { transport in
                func login(_ redirect: String) async throws -> HTTPTransport.RawResponse {
                    let body = try JSONEncoder().encode(["username": "admin", "password": "admin", "redirectOnSuccess": redirect])
                    return try await transport.raw("POST", "/app/rest/v4/authenticator/login", body: body)
                }
                let good = try await login("/app/console?tab=queue#top")
                #expect(good.status == 302)
                #expect(good.header("location") == "/app/console?tab=queue#top")
                #expect(good.header("set-cookie")?.contains("x-unblu-authsession=") == true)
                for redirect in Self.hostile {
                    let response = try await login(redirect)
                    #expect(response.status == 200, "\(redirect.debugDescription)")
                    #expect(response.header("location") == nil, "\(redirect.debugDescription) redirected")
                    #expect(try JSONDecoder().decode(WebLoginResult.self, from: response.body).success == true)
                }
            }
        }
    }

    @Test("authenticateWithToken: the same rules for the query parameter")
    func authenticateWithToken() async throws {
        try await InProcessServer.with { server in
            try await withTransport(server) { transport in
                func redeem(_ redirect: String) async throws -> HTTPTransport.RawResponse {
                    let token = try await server.anonymous.authenticator.createAuthenticationToken(username: "admin", password: "admin")
                    return try await transport.raw(
                        "GET", "/app/rest/v4/authenticator/authenticateWithToken",
                        query: [("authenticationToken", token), ("redirectOnSuccess", redirect)]
                    )
                }
                let good = try await redeem("/app/console")
                #expect(good.status == 302)
                #expect(good.header("location") == "/app/console")
                for redirect in Self.hostile {
                    let response = try await redeem(redirect)
                    #expect(response.status == 200, "\(redirect.debugDescription)")
                    #expect(response.header("location") == nil, "\(redirect.debugDescription) redirected")
                }
            }
        }
    }
}
