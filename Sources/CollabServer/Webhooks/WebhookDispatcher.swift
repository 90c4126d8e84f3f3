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

/// Delivers events to webhook endpoints, signed, with retries, without ever blocking the write that
/// caused them.
///
/// Deliveries arrive resolved (endpoint, secret, body; see ``ResolvedWebhook``) and ``enqueue(_:)`` only
/// appends them to a queue per account and endpoint, bounded per account and for the server (a delivery
/// beyond either bound is dropped, counted, logged and shown `DROPPED` in the delivery log). The
/// dispatcher runs as a service and delivers up to `maxConcurrentDeliveries` at once, at most
/// `maxConcurrentPerAccount` of one account and `maxConcurrentPerEndpoint` to one endpoint, the
/// accounts taking turns (see ``FairQueue``): an endpoint that hangs delays only its own deliveries. It
/// retries 5xx, 408, 429 and network failures with exponential backoff; other 4xx answers are final.
/// There is no ordering guarantee between deliveries.
final class WebhookDispatcher: Service {
    /// Tuning, with defaults a real endpoint expects and tests shorten.
    struct Settings: Sendable {
        var maxAttempts = 5
        var initialBackoff: Duration = .seconds(1)
        var requestTimeout: TimeAmount = .seconds(10)
        var queueCapacity = 10_000
        /// Deliveries of one account waiting (`serve --webhook-queue-per-account`).
        var queueCapacityPerAccount = 2_500
        var maxConcurrentDeliveries = 32
        /// Deliveries of one account in flight at once (`serve --webhook-deliveries-per-account`).
        var maxConcurrentPerAccount = 8
        /// Deliveries to one endpoint in flight at once.
        var maxConcurrentPerEndpoint = 4
        /// Hosts deliveries may go to; `nil` allows any.
        var allowedHosts: Set<String>?
        /// The clock a retry's backoff waits on (``ServerConfiguration/deliveryClock``).
        var retryClock: any Clock<Duration> = ContinuousClock()
    }

    let log = WebhookDeliveryLog()
    let settings: Settings
    private let queue: FairQueue<ResolvedWebhook>
    private let dropped = Mutex(0)
    private let client: SharedHTTPClient
    /// Requests to dialog bots that wait for their answer.
    let botClient: SharedHTTPClient
    private let faults: FaultInjection
    private var clock: AdjustableClock { faults.clock }
    let logger: Logger

    init(settings: Settings, client: SharedHTTPClient, botClient: SharedHTTPClient, faults: FaultInjection, logger: Logger) {
        self.settings = settings
        self.client = client
        self.botClient = botClient
        self.faults = faults
        self.logger = logger
        queue = FairQueue(limits: Self.queueLimits(settings))
    }

    /// Deliveries dropped because a queue was full.
    var droppedCount: Int { dropped.withLock { $0 } }

    func countDropped() {
        dropped.withLock { $0 += 1 }
    }

    /// Deliveries of `accountId` waiting and in flight.
    func counts(accountId: String) -> (queued: Int, running: Int) {
        queue.counts(account: accountId)
    }

    /// Queues deliveries, each in its account's queue for its endpoint. Never blocks.
    func enqueue(_ deliveries: [ResolvedWebhook]) {
        for delivery in deliveries {
            do throws(FairQueue<ResolvedWebhook>.Overflow) {
                try queue.enqueue(delivery, account: delivery.accountId, lane: delivery.endpoint)
            } catch {
                dropped(delivery, error)
            }
        }
    }

