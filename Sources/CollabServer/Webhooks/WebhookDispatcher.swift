import AsyncHTTPClient
import CollabCore
import CollabPush
import CollabWire
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// Delivers events to webhook endpoints, signed, with retries, without ever blocking the request that
/// caused them.
///
/// The event hub hands every event to ``enqueue(_:)``, which only appends to a bounded queue (when the
/// queue is full the event is dropped and counted). The dispatcher runs as a service, delivers up to
/// `maxConcurrentDeliveries` at once, and retries 5xx, 408, 429 and network failures with exponential
/// backoff; other 4xx answers are final. There is no ordering guarantee between deliveries.
final class WebhookDispatcher: Service {
    struct Job: Sendable {
        var registration: WebhookRegistration
        var eventType: String
        var body: Data
        var createdAt: Timestamp
    }

    /// Tuning, with defaults a real endpoint expects and tests shorten.
    struct Settings: Sendable {
        var maxAttempts = 5
        var initialBackoff: Duration = .seconds(1)
        var requestTimeout: TimeAmount = .seconds(10)
        var queueCapacity = 10_000
        var maxConcurrentDeliveries = 32
        /// Hosts deliveries may go to; `nil` allows any.
        var allowedHosts: Set<String>?
    }

    let log = WebhookDeliveryLog()
    let settings: Settings
    private let stream: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation
    private let dropped = Mutex(0)
    private let environment: CollabEnvironment
    private let logger: Logger

    init(environment: CollabEnvironment, settings: Settings, logger: Logger) {
        self.environment = environment
        self.settings = settings
        self.logger = logger
        (stream, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .bufferingOldest(settings.queueCapacity))
    }

    /// The HTTP client's settings: redirects are never followed, since the allowlist is checked for
    /// the registered endpoint only and a redirect could lead anywhere (a 3xx answer fails the delivery).
    static var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return configuration
    }

    /// Events dropped because the queue was full.
    var droppedCount: Int { dropped.withLock { $0 } }

    /// Queues deliveries of a published event, under the vendor's names for it (see ``VendorEventMapping``),
    /// to every registration that wants them. Never blocks.
    func enqueue(_ published: PublishedEvent) {
        let event = published.event
        let names = VendorEventMapping.names(for: event)
        guard !names.isEmpty else { return }
        guard let jobs = try? environment.read(account: event.accountId, { state -> [Job] in
            var wanting: [String: [WebhookRegistration]] = [:]
            for name in Set(names) {
                let registrations = state.webhooks(accountId: event.accountId, wanting: name)
                if !registrations.isEmpty { wanting[name] = registrations }
            }
            guard !wanting.isEmpty else { return [] }
            return VendorEventMapping.bodies(for: event, wanted: Set(wanting.keys), state: state).flatMap { name, body in
                (wanting[name] ?? []).map { Job(registration: $0, eventType: name, body: body, createdAt: event.timestamp) }
            }
        }) else { return }
        for job in jobs { submit(job) }
    }

    /// Queues the vendor's `push_notification.*` event for a composed push, for registrations that want it.
    func enqueuePush(_ entry: OutboxEntry) {
        // A suppressed push (paused notifications) is not sent anywhere, webhooks included.
        guard entry.state != .suppressed else { return }
        let name = entry.kind.webhookEvent
        guard let (registrations, recipient) = try? environment.read(account: entry.accountId, { state -> ([WebhookRegistration], WebPerson?)? in
            let registrations = state.webhooks(accountId: entry.accountId, wanting: name)
            guard !registrations.isEmpty else { return nil }
            return (registrations, state.persons[entry.personId].map { WebPerson($0, expand: Expansion()) })
        }) else { return }
        let body = PushNotificationWebhookBody(entry: entry, recipient: recipient)
        guard let data = try? JSONBody.encoder.encode(body) else { return }
        for registration in registrations {
            submit(Job(registration: registration, eventType: name, body: data, createdAt: entry.createdAt))
        }
    }

    /// Queues the vendor's `ping` (`WebhookPingEvent`) to one registration, whatever events it wants.
    func ping(_ registration: WebhookRegistration) {
        var body = WebhookEventBody(type: WebhookPayloads.typeName(for: "ping"), timestamp: environment.clock.now(), eventType: "ping", accountId: registration.accountId)
        var configuration = WebWebhookRegistration(registration)
        configuration.secret = nil
        body.webhookConfiguration = configuration
        guard let data = try? JSONBody.encoder.encode(body) else { return }
        submit(Job(registration: registration, eventType: "ping", body: data, createdAt: environment.clock.now()))
    }

    func submit(_ job: Job) {
        if case .dropped = continuation.yield(job) {
            dropped.withLock { $0 += 1 }
            logger.warning("webhook queue full; delivery dropped", metadata: ["event": "\(job.eventType)", "registration": "\(job.registration.id)"])
        }
    }

    func run() async throws {
        // Created here, so a dispatcher that never runs owns nothing to shut down.
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.clientConfiguration)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await job in stream {
                    if running >= settings.maxConcurrentDeliveries {
                        await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask { await self.deliver(job, client: client) }
                }
            }
        } onGracefulShutdown: {
            self.continuation.finish()
        }
        try? await client.shutdown()
    }

    /// The signature header value: lower-case hex HMAC-SHA256 of the body.
    static func signature(of body: Data, secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    private func deliver(_ job: Job, client: HTTPClient) async {
        let deliveryId = UUID().uuidString.lowercased()
        var delivery = WebhookDelivery(
            deliveryId: deliveryId, registrationId: job.registration.id, accountId: job.registration.accountId, eventType: job.eventType,
            endpoint: job.registration.endpoint, state: "PENDING", attempts: [], createdAt: job.createdAt, bodyBytes: job.body.count
        )
        log.record(delivery)
        if let allowed = settings.allowedHosts {
            let host = URL(string: job.registration.endpoint)?.host?.lowercased() ?? ""
            guard allowed.contains(host) else {
                delivery.state = "FAILED"
                delivery.attempts.append(.init(timestamp: environment.clock.now(), status: nil, error: "host '\(host)' is not in the allowed webhook hosts", durationMillis: 0))
                log.record(delivery)
                return
            }
        }
        let signature = Self.signature(of: job.body, secret: job.registration.secret)
        var backoff = settings.initialBackoff
        for attempt in 1...settings.maxAttempts {
            var request = HTTPClientRequest(url: job.registration.endpoint)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "User-Agent", value: "mock-collab-webhooks")
            request.headers.add(name: WebhookHeaders.event, value: job.eventType)
            request.headers.add(name: WebhookHeaders.signature, value: signature)
            request.headers.add(name: WebhookHeaders.delivery, value: deliveryId)
            request.headers.add(name: WebhookHeaders.attempt, value: String(attempt))
            request.body = .bytes(ByteBuffer(bytes: job.body))
            let started = ContinuousClock.now
            var retry = true
            var record = WebhookDelivery.Attempt(timestamp: environment.clock.now(), status: nil, error: nil, durationMillis: 0)
            do {
                let status: Int
                var location: String?
                if let fault = environment.injectedWebhookFailure(for: job, deliveryId: deliveryId, attempt: attempt) {
                    // A WEBHOOK_FAILURE rule answers in the endpoint's place; the retries below apply as to a real answer.
                    record.faultRuleId = fault.ruleId
                    status = try await fault.answer(requestTimeout: settings.requestTimeout)
                    record.error = "answered by fault rule \(fault.ruleId)"
                } else {
                    let response = try await client.execute(request, timeout: settings.requestTimeout)
                    _ = try? await response.body.collect(upTo: 64 * 1024)
                    status = Int(response.status.code)
                    location = response.headers.first(name: "location")
                }
                record.status = status
                if (200..<300).contains(status) {
                    retry = false
                    delivery.state = "DELIVERED"
                } else if (300..<400).contains(status) {
                    // Not followed (see `clientConfiguration`), and a retry would be redirected again.
                    retry = false
                    delivery.state = "FAILED"
                    let target = location.map { " to \(RedactedURL.string($0))" } ?? ""
                    record.error = "redirect\(target) not followed: webhook deliveries go to the registered endpoint only"
                } else if (400..<500).contains(status), status != 408, status != 429 {
                    retry = false
                    delivery.state = "FAILED"
                }
            } catch {
                record.error = "\(error)"
            }
            record.durationMillis = Int64((ContinuousClock.now - started).components.seconds * 1000 + (ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000_000)
            delivery.attempts.append(record)
            if !retry || attempt == settings.maxAttempts {
                if delivery.state == "PENDING" { delivery.state = "FAILED" }
                if delivery.state == "FAILED" {
                    logger.notice("webhook delivery failed", metadata: ["event": "\(job.eventType)", "endpoint": "\(RedactedURL.string(job.registration.endpoint))", "attempts": "\(attempt)"])
                }
                log.record(delivery)
                return
            }
            log.record(delivery)
            try? await Task.sleep(for: backoff)
            backoff = backoff * 2
        }
    }
}

