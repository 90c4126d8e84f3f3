import AsyncHTTPClient
import CollabCore
import CollabWire
import Foundation
import JWTKit
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// Delivers pushes as FCM HTTP v1 data messages (`POST /v1/projects/<project>/messages:send`),
/// authorized by an OAuth access token obtained with the service account's signed JWT assertion
/// (RS256, `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`). Tokens are cached until shortly
/// before they expire and refreshed after a 401.
///
/// 200 is delivered; UNREGISTERED (404 or an `errorCode` of UNREGISTERED / INVALID_ARGUMENT for the
/// token) removes the token; 429 and 5xx retry with backoff.
final class FCMSink: Sendable {
    private struct CachedToken {
        var token: String
        var expiresAt: Timestamp
    }

    private let client: SharedHTTPClient
    private let clock: any CollabClock
    /// Real time, for the OAuth assertion Google checks against its own clock (see ``APNsSink``).
    private let wallClock: any CollabClock
    private let cache = Mutex<[String: CachedToken]>([:])

    init(clock: any CollabClock, wallClock: any CollabClock) {
        self.clock = clock
        self.wallClock = wallClock
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(10))
        // FCM never redirects; following one would send the OAuth assertion and pushes elsewhere.
        configuration.redirectConfiguration = .disallow
        self.client = SharedHTTPClient(configuration: configuration)
    }

    func shutdown() async {
        await client.shutdown()
    }

    struct Assertion: JWTPayload {
        var iss: IssuerClaim
        var scope: String
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private func accessToken(_ settings: PushSettings.FCM, renew: Bool) async throws -> String {
        let key = "\(settings.clientEmail)@\(settings.effectiveTokenURL)"
        let now = wallClock.now()
        if !renew, let cached = cache.withLock({ $0[key] }), cached.expiresAt - 60_000 > now { return cached.token }
        let signer = JWTKeyCollection()
        await signer.add(rsa: try Insecure.RSA.PrivateKey(pem: settings.privateKeyPEM), digestAlgorithm: .sha256)
        // Whole seconds, as Google's and every client library's assertions are.
        let issued = Date(timeIntervalSince1970: Double(now / 1000))
        let assertion = try await signer.sign(
            Assertion(
                iss: IssuerClaim(value: settings.clientEmail), scope: "https://www.googleapis.com/auth/firebase.messaging",
                aud: AudienceClaim(value: [settings.effectiveTokenURL]), iat: IssuedAtClaim(value: issued),
                exp: ExpirationClaim(value: issued.addingTimeInterval(3600))
            )
        )
        var request = HTTPClientRequest(url: settings.effectiveTokenURL)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 64 * 1024)
        struct TokenResponse: Decodable {
            var access_token: String
            var expires_in: Int64?
        }
        guard response.status == .ok, let token = try? JSONDecoder().decode(TokenResponse.self, from: Data(buffer: body)) else {
            throw CollabError(.unavailable, "the OAuth token endpoint answered \(response.status.code)")
        }
        // At most a day, whatever the endpoint says (a huge `expires_in` must not overflow).
        let lifetime = min(max(token.expires_in ?? 3600, 0), 86_400) * 1000
        cache.withLock { $0[key] = CachedToken(token: token.access_token, expiresAt: now + lifetime) }
        return token.access_token
    }

    func send(_ entry: OutboxEntry, settings: PushSettings.FCM, renewToken: Bool = false) async -> SinkResult {
        var attempt = OutboxEntry.Attempt(timestamp: clock.now(), sink: "fcm")
        do {
            let token = try await accessToken(settings, renew: renewToken)
            guard let data = try JSONSerialization.jsonObject(with: Data(entry.payload.utf8)) as? [String: Any] else {
                throw CollabError(.internalError, "the FCM payload is not a JSON object")
            }
            let message: [String: Any] = [
                "message": [
                    "token": entry.token, "data": data,
                    "android": ["priority": entry.priority == 10 ? "HIGH" : "NORMAL", "collapse_key": entry.collapseId ?? entry.pushId],
                ] as [String: Any]
            ]
            var request = HTTPClientRequest(url: "\(settings.effectiveEndpoint)/v1/projects/\(settings.projectId)/messages:send")
            request.method = .POST
            request.headers.add(name: "authorization", value: "Bearer \(token)")
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: message)))
            let response = try await client.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            attempt.status = status
            let errorCode = Self.errorCode(in: Data(buffer: body))
            attempt.reason = errorCode
            switch status {
            case 200: return SinkResult(outcome: .delivered, attempt: attempt)
            case 404: return SinkResult(outcome: .unregistered, attempt: attempt)
            case 400 where errorCode == "UNREGISTERED" || errorCode == "INVALID_ARGUMENT": return SinkResult(outcome: .unregistered, attempt: attempt)
            case 401:
                return SinkResult(
                    outcome: .retry, attempt: .init(timestamp: attempt.timestamp, sink: "fcm", status: 401, reason: "ExpiredAccessToken"))
            case 429, 500...: return SinkResult(outcome: .retry, attempt: attempt)
            default: return SinkResult(outcome: .failed, attempt: attempt)
            }
        } catch {
            attempt.error = "\(error)"
            return SinkResult(outcome: .retry, attempt: attempt)
        }
    }

    /// FCM's error code: `error.details[].errorCode`, else `error.status`.
    static func errorCode(in body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let error = object["error"] as? [String: Any]
        else { return nil }
        if let details = error["details"] as? [[String: Any]], let code = details.compactMap({ $0["errorCode"] as? String }).first { return code }
        return error["status"] as? String
    }
}
