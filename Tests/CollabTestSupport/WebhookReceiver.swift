package import CollabClient
import CollabWire
package import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A real HTTP endpoint that records the webhook deliveries it receives, and can fail the first ones.
package final class WebhookReceiver: Sendable {
    package struct Received: Sendable {
        package var headers: [String: String]
        package var body: Data

        package init(headers: [String: String], body: Data) {
            self.headers = headers
            self.body = body
        }
    }

    private let server: LoopbackHTTPServer
    package var port: Int { server.port }

    package var url: String { "http://127.0.0.1:\(port)/hooks" }

    /// Starts a receiver that answers 500 to the first `failFirst` requests.
    package init(failFirst: Int = 0) async throws {
        let box = ReceivedBox()
        let failures = FailureCounter(failFirst)
        let router = Router()
        router.post("hooks") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            box.append(Received(headers: headers, body: Data(buffer.readableBytesView.map { $0 })))
            let fail = failures.takeOne()
            return Response(status: fail ? .internalServerError : .noContent)
        }
        server = await LoopbackHTTPServer(router, label: "webhook-receiver")
        self.box = box
    }

    private let box: ReceivedBox

    /// What arrived so far.
    package var all: [Received] { box.all }

    /// Waits until `count` deliveries matching `predicate` arrived.
    package func wait(
        count: Int, timeout: Duration = .seconds(30), _ predicate: @Sendable (Received) -> Bool = { _ in true }
    ) async throws -> [Received] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let matches = box.all.filter(predicate)
            if matches.count >= count { return matches }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CollectorTimeout(description: "\(count) webhook deliveries", seen: box.all.compactMap { $0.headers["x-unblu-event"] })
    }

    package func stop() async throws {
        try await server.stop()
    }
}

package final class ReceivedBox: Sendable {
    package init() {}
    private let items = Mutex<[WebhookReceiver.Received]>([])
    package func append(_ item: WebhookReceiver.Received) { items.withLock { $0.append(item) } }
    package var all: [WebhookReceiver.Received] { items.withLock { $0 } }
}

package final class PortBox: Sendable {
    package init() {}
    private let state = Mutex<(port: Int?, waiters: [CheckedContinuation<Int, Never>])>((nil, []))
    package func set(_ port: Int) {
        let waiters = state.withLock { state in
            state.port = port
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: port) }
    }
    package func wait() async -> Int {
        await withCheckedContinuation { continuation in
            let port = state.withLock { state -> Int? in
                if let port = state.port { return port }
                state.waiters.append(continuation)
                return nil
            }
            if let port { continuation.resume(returning: port) }
        }
    }
}

package final class FailureCounter: Sendable {
    private let left: Mutex<Int>
    package init(_ count: Int) { left = Mutex(count) }
    /// Whether this request should fail.
    package func takeOne() -> Bool {
        left.withLock { left in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
    }
}

extension WebhookReceiver {
    /// Registers this receiver for `events` with `admin`'s account (the Web API's `webhookregistrations/create`).
    package func register(as admin: HTTPTransport, name: String, events: [String]) async throws {
        let _: WebWebhookRegistration = try await admin.send(
            "POST", "/app/rest/v4/webhookregistrations/create", body: WebWebhookRegistration(name: name, endpoint: url, events: events)
        )
    }
}