/// The vendor's `*PushNotificationEvent` bodies (`NewMessagePushNotificationEvent`,
/// `IncomingCallPushNotificationEvent`, `MissedCallPushNotificationEvent`, `RevokeCallPushNotificationEvent`).
struct PushNotificationWebhookBody: Encodable {
    var type: String
    var timestamp: Int64
    var eventType: String
    var accountId: String
    var recipient: WebPerson?
    var conversationId: String
    var deviceTokens: [String]
    var messageId: String?
    var messageText: String?
    var messageServerTimestamp: Int64?
    var senderName: String?
    var senderPersonId: String?
    var notificationCount: Int?
    var callState: String?
    var callType: String?
    var callStartTimestamp: Int64?
    var callerName: String?
    var callerPersonId: String?
    var callEndReason: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", timestamp, eventType, accountId, recipient, conversationId, deviceTokens, messageId, messageText, messageServerTimestamp
        case senderName, senderPersonId, notificationCount, callState, callType, callStartTimestamp, callerName, callerPersonId, callEndReason
    }

    init(entry: OutboxEntry, recipient: WebPerson?) {
        let content = entry.content
        self.type = switch entry.kind {
        case .newMessage: "NewMessagePushNotificationEvent"
        case .incomingCall: "IncomingCallPushNotificationEvent"
        case .missedCall: "MissedCallPushNotificationEvent"
        case .revokeCall: "RevokeCallPushNotificationEvent"
        }
        self.timestamp = entry.createdAt
        self.eventType = entry.kind.webhookEvent
        self.accountId = entry.accountId
        self.recipient = recipient
        self.conversationId = content.conversationId
        self.deviceTokens = [entry.token]
        if entry.kind == .newMessage {
            messageId = content.messageId
            messageText = content.text
            messageServerTimestamp = content.timestamp
            senderName = content.senderName
            senderPersonId = content.senderPersonId
            notificationCount = content.notificationCount
        } else {
            callState = content.callState
            if entry.kind != .revokeCall {
                callType = content.callType
                callStartTimestamp = content.timestamp
                callerName = content.callerName
                callerPersonId = content.callerPersonId
                callEndReason = content.callEndReason
            }
        }
    }
}
