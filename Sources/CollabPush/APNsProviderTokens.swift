import CollabCore
import Foundation
import JWTKit
import Synchronization

/// ES256 provider tokens for the APNs provider API, cached per team and key and renewed well inside
/// Apple's window (a token must be between 20 and 60 minutes old to be refreshed; older than an hour
/// is rejected): a token is reused for 50 minutes, and renewed at once after ExpiredProviderToken.
final class APNsProviderTokens: Sendable {
    private struct Cached {
        var token: String
        var issuedAt: Timestamp
    }

    /// How long a token is reused.
    static let lifetime: Int64 = 50 * 60 * 1000
    /// A token younger than this is taken even when a renewal is asked for.
    static let renewalGap: Int64 = 60 * 1000

    private let cache = Mutex<[String: Cached]>([:])
    private let clock: any CollabClock

    init(clock: any CollabClock) {
        self.clock = clock
    }

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// A valid token for the settings; `renew` forces a new one.
    func token(for settings: PushSettings.APNs, renew: Bool = false) async throws -> String {
        guard let teamId = settings.teamId, let keyId = settings.keyId, let pem = settings.privateKeyPEM else {
            throw CollabError.badRequest("APNs token authentication needs teamId, keyId and privateKeyPEM")
        }
        let key = "\(teamId):\(keyId)"
        let now = clock.now()
        if let cached = cache.withLock({ $0[key] }), now >= cached.issuedAt, now - cached.issuedAt < (renew ? Self.renewalGap : Self.lifetime) {
            // A renewal asked for just after another (concurrent deliveries that all met
            // ExpiredProviderToken) takes the fresh token: Apple refuses more than one new token per
            // 20 minutes (TooManyProviderTokenUpdates).
            return cached.token
        }
        let signer = JWTKeyCollection()
        await signer.add(ecdsa: try ES256PrivateKey(pem: pem), kid: JWKIdentifier(string: keyId))
        // `iat` in whole seconds, as Apple documents it.
        let claims = Claims(iss: IssuerClaim(value: teamId), iat: IssuedAtClaim(value: Date(timeIntervalSince1970: Double(now / 1000))))
        let token = try await signer.sign(claims, kid: JWKIdentifier(string: keyId))
        cache.withLock { $0[key] = Cached(token: token, issuedAt: now) }
        return token
    }
}
