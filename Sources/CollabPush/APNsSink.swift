import AsyncHTTPClient
import CollabCore
import CollabWire
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL

/// What a sink made of one delivery attempt.
struct SinkResult: Sendable {
    enum Outcome: Sendable { case delivered, unregistered, retry, failed }
    var outcome: Outcome
    var attempt: OutboxEntry.Attempt
    /// A server's `Retry-After`, if any.
    var retryAfter: Duration?
}

/// Delivers pushes over the APNs provider API (HTTP/2): `POST /3/device/<token>` with
/// `authorization: bearer <ES256 provider token>` — or, with certificate-based authentication, over a
/// connection that presents the account's certificate and without the header — and `apns-push-type`,
/// `apns-topic` (`.voip` for VoIP), `apns-priority`, `apns-expiration`, `apns-collapse-id` and `apns-id`.
///
/// 200 is delivered; 410 Unregistered and 400 BadDeviceToken remove the token; 403
/// ExpiredProviderToken renews the provider token and retries; 429 and 5xx retry with backoff.
final class APNsSink: Sendable {
    private let secureClient: SharedHTTPClient
    private let insecureClient: SharedHTTPClient
    private let certificateClients: APNsCertificateClients
    private let tokens: APNsProviderTokens
    private let clock: any CollabClock
    private let wallClock: any CollabClock

    /// - Parameters:
    ///   - clock: The server's clock (virtual time), for the attempts the outbox records.
    ///   - wallClock: Real time, for what Apple checks against its own clock: the provider token's
    ///     `iat` and `apns-expiration`. A test that moves the server's clock must not make them lie.
    init(clock: any CollabClock, wallClock: any CollabClock) {
        self.clock = clock
        self.wallClock = wallClock
        self.tokens = APNsProviderTokens(clock: wallClock)
        var secure = HTTPClient.Configuration()
        secure.httpVersion = .automatic
        secure.timeout = .init(connect: .seconds(5), read: .seconds(10))
        // APNs never redirects; following one would send the provider token elsewhere.
        secure.redirectConfiguration = .disallow
        self.secureClient = SharedHTTPClient(configuration: secure)
        self.certificateClients = APNsCertificateClients(base: secure)
        var insecure = secure
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        insecure.tlsConfiguration = tls
        self.insecureClient = SharedHTTPClient(configuration: insecure)
    }

    func shutdown() async {
        await secureClient.shutdown()
        await insecureClient.shutdown()
        await certificateClients.shutdown()
    }

    func send(_ entry: OutboxEntry, settings: PushSettings.APNs, renewToken: Bool = false) async -> SinkResult {
        let now = clock.now()
        var attempt = OutboxEntry.Attempt(timestamp: now, sink: "apns")
        do {
            let client: SharedHTTPClient
            var request = HTTPClientRequest(url: "\(settings.baseURL)/3/device/\(entry.token)")
            request.method = .POST
            if let certificate = settings.certificate, settings.usesCertificate(for: entry.transport) {
                client = try await certificateClients.client(
                    accountId: entry.accountId, certificate: certificate, insecureTLS: settings.insecureTLS == true)
            } else {
                client = settings.insecureTLS == true ? insecureClient : secureClient
                request.headers.add(name: "authorization", value: "bearer \(try await tokens.token(for: settings, renew: renewToken))")
            }
            request.headers.add(name: "apns-push-type", value: entry.pushType)
            request.headers.add(name: "apns-topic", value: entry.topic ?? "")
            request.headers.add(name: "apns-priority", value: String(entry.priority))
            request.headers.add(name: "apns-id", value: entry.pushId)
            // Incoming calls are only worth ringing now; messages may wait a day for an offline device.
            let expiration = entry.kind == .incomingCall || entry.kind == .revokeCall ? 0 : wallClock.now() / 1000 + 86_400
            request.headers.add(name: "apns-expiration", value: String(expiration))
            if let collapseId = entry.collapseId { request.headers.add(name: "apns-collapse-id", value: collapseId) }
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: entry.payload))
            let response = try await client.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 64 * 1024)
            let status = Int(response.status.code)
            attempt.status = status
            struct Reason: Decodable { var reason: String? }
            let reason = (try? JSONDecoder().decode(Reason.self, from: Data(buffer: body)))?.reason
            attempt.reason = reason
            let retryAfter = response.headers.first(name: "retry-after").flatMap { Int64($0) }.map { Duration.seconds($0) }
            switch status {
            case 200: return SinkResult(outcome: .delivered, attempt: attempt)
            case 410: return SinkResult(outcome: .unregistered, attempt: attempt)
            case 400 where reason == "BadDeviceToken": return SinkResult(outcome: .unregistered, attempt: attempt)
            case 403 where reason == "ExpiredProviderToken": return SinkResult(outcome: .retry, attempt: attempt)
            case 429, 500...: return SinkResult(outcome: .retry, attempt: attempt, retryAfter: retryAfter)
            default: return SinkResult(outcome: .failed, attempt: attempt)
            }
        } catch let error as CollabError {
            // The account's credentials are unusable: no retry helps.
            attempt.error = error.message
            return SinkResult(outcome: .failed, attempt: attempt)
        } catch {
            attempt.error = "\(error)"
            return SinkResult(outcome: .retry, attempt: attempt)
        }
    }
}
