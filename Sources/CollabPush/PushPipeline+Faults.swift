import CollabCore
import CollabWire
import Synchronization

/// A delivery failure a fault rule puts in place of the push service's answer (`PUSH_FAILURE` rules
/// of `/_mock/v1/faults`): the outbox records it as an attempt of the sink `fault`, and the pipeline
/// acts on it as on a real answer — an unregistered token is removed.
public struct InjectedPushFailure: Sendable, Equatable {
    /// The rule that injected it.
    public var ruleId: String
    /// The HTTP status the push service would have answered.
    public var status: Int
    /// The APNs `reason` or FCM error status.
    public var reason: String
    /// Whether the answer means the token is gone (APNs `Unregistered`/`BadDeviceToken`, FCM `UNREGISTERED`).
    public var unregistersToken: Bool

    public init(ruleId: String, status: Int, reason: String, unregistersToken: Bool) {
        self.ruleId = ruleId
        self.status = status
        self.reason = reason
        self.unregistersToken = unregistersToken
    }
}

/// Where the pipeline asks for injected failures.
final class PushFaultHook: Sendable {
    /// The injector, held by a class: a function value kept in generic storage and read back on every
    /// push was re-thunked by the optimizer until the release build's stack overflowed.
    private final class Injector: Sendable {
        let failure: PushPipeline.FaultInjector
        init(_ failure: @escaping PushPipeline.FaultInjector) { self.failure = failure }
    }

    private let injector: Injector?

    init(_ injector: PushPipeline.FaultInjector?) {
        self.injector = injector.map(Injector.init)
    }

    func failure(for entry: OutboxEntry) -> InjectedPushFailure? {
        injector?.failure(entry)
    }
}

extension PushPipeline {
    /// Records an injected failure in place of the push service's answer, and acts on it (no delivery is
    /// attempted, no retry is made). Returns whether one was injected.
    func applyInjectedFailure(to entry: OutboxEntry) -> Bool {
        guard let failure = faults.failure(for: entry) else { return false }
        let attempt = OutboxEntry.Attempt(
            timestamp: entry.createdAt, sink: "fault", status: failure.status, reason: failure.reason,
            error: "injected by fault rule \(failure.ruleId)")
        outbox.update(id: entry.id, accountId: entry.accountId) { $0.attempts.append(attempt) }
        if failure.unregistersToken {
            reject(entry)
            outbox.settle(id: entry.id, accountId: entry.accountId, as: .unregistered)
        } else {
            outbox.settle(id: entry.id, accountId: entry.accountId, as: .failed)
        }
        return true
    }
}
