import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// The webhook endpoints of `bench noisy-neighbour`, on a port of their own: `POST /hooks/quiet` counts
/// what arrives and wakes whoever waits for it; `POST /hooks/hang` does not answer until the endpoints
/// stop (the dispatcher's request timeout ends each attempt first).
final class BenchWebhookEndpoints: Sendable {
    private struct Arrivals {
        var count = 0
        var waiters: [(target: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    }

    private let arrivals = Mutex(Arrivals())
    /// Requests to the hanging endpoint, held until the endpoints stop (`nil` then).
    private let held = Mutex<[CheckedContinuation<Void, Never>]?>([])
    private let port = Mutex(0)

    var quietURL: String { "http://127.0.0.1:\(port.withLock { $0 })/hooks/quiet" }
    var hangURL: String { "http://127.0.0.1:\(port.withLock { $0 })/hooks/hang" }

    /// Deliveries that arrived at the quiet endpoint so far.
    var arrived: Int { arrivals.withLock { $0.count } }

    /// Serves the endpoints while `body` runs.
    static func serving<T: Sendable>(_ body: @Sendable (BenchWebhookEndpoints) async throws -> T) async throws -> T {
        let endpoints = BenchWebhookEndpoints()
        let router = Router()
        router.post("hooks/quiet") { request, _ -> HTTPResponse.Status in
            _ = try await request.body.collect(upTo: 1 << 20)
            endpoints.arrive()
            return .noContent
        }
        router.post("hooks/hang") { _, _ -> HTTPResponse.Status in
            await endpoints.hang()
            return .noContent
        }
        var logger = Logger(label: "bench-webhooks")
        logger.logLevel = .error
        let (ports, portInput) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portInput.yield(channel.localAddress?.port ?? 0) }, logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for await port in ports {
                endpoints.port.withLock { $0 = port }
                break
            }
            // Stopping waits for requests in progress: the held ones are let go first.
            do {
                let result = try await body(endpoints)
                endpoints.releaseHeld()
                await group.triggerGracefulShutdown()
                return result
            } catch {
                endpoints.releaseHeld()
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }

    /// Waits until `target` deliveries arrived in all, at most `timeout`: whether they did.
    func wait(untilArrived target: Int, timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let done = self.arrivals.withLock { state in
                        guard state.count < target else { return true }
                        state.waiters.append((target, continuation))
                        return false
                    }
                    if done { continuation.resume(returning: true) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            // A waiter the timeout beat is resumed (false) so the group can end.
            let late = arrivals.withLock { state in
                defer { state.waiters.removeAll { $0.target == target } }
                return state.waiters.filter { $0.target == target }.map(\.continuation)
            }
            for continuation in late { continuation.resume(returning: false) }
            group.cancelAll()
            return first
        }
    }

    private func hang() async {
        await withCheckedContinuation { continuation in
            let stopped = held.withLock { held in
                guard held != nil else { return true }
                held?.append(continuation)
                return false
            }
            if stopped { continuation.resume() }
        }
    }

    private func releaseHeld() {
        let waiting = held.withLock { held in
            defer { held = nil }
            return held ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    private func arrive() {
        let ready = arrivals.withLock { state in
            state.count += 1
            let count = state.count
            defer { state.waiters.removeAll { $0.target <= count } }
            return state.waiters.filter { $0.target <= count }.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }
}