    /// Queues the vendor's `ping` (`WebhookPingEvent`) to one registration, whatever events it wants.
    func ping(_ registration: WebhookRegistration) {
        let now = clock.now()
        var body = WebhookEventBody("ping", timestamp: now, accountId: registration.accountId, WebhookEventFields())
        body.webhookConfiguration = WebWebhookRegistration(withoutSecret: registration)
        guard let data = try? JSONBody.encoder.encode(body) else { return }
        enqueue([ResolvedWebhook(registration, eventType: "ping", body: data, createdAt: now)])
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await queue.run { await self.deliver($0) }
        } onGracefulShutdown: {
            self.queue.finish()
        }
    }

    /// The signature header value: lower-case hex HMAC-SHA256 of the body.
    static func signature(of body: Data, secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    private func deliver(_ job: ResolvedWebhook) async {
        let deliveryId = UUID().uuidString.lowercased()
        var delivery = WebhookDelivery(
            deliveryId: deliveryId, registrationId: job.registrationId, accountId: job.accountId, eventType: job.eventType,
            endpoint: job.endpoint, state: "PENDING", attempts: [], createdAt: job.createdAt, bodyBytes: job.body.count
        )
        // A reset of the account from here on stops the delivery: its records are refused, and it makes
        // no further attempt (see ``forget(accountId:)``).
        let epoch = log.epoch(of: job.accountId)
        guard log.record(delivery, epoch: epoch) else { return }
        if let host = SignedOutboundRequest.refusedHost(job.endpoint, allowedHosts: settings.allowedHosts) {
            delivery.state = "FAILED"
            let refusal = "host '\(host)' is not in the allowed webhook hosts"
            delivery.attempts.append(.init(timestamp: clock.now(), status: nil, error: refusal, durationMillis: 0))
            log.record(delivery, epoch: epoch)
            return
        }
        let signature = Self.signature(of: job.body, secret: job.secret)
        var backoff = settings.initialBackoff
        for attempt in 1...settings.maxAttempts {
            var request = SignedOutboundRequest.post(
                job.body, to: job.endpoint, event: job.eventType, signature: signature, deliveryId: deliveryId, userAgent: "mock-collab-webhooks"
            )
            request.headers.add(name: WebhookHeaders.attempt, value: String(attempt))
            let started = ContinuousClock.now
            var retry = true
            var record = WebhookDelivery.Attempt(timestamp: clock.now(), status: nil, error: nil, durationMillis: 0)
            do {
                let status: Int
                var location: String?
                if let fault = faults.webhookFailure(for: job, deliveryId: deliveryId, attempt: attempt) {
                    // A WEBHOOK_FAILURE rule answers in the endpoint's place; the retries below apply as to a real answer.
                    record.faultRuleId = fault.ruleId
                    let timeout = settings.requestTimeout
                    status = try await DeliveryShutdown.attempt { try await fault.answer(requestTimeout: timeout) }
                    record.error = "answered by fault rule \(fault.ruleId)"
                } else {
                    let (client, timeout) = (client, settings.requestTimeout)
                    let response = try await DeliveryShutdown.attempt { [request] in
                        let response = try await client.execute(request, timeout: timeout)
                        _ = try? await response.body.collect(upTo: 64 * 1024)
                        return response
                    }
                    status = Int(response.status.code)
                    location = response.headers.first(name: "location")
                }
                record.status = status
                if (200..<300).contains(status) {
                    retry = false
                    delivery.state = "DELIVERED"
                } else if (300..<400).contains(status) {
                    // Not followed (see ``SharedHTTPClient``), and a retry would be redirected again.
                    retry = false
                    delivery.state = "FAILED"
                    let target = location.map { " to \(RedactedURL.string($0))" } ?? ""
                    record.error = "redirect\(target) not followed: webhook deliveries go to the registered endpoint only"
                } else if (400..<500).contains(status), status != 408, status != 429 {
                    retry = false
                    delivery.state = "FAILED"
                }
            } catch let stopping as DeliveryShutdown.Stopping {
                retry = false
                record.error = "\(stopping)"
            } catch {
                record.error = "\(error)"
            }
            let took = (ContinuousClock.now - started).components
            record.durationMillis = Int64(took.seconds * 1000 + took.attoseconds / 1_000_000_000_000_000)
            delivery.attempts.append(record)
            if !retry || attempt == settings.maxAttempts {
                if delivery.state == "PENDING" { delivery.state = "FAILED" }
                if delivery.state == "FAILED" {
                    logger.notice(
                        "webhook delivery failed",
                        metadata: ["event": "\(job.eventType)", "endpoint": "\(RedactedURL.string(job.endpoint))", "attempts": "\(attempt)"]
                    )
                }
                log.record(delivery, epoch: epoch)
                return
            }
            guard log.record(delivery, epoch: epoch) else { return }
            guard await DeliveryShutdown.pauseBeforeRetry(backoff, on: settings.retryClock) else {
                delivery.state = "FAILED"
                delivery.attempts[delivery.attempts.count - 1].error = DeliveryShutdown.noting(record.error)
                log.record(delivery, epoch: epoch)
                logger.notice("webhook delivery stopped", metadata: ["event": "\(job.eventType)", "reason": "\(DeliveryShutdown.notRetried)"])
                return
            }
            guard log.epoch(of: job.accountId) == epoch else { return }
            backoff = backoff * 2
        }
    }

    /// Forgets the deliveries of an account, or of all (a reset): those waiting are dropped, those being
    /// retried stop before their next attempt, and the log forgets them, so nothing the previous test
    /// caused reaches an endpoint or the log afterwards.
    func forget(accountId: String?) {
        if let accountId { log.removeAll(accountId: accountId) } else { log.clear() }
        queue.removeWaiting(account: accountId)
    }
}
