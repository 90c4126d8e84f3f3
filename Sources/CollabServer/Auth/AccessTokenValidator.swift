import CollabCore
import Foundation
import JWTKit

/// The claims MockCollab reads from an access token.
struct AccessTokenClaims: JWTPayload {
    var sub: SubjectClaim?
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?
    var iat: IssuedAtClaim?
    var iss: IssuerClaim?
    var aud: AudienceClaim?
    var email: String?
    var name: String?
    var given_name: String?
    var family_name: String?
    var preferred_username: String?
    var firstName: String?
    var lastName: String?
    var username: String?

    /// Time-dependent checks happen in ``AccessTokenValidator`` against the injected clock.
    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// Validates access tokens (JWT) against an account's configured keys, issuer and audience, and issues
/// test tokens signed with the account's test secret.
struct AccessTokenValidator: Sendable {
    /// The `kid` of test tokens issued by the control API.
    static let testKeyID = "mock-collab-test"

    /// What a valid token says about its bearer.
    struct Identity: Sendable, Equatable {
        var subject: String
        var email: String?
        var firstName: String?
        var lastName: String?
        var displayName: String?
        var username: String?
        /// When the token expires (`exp`), ms since the epoch.
        var expiresAt: Timestamp
    }

    let clock: any CollabClock

    private func keys(for settings: JWTValidationSettings) async throws(CollabError) -> JWTKeyCollection {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: settings.testTokenSecret), digestAlgorithm: .sha256, kid: JWKIdentifier(string: Self.testKeyID))
        do {
            try await Self.add(settings.keys, jwks: settings.jwks, to: keys)
        } catch {
            throw CollabError(.internalError, "the account's JWT validation keys are invalid: \(error.message)")
        }
        return keys
    }

    /// Checks that every key parses as its algorithm needs it (a seed's `jwt` section), so a bad PEM is
    /// a 400 when given rather than a failure of every later login.
    /// - Throws: `badRequest` naming the key and field, with `place` before it.
    static func check(_ keys: [JWTValidationSettings.Key], jwks: String?, place: String) async throws(CollabError) {
        do {
            try await add(keys, jwks: jwks, to: JWTKeyCollection())
        } catch {
            throw .badRequest("\(place).\(error.message)")
        }
    }

    /// Adds the configured keys and JWKS to `collection`.
    /// - Throws: The field that does not parse (`keys[1].rs256PublicKeyPEM: …`).
    private static func add(_ keys: [JWTValidationSettings.Key], jwks: String?, to collection: JWTKeyCollection) async throws(CollabError) {
        for (index, key) in keys.enumerated() {
            let kid = key.kid.map { JWKIdentifier(string: $0) }
            // Shorter HS256 secrets are refused when seeded; never hand one to the signer.
            if let secret = key.hs256Secret, secret.utf8.count >= 32 {
                await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: kid)
            }
            if let pem = key.rs256PublicKeyPEM {
                let publicKey: Insecure.RSA.PublicKey
                do {
                    publicKey = pem.contains("CERTIFICATE")
                        ? try Insecure.RSA.PublicKey(certificatePEM: pem) : try Insecure.RSA.PublicKey(pem: pem)
                } catch {
                    throw .badRequest("keys[\(index)].rs256PublicKeyPEM is not a PEM RSA public key or certificate")
                }
                await collection.add(rsa: publicKey, digestAlgorithm: .sha256, kid: kid)
            }
            if let pem = key.es256PublicKeyPEM {
                let publicKey: ES256PublicKey
                do {
                    publicKey = try ES256PublicKey(pem: pem)
                } catch {
                    throw .badRequest("keys[\(index)].es256PublicKeyPEM is not a PEM P-256 public key")
                }
                await collection.add(ecdsa: publicKey, kid: kid)
            }
        }
        if let jwks {
            do {
                try await collection.add(jwksJSON: jwks)
            } catch {
                throw .badRequest("jwks is not a JSON Web Key Set this server can use (\(error))")
            }
        }
    }

    /// Validates `token` for the account with `settings`.
    /// - Parameter allowingRevoked: Accept a token the account revoked (revoking it again); every
    ///   login refuses one.
    /// - Throws: `unauthorized` with the reason when the token is malformed, badly signed, expired,
    ///   from the wrong issuer or audience, or revoked.
    func validate(_ token: String, settings: JWTValidationSettings, allowingRevoked: Bool = false) async throws(CollabError) -> Identity {
        guard token.utf8.count <= 16 * 1024 else { throw .unauthorized("access token is too long") }
        if !allowingRevoked, settings.isRevoked(digest: AccessTokenStamp.digest(of: token)) { throw .unauthorized("access token has been revoked") }
        let keys = try await keys(for: settings)
        let claims: AccessTokenClaims
        do {
            claims = try await keys.verify(token, as: AccessTokenClaims.self, iteratingKeys: true)
        } catch {
            throw .unauthorized("access token is invalid: signature or format rejected")
        }
        let now = Date(timeIntervalSince1970: Double(clock.now()) / 1000)
        guard let exp = claims.exp else { throw .unauthorized("access token has no expiry (exp)") }
        guard exp.value > now else { throw .unauthorized("access token has expired") }
        if let nbf = claims.nbf {
            // "Not before" on the server's clock (virtual in tests), like the expiry.
            guard nbf.value <= now else { throw .unauthorized("access token is not valid yet (nbf)") }
        }
        if let expected = settings.issuer {
            guard claims.iss?.value == expected else { throw .unauthorized("access token has the wrong issuer") }
        }
        if let audience = settings.audience {
            guard claims.aud?.value.contains(audience) == true else { throw .unauthorized("access token has the wrong audience") }
        }
        let subject = claims.sub?.value ?? claims.email ?? claims.preferred_username ?? claims.username
        guard let subject, !subject.isEmpty else { throw .unauthorized("access token names nobody (no sub or email)") }
        return Identity(
            subject: subject, email: claims.email, firstName: claims.given_name ?? claims.firstName,
            lastName: claims.family_name ?? claims.lastName, displayName: claims.name,
            username: claims.preferred_username ?? claims.username, expiresAt: Timestamp(saturating: exp.value.timeIntervalSince1970 * 1000)
        )
    }

    /// Issues a test token for `subject`, signed with the account's test secret.
    func issueTestToken(
        subject: String, settings: JWTValidationSettings, lifetime: Int64, email: String?, firstName: String?, lastName: String?
    ) async throws(CollabError) -> (token: String, expiresAt: Timestamp) {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: settings.testTokenSecret), digestAlgorithm: .sha256, kid: JWKIdentifier(string: Self.testKeyID))
        // JWT times are whole seconds (NumericDate): iat rounds down, exp down too, so a token never
        // outlives the lifetime asked for.
        let now = clock.now()
        let issuedAt = now / 1000
        let expiresAt = (now + lifetime) / 1000 * 1000
        let claims = AccessTokenClaims(
            sub: SubjectClaim(value: subject), exp: ExpirationClaim(value: Date(timeIntervalSince1970: Double(expiresAt / 1000))),
            iat: IssuedAtClaim(value: Date(timeIntervalSince1970: Double(issuedAt))),
            iss: IssuerClaim(value: settings.issuer ?? JWTValidationSettings.defaultTestIssuer),
            aud: settings.audience.map { AudienceClaim(value: [$0]) }, email: email, given_name: firstName, family_name: lastName
        )
        do {
            return (try await keys.sign(claims, kid: JWKIdentifier(string: Self.testKeyID)), expiresAt)
        } catch {
            throw CollabError(.internalError, "could not sign the test token")
        }
    }
}
