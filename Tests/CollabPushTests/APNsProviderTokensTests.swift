import CollabCore
import Crypto
import Foundation
import JWTKit
import Synchronization
import Testing

@testable import CollabPush

/// ES256 provider tokens: signed for the team and key, reused inside Apple's window, renewed after it.
@Suite("APNs provider tokens")
struct APNsProviderTokensTests {
    final class SteppingClock: CollabClock {
        let time = Mutex<Timestamp>(1_800_000_000_000)
        func now() -> Timestamp { time.withLock { $0 } }
        func advance(_ milliseconds: Int64) { time.withLock { $0 += milliseconds } }
    }

    /// A JWT's header and claims, decoded from base64url without verifying anything.
    static func parts(_ token: String) throws -> (header: [String: Any], claims: [String: Any]) {
        func object(_ part: Substring) throws -> [String: Any] {
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            let data = try #require(Data(base64Encoded: text))
            return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let pieces = token.split(separator: ".")
        try #require(pieces.count == 3)
        return (try object(pieces[0]), try object(pieces[1]))
    }

    static func issuedAt(_ token: String) throws -> Int64? {
        (try parts(token).claims["iat"] as? NSNumber)?.int64Value
    }

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    @Test("a token names the team and the key, verifies with the key's public half, and is reused for 50 minutes")
    func reuse() async throws {
        let key = P256.Signing.PrivateKey()
        let settings = PushSettings.APNs(teamId: "TEAM123456", keyId: "KEY1234567", privateKeyPEM: key.pemRepresentation)
        let clock = SteppingClock()
        let tokens = APNsProviderTokens(clock: clock)
        let first = try await tokens.token(for: settings)

        let verifier = JWTKeyCollection()
        await verifier.add(ecdsa: try ES256PublicKey(pem: key.publicKey.pemRepresentation), kid: JWKIdentifier(string: "KEY1234567"))
        let claims = try await verifier.verify(first, as: Claims.self)
        #expect(claims.iss.value == "TEAM123456")
        let header = try Self.parts(first).header
        #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "KEY1234567")
        #expect(try Self.issuedAt(first) == 1_800_000_000)

        clock.advance(APNsProviderTokens.lifetime - 1)
        #expect(try await tokens.token(for: settings) == first, "reused inside the window")
        clock.advance(1)
        let renewed = try await tokens.token(for: settings)
        #expect(renewed != first)
        #expect(try Self.issuedAt(renewed) == 1_800_000_000 + APNsProviderTokens.lifetime / 1000, "issued now, 50 minutes later")
    }

    @Test("a forced renewal, a clock set back and another key each get a token of their own; renewals a minute apart at most")
    func renewal() async throws {
        let key = P256.Signing.PrivateKey()
        let settings = PushSettings.APNs(teamId: "TEAM", keyId: "KEY-A", privateKeyPEM: key.pemRepresentation)
        let clock = SteppingClock()
        let tokens = APNsProviderTokens(clock: clock)
        let first = try await tokens.token(for: settings)
        clock.advance(10_000)
        #expect(try await tokens.token(for: settings, renew: true) == first, "a renewal right after another takes the fresh token")
        clock.advance(APNsProviderTokens.renewalGap)
        let forced = try await tokens.token(for: settings, renew: true)
        #expect(try Self.issuedAt(forced) == 1_800_000_070, "ExpiredProviderToken: a new token at once")
        #expect(try await tokens.token(for: settings) == forced, "the renewed token is the one reused")
        clock.advance(-120_000)
        #expect(try Self.issuedAt(try await tokens.token(for: settings)) == 1_799_999_950, "a token from the future is not reused")
        var other = settings
        other.keyId = "KEY-B"
        #expect(try Self.parts(try await tokens.token(for: other)).header["kid"] as? String == "KEY-B")
        #expect(try Self.parts(try await tokens.token(for: settings)).header["kid"] as? String == "KEY-A")
    }

    @Test("iat is whole seconds, as Apple documents it, also between two seconds")
    func wholeSeconds() async throws {
        let key = P256.Signing.PrivateKey()
        let clock = SteppingClock()
        clock.advance(1_234)
        let token = try await APNsProviderTokens(clock: clock).token(
            for: PushSettings.APNs(teamId: "TEAM", keyId: "KEY", privateKeyPEM: key.pemRepresentation))
        let iat = try #require(try Self.parts(token).claims["iat"] as? NSNumber)
        #expect(iat.doubleValue == 1_800_000_001, "\(iat)")
    }

    @Test("a key that is not a P-256 PEM fails")
    func badKey() async {
        let tokens = APNsProviderTokens(clock: SteppingClock())
        await #expect(throws: (any Error).self) {
            try await tokens.token(for: PushSettings.APNs(teamId: "T", keyId: "K", privateKeyPEM: "not a key"))
        }
    }
}
