package import CollabClient
package import CollabWire
import Foundation
import Synchronization

/// Collects a live stream's events in the background so tests can wait for the ones they expect.
package final class EventCollector: Sendable {
    private let received = SharedEvents()
    private let task: Task<Void, Never>

    package init(_ events: AsyncStream<LiveEvent>) {
        let box = received
        self.task = Task {
            for await event in events {
                box.append(event)
            }
        }
    }

    deinit { task.cancel() }

    /// Everything received so far, without the answers to ``sync(_:)``.
    package var events: [LiveEvent] { received.all.filter { $0.type != LiveEvent.sync } }

    /// Waits until every event the server published before this call has been collected: asks the
    /// server for a `sync` event, which it queues behind them, and waits for it. The barrier for
    /// "this connection received nothing": no sleeping.
    package func sync(_ stream: LiveEventStream?, timeout: Duration = .seconds(30)) async throws {
        guard let stream else { throw CollectorTimeout(description: "a sync on a live stream that is not open", seen: []) }
        let id = try stream.requestSync()
        try await wait(for: "sync \(id)", timeout: timeout) { $0.type == LiveEvent.sync && $0.detail?["id"] == id }
    }

    /// Waits until an event matching `predicate` arrived (or fails after `timeout`).
    @discardableResult
    package func wait(
        for description: String, timeout: Duration = .seconds(30), _ predicate: @Sendable (LiveEvent) -> Bool
    ) async throws -> LiveEvent {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = received.all.first(where: predicate) { return match }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CollectorTimeout(description: description, seen: events.map(\.type))
    }

    /// Waits until `count` events match.
    package func wait(count: Int, timeout: Duration = .seconds(30), _ predicate: @Sendable (LiveEvent) -> Bool) async throws -> [LiveEvent] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let matches = received.all.filter(predicate)
            if matches.count >= count { return matches }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CollectorTimeout(description: "\(count) events", seen: events.map(\.type))
    }
}

package struct CollectorTimeout: Error, CustomStringConvertible {
    package var description: String
    package var seen: [String]

    package init(description: String, seen: [String]) {
        self.description = description
        self.seen = seen
    }
}

/// Events shared between the collecting task and the test.
package final class SharedEvents: Sendable {
    private let events = Mutex<[LiveEvent]>([])
    package func append(_ event: LiveEvent) { events.withLock { $0.append(event) } }
    package var all: [LiveEvent] { events.withLock { $0 } }
}
