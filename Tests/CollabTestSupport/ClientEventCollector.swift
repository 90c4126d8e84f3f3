package import CollabClient
import Foundation
import Synchronization

/// Collects a visitor client's typed events (``VisitorClient/clientEvents``) in the background, so a
/// test can wait for one.
package final class ClientEventCollector: Sendable {
    private final class Received: Sendable {
        package let events = Mutex<[ClientEvent]>([])
    }

    private let received = Received()
    private let task: Task<Void, Never>

    package init(_ events: AsyncStream<ClientEvent>) {
        let box = received
        self.task = Task {
            for await event in events { box.events.withLock { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    package var events: [ClientEvent] { received.events.withLock { $0 } }

    /// Waits until an event matching `predicate` arrived (or fails after `timeout`).
    @discardableResult
    package func wait(
        for description: String, timeout: Duration = .seconds(30), _ predicate: @Sendable (ClientEvent) -> Bool
    ) async throws -> ClientEvent {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = events.first(where: predicate) { return match }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ClientEventTimeout(description: description, seen: events.map { "\($0)" })
    }
}

package struct ClientEventTimeout: Error, CustomStringConvertible {
    package var description: String
    package var seen: [String]

    package init(description: String, seen: [String]) {
        self.description = description
        self.seen = seen
    }
}

/// A push's payload as the `userInfo` an app receives.
package func userInfo(_ push: PushView) throws -> [AnyHashable: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(push.payload.utf8)) as? [String: Any] else {
        throw ClientEventTimeout(description: "payload is not an object", seen: [])
    }
    return object
}
