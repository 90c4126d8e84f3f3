import CollabClient
import Foundation
import Synchronization

/// Collects a visitor client's typed events (``VisitorClient/clientEvents``) in the background, so a
/// test can wait for one.
final class ClientEventCollector: Sendable {
    private final class Received: Sendable {
        let events = Mutex<[ClientEvent]>([])
    }

    private let received = Received()
    private let task: Task<Void, Never>

    init(_ events: AsyncStream<ClientEvent>) {
        let box = received
        self.task = Task {
            for await event in events { box.events.withLock { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    var events: [ClientEvent] { received.events.withLock { $0 } }

    /// Waits until an event matching `predicate` arrived (or fails after `timeout`).
    @discardableResult
    func wait(for description: String, timeout: Duration = .seconds(10), _ predicate: @Sendable (ClientEvent) -> Bool) async throws -> ClientEvent {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = events.first(where: predicate) { return match }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ClientEventTimeout(description: description, seen: events.map { "\($0)" })
    }
}

struct ClientEventTimeout: Error, CustomStringConvertible {
    var description: String
    var seen: [String]
}

/// A push's payload as the `userInfo` an app receives.
func userInfo(_ push: PushView) throws -> [AnyHashable: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(push.payload.utf8)) as? [String: Any] else { throw ClientEventTimeout(description: "payload is not an object", seen: []) }
    return object
}
