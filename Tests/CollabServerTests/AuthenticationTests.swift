import CollabClient
import CollabCore
@testable import CollabServer
import CollabWire
import Crypto
import Foundation
import HTTPTypes
import JWTKit
import Testing
import _CryptoExtras

/// Claims the tests sign into access tokens.
struct TestClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var iss: IssuerClaim?
    var aud: AudienceClaim?
    var email: String?
    var given_name: String?
    func verify(using algorithm: some JWTAlgorithm) throws {}
}

@Suite("Authentication")
struct AuthenticationTests {
    @Test("login sets the session cookie; logout ends it")
    func loginLogout() async throws {
        try await InProcessServer.with { server in
            let client = server.anonymous
            try await client.authenticator.login(username: "agent", password: "agent")
            let token = try #require(client.transport.sessionToken)
            #expect(token.count >= 32)
            #expect(try await client.authenticator.currentPerson().username == "agent")
            #expect(try await client.accounts.current().name == "demo")
            try await client.authenticator.logout()
            // The old cookie no longer works even when presented again.
            let replay = server.transport(.bearer(token))
            #expect(try await replay.raw("GET", "/app/rest/v4/accounts/getCurrentAccount").status == 401)
            do throws(CollabClientError) {
                try await server.anonymous.authenticator.login(username: "agent", password: "wrong")
                Issue.record("wrong password accepted")
            } catch {
                #expect(error.code == .authorization)
            }
        }
    }

