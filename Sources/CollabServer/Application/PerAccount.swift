import Synchronization

/// A value per account, each behind a lock of its own (as the repository's shards are): the shared
/// lock is held only to find or make an account's value, so work on one account's value never waits
/// on another account's.
final class PerAccount<Value: Sendable>: Sendable {
    private final class Slot: Sendable {
        let value: Mutex<Value>

        init(_ value: sending Value) {
            self.value = Mutex(value)
        }
    }

    private let slots = Mutex<[String: Slot]>([:])
    private let make: @Sendable () -> Value

    /// - Parameter make: An account's value before its first use.
    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    /// Runs `body` on the value of `accountId` under its lock, making the value on first use.
    func withLock<Result: Sendable>(_ accountId: String, _ body: (inout Value) -> Result) -> Result {
        slot(accountId, making: true)!.value.withLock { body(&$0) }
    }

    /// Runs `body` on the value of `accountId` under its lock if the account has one.
    func withExisting<Result: Sendable>(_ accountId: String, _ body: (inout Value) -> Result) -> Result? {
        slot(accountId, making: false)?.value.withLock { body(&$0) }
    }

    private func slot(_ accountId: String, making: Bool) -> Slot? {
        slots.withLock { slots in
            if let slot = slots[accountId] { return slot }
            guard making else { return nil }
            let slot = Slot(make())
            slots[accountId] = slot
            return slot
        }
    }
}
