import CollabClient
import CollabCore
import CollabServer
import CollabWire
import Foundation
import JWTKit
import Testing

/// Claims with a "not before" time.
struct NotBeforeClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var nbf: NotBeforeClaim
    func verify(using algorithm: some JWTAlgorithm) throws {}
}

@Suite("Access token nbf")
struct NotBeforeTests {
    @Test("a token is refused before its nbf on the server's clock and accepted once the clock reaches it")
    func notBefore() async throws {
        let secret = "a-shared-secret-of-enough-length"
        let seed = Seed(accounts: [.init(name: "jwt", apiKeys: [.init(key: "jwt-key")], jwt: .init(keys: [.init(kid: "hs", hs256Secret: secret)]))])
        let clock = AdjustableClock(frozenAt: 1_800_000_000_000)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await InProcessServer.with(seed: seed, clock: clock) { server in
            let signers = JWTKeyCollection()
            await signers.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: "hs")
            let token = try await signers.sign(
                NotBeforeClaims(
                    sub: .init(value: "later"), exp: .init(value: now.addingTimeInterval(3600)), nbf: .init(value: now.addingTimeInterval(60))),
                kid: "hs"
            )
            func login() async -> CollabClientError? {
                do throws(CollabClientError) {
                    try await server.anonymous.authenticator.loginWithSecureToken(token, apiKey: "jwt-key")
                    return nil
                } catch {
                    return error
                }
            }
            let early = await login()
            #expect(early?.code == .authorization)
            #expect(early?.message.contains("not valid yet") == true)
            clock.advance(by: 60_000)
            #expect(await login() == nil)
        }
    }

    @Test("a token whose exp is past what a millisecond timestamp holds logs in (it never expires) instead of trapping")
    func farFutureExpiry() async throws {
        let secret = "a-shared-secret-of-enough-length"
        let seed = Seed(accounts: [.init(name: "jwt", apiKeys: [.init(key: "jwt-key")], jwt: .init(keys: [.init(kid: "hs", hs256Secret: secret)]))])
        try await InProcessServer.with(seed: seed) { server in
            let signers = JWTKeyCollection()
            await signers.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: "hs")
            let farFuture = Date(timeIntervalSince1970: 1e17)  // × 1000 is past Int64.max
            let token = try await signers.sign(
                NotBeforeClaims(sub: .init(value: "forever"), exp: .init(value: farFuture), nbf: .init(value: Date(timeIntervalSince1970: 0))),
                kid: "hs"
            )
            try await server.anonymous.authenticator.loginWithSecureToken(token, apiKey: "jwt-key")
            #expect(Timestamp(saturating: 1e20) == .max)
            #expect(Timestamp(saturating: -1e20) == .min)
            #expect(Timestamp(saturating: .nan) == 0)
            #expect(Timestamp(saturating: 1_234.9) == 1_234)
        }
    }
}