    @Test("a login with an unknown username costs the same password check as a wrong password, and answers the same")
    func unknownUsernameCostsACheck() async throws {
        try await InProcessServer.with { server in
            let hasher = server.server.environment.hasher
            func refusal(_ username: String) async throws -> (checks: Int, status: Int, body: NSDictionary) {
                let before = hasher.checkCount
                let answer = try await server.call(
                    .get, "/app/rest/v4/accounts/getCurrentAccount", authorization: InProcessServer.basic(username, "not-the-password"))
                let body = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? NSDictionary
                return (hasher.checkCount - before, Int(answer.status.code), body ?? [:])
            }
            let known = try await refusal("agent")
            let unknown = try await refusal("no-such-user")
            #expect(known.checks == 1 && unknown.checks == 1, "one bcrypt check each: \(known.checks), \(unknown.checks)")
            #expect(known.status == 401 && unknown.status == 401 && known.body == unknown.body, "\(known.body) \(unknown.body)")
            let login = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "no-such-user", password: "x"))
            #expect(login.status == .unauthorized)
        }
    }

    @Test("the session cookie counts only from the server's own origin: another page on the same host gets 401, and cannot log in or out")
    func cookieNeedsOwnOrigin() async throws {
        try await TestServer.with { server in
            let client = server.anonymous.transport
            let login = try await client.raw(
                "POST", "/app/rest/v4/authenticator/login", body: Data(#"{"username":"agent","password":"agent"}"#.utf8))
            #expect(login.status == 200 || login.status == 204)
            let cookie = try #require(login.header("set-cookie")?.split(separator: ";").first.map(String.init))
            let own = "http://127.0.0.1:\(server.port)"
            for (origin, status) in [(nil, 200), (own, 200), ("http://127.0.0.1:1", 401), ("http://localhost:\(server.port)", 401), ("null", 401)] {
                var headers = [("cookie", cookie)]
                if let origin { headers.append(("origin", origin)) }
                for path in ["/agent/v1/me", "/app/rest/v4/authenticator/getCurrentPerson"] {
                    let answer = try await client.raw("GET", path, headers: headers)
                    #expect(answer.status == status, "\(path) from \(origin ?? "no origin"): \(answer.status)")
                }
            }
            // A form on another page posting a login (text/plain, as a form can) is refused and sets no
            // cookie: it would log the console's user into another account. From the console's own page it works.
            let form = Data(#"{"username":"agent","password":"agent","x":"="}"#.utf8)
            for (origin, status) in [("http://127.0.0.1:1", 403), ("null", 403), (own, 200)] {
                for operation in ["login", "logout"] {
                    // A fresh client: SameSite=Lax keeps the cookie off another site's form post.
                    let answer = try await server.anonymous.transport.raw(
                        "POST", "/app/rest/v4/authenticator/\(operation)", body: operation == "login" ? form : nil, contentType: "text/plain",
                        headers: [("origin", origin)])
                    let expected = operation == "logout" && status == 200 ? 204 : status
                    #expect(answer.status == expected, "\(operation) from \(origin): \(answer.status)")
                    #expect((answer.header("set-cookie") != nil) == (expected != 403), "\(operation) from \(origin) set a cookie")
                }
            }
        }
    }

    @Test("sessions expire on the server clock")
    func sessionExpiry() async throws {
        let clock = AdjustableClock(frozenAt: 1_800_000_000_000)
        try await InProcessServer.with(clock: clock) { server in
            let client = server.anonymous
            try await client.authenticator.login(username: "admin", password: "admin")
            #expect(try await client.accounts.current().name == "demo")
            clock.advance(by: 13 * 3600 * 1000)
            do throws(CollabClientError) {
                _ = try await client.accounts.current()
                Issue.record("expired session accepted")
            } catch {
                #expect(error.code == .authorization)
            }
        }
    }

    @Test("one-time authentication tokens are exchanged for a session once")
    func authenticationTokens() async throws {
        try await InProcessServer.with { server in
            let token = try await server.anonymous.authenticator.createAuthenticationToken(username: "admin", password: "admin")
            let client = server.anonymous
            try await client.authenticator.authenticate(withToken: token)
            #expect(try await client.accounts.current().name == "demo")
            do throws(CollabClientError) {
                try await server.anonymous.authenticator.authenticate(withToken: token)
                Issue.record("token used twice")
            } catch {
                #expect(error.code == .authorization)
            }
        }
    }

    @Test("loginWithSecureToken accepts test tokens from the control API and creates the visitor")
    func secureTokenWithTestToken() async throws {
        try await InProcessServer.with { server in
            let issued = try await server.control.issueToken(
                account: "demo", TestTokenRequest(subject: "visitor-7", email: "v7@example.com", firstName: "Vee"))
            let visitor = server.anonymous
            try await visitor.authenticator.loginWithSecureToken(issued.token, apiKey: "demo-api-key")
            let me = try await visitor.authenticator.currentPerson()
            #expect(me.personType == "VISITOR")
            #expect(me.personSource == "VIRTUAL")
            #expect(me.sourceId == "visitor-7")
            #expect(me.email == "v7@example.com")
            #expect(me.firstName == "Vee")
            // A visitor is no agent.
            do throws(CollabClientError) {
                _ = try await visitor.accounts.current()
                Issue.record("visitor read the account")
            } catch {
                #expect(error.code == .forbidden)
            }
            do throws(CollabClientError) {
                try await server.anonymous.authenticator.loginWithSecureToken(issued.token, apiKey: "wrong-key")
                Issue.record("wrong API key accepted")
            } catch {
                #expect(error.code == .authorization)
            }
        }
    }

    @Test("access tokens validate against HS256, RS256 and ES256 keys and a JWKS, with iss, aud and exp checks")
    func seedConfiguredKeys() async throws {
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let ec = P256.Signing.PrivateKey()
        let jwksKey = P256.Signing.PrivateKey()
        let jwksRaw = jwksKey.publicKey.rawRepresentation
        let jwks = """
            {"keys":[{"kty":"EC","crv":"P-256","alg":"ES256","use":"sig","kid":"jwks-1",\
            "x":"\(base64URL(jwksRaw.prefix(32)))","y":"\(base64URL(jwksRaw.suffix(32)))"}]}
            """
        let seed = Seed(accounts: [
            .init(
                name: "jwt", apiKeys: [.init(key: "jwt-key")],
                jwt: .init(
                    issuer: "https://idp.example", audience: "mobile-app",
                    keys: [
                        .init(kid: "hs", hs256Secret: "a-shared-secret-of-enough-length"),
                        .init(kid: "rs", rs256PublicKeyPEM: rsa.publicKey.pemRepresentation),
                        .init(kid: "es", es256PublicKeyPEM: ec.publicKey.pemRepresentation),
                    ],
                    jwks: jwks
                )
            )
        ])
        let clock = AdjustableClock(frozenAt: 1_800_000_000_000)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await InProcessServer.with(seed: seed, clock: clock) { server in
            let signers = JWTKeyCollection()
            await signers.add(hmac: HMACKey(from: "a-shared-secret-of-enough-length"), digestAlgorithm: .sha256, kid: "hs")
            await signers.add(rsa: try Insecure.RSA.PrivateKey(pem: rsa.pemRepresentation), digestAlgorithm: .sha256, kid: "rs")
            await signers.add(ecdsa: try ES256PrivateKey(pem: ec.pemRepresentation), kid: "es")
            await signers.add(ecdsa: try ES256PrivateKey(pem: jwksKey.pemRepresentation), kid: "jwks-1")
            let wrong = JWTKeyCollection()
            await wrong.add(hmac: HMACKey(from: "another-secret-entirely-different"), digestAlgorithm: .sha256, kid: "hs")

            func claims(sub: String, iss: String = "https://idp.example", aud: String = "mobile-app", expiresIn: TimeInterval = 600) -> TestClaims {
                TestClaims(
                    sub: .init(value: sub), exp: .init(value: now.addingTimeInterval(expiresIn)), iss: .init(value: iss), aud: .init(value: [aud]))
            }
            func login(_ token: String) async -> CollabClientError? {
                do throws(CollabClientError) {
                    try await server.anonymous.authenticator.loginWithSecureToken(token, apiKey: "jwt-key")
                    return nil
                } catch {
                    return error
                }
            }
            for kid in ["hs", "rs", "es", "jwks-1"] {
                let token = try await signers.sign(claims(sub: "user-\(kid)"), kid: JWKIdentifier(string: kid))
                #expect(await login(token) == nil, "\(kid) token rejected")
            }
            let cases: [(String, String)] = [
                ("wrong signature", try await wrong.sign(claims(sub: "x"), kid: "hs")),
                ("wrong issuer", try await signers.sign(claims(sub: "x", iss: "https://evil.example"), kid: "hs")),
                ("wrong audience", try await signers.sign(claims(sub: "x", aud: "other-app"), kid: "hs")),
                ("expired", try await signers.sign(claims(sub: "x", expiresIn: -1), kid: "es")),
                ("garbage", "not.a.jwt"),
            ]
            for (name, token) in cases {
                let error = await login(token)
                #expect(error?.code == .authorization, "\(name) token accepted or wrongly refused: \(String(describing: error))")
            }
            // A valid token becomes invalid when the server clock passes its expiry.
            let shortLived = try await signers.sign(claims(sub: "short", expiresIn: 60), kid: "rs")
            clock.advance(by: 61_000)
            #expect(await login(shortLived)?.code == .authorization)
            let visitors = try await server.control.stats(account: "jwt")
            #expect(visitors.persons == 4, "one virtual visitor per accepted token")
        }
    }

    @Test("a seed whose JWT key or JWKS does not parse is a 400 naming the field, and applies nothing")
    func unusableSeededKeys() async throws {
        let ec = P256.Signing.PrivateKey()
        let bad: [(JWTValidationSettings.Key?, String?, String)] = [
            (.init(kid: "rs", rs256PublicKeyPEM: "-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----"), nil,
             "keys[0].rs256PublicKeyPEM"),
            // An EC key where an RSA key belongs.
            (.init(kid: "rs", rs256PublicKeyPEM: ec.publicKey.pemRepresentation), nil, "keys[0].rs256PublicKeyPEM"),
            (.init(kid: "es", es256PublicKeyPEM: "hello"), nil, "keys[0].es256PublicKeyPEM"),
            (nil, #"{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}"#, "jwks"),
            (nil, "not json", "jwks"),
        ]
        try await InProcessServer.with { server in
            for (key, jwks, field) in bad {
                let seed = Seed(accounts: [
                    .init(name: "jwt-bad", apiKeys: [.init(key: "jwt-bad-key")], jwt: .init(keys: key.map { [$0] }, jwks: jwks))
                ])
                let response = try await server.control.transport.raw("POST", "/_mock/v1/seed", body: try JSONEncoder().encode(seed))
                let text = String(decoding: response.body, as: UTF8.self)
                #expect(response.status == 400, "\(field): \(response.status) \(text)")
                #expect(text.contains("accounts[0] ('jwt-bad').jwt.\(field)"), "\(text)")
            }
            let accounts = try await server.control.stats().accounts
            #expect(accounts == 1, "nothing of the refused seeds was applied")
        }
    }

    @Test("basic credentials with bad encodings are refused with 401")
    func malformedBasic() async throws {
        try await InProcessServer.with { server in
            for header in ["Basic !!!", "Basic " + Data("no-colon".utf8).base64EncodedString(), "Digest abc", "Bearer unknown-token", "Basic"] {
                let response = try await server.transport(.none).raw(
                    "GET", "/app/rest/v4/accounts/getCurrentAccount", headers: [("Authorization", header)])
                #expect(response.status == 401, "\(header) → \(response.status)")
                #expect(response.header("www-authenticate")?.hasPrefix("Basic") == true)
            }
            // Two Authorization fields are not two chances: their values joined are no credential.
            let good = "Basic " + Data("admin:admin".utf8).base64EncodedString()
            let twice = try await server.transport(.none).raw(
                "GET", "/app/rest/v4/accounts/getCurrentAccount", headers: [("Authorization", good), ("Authorization", good)])
            #expect(twice.status == 401)
        }
    }

    @Test("passwords and secrets never appear in responses or the journal")
    func secretsStayHidden() async throws {
        try await InProcessServer.with { server in
            let admin = server.admin("admin", "admin")
            _ = try await admin.users.create(WebUser(username: "secretive", authorizationRole: "REGISTERED_USER"), password: "hunter2-password")
            let raw = try await server.transport().raw("POST", "/app/rest/v4/users/search", body: Data("{}".utf8))
            let text = String(decoding: raw.body, as: UTF8.self)
            #expect(!text.contains("hunter2"))
            #expect(!text.contains("passwordHash"))
            #expect(!text.contains("$2b$"))
            _ = try await server.transport(.none).raw(
                "POST", "/app/rest/v4/authenticator/loginWithSecureToken", query: [("x-unblu-apikey", "demo-api-key")], body: Data("{}".utf8))
            let journal = try await server.control.journal(JournalFilter(path: "/app/rest/v4/authenticator"))
            #expect(journal.entries.first?.query == "x-unblu-apikey=REDACTED")
        }
    }
}

private func base64URL(_ data: some DataProtocol) -> String {
    Data(data).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}
