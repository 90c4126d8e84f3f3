import CollabCore
import Synchronization

/// A value per account, each behind a lock of its own (``AccountShards``, as the repository's shards
/// are): the shared lock is held only to find or make an account's value, so work on one account's
/// value never waits on another account's.
final class PerAccount<Value: Sendable>: Sendable {
    private final class Slot: Sendable {
        let value: Mutex<Value>

        init(_ value: sending Value) {
            self.value = Mutex(value)
        }
    }

    private let slots: AccountShards<Slot>

    /// - Parameter make: An account's value before its first use.
    init(_ make: @escaping @Sendable () -> Value) {
        slots = AccountShards { Slot(make()) }
    }

    /// Runs `body` on the value of `accountId` under its lock, making the value on first use.
    func withLock<Result: Sendable>(_ accountId: String, _ body: (inout Value) -> Result) -> Result {
        slots.shard(accountId).value.withLock { body(&$0) }
    }

    /// Runs `body` on the value of `accountId` under its lock if the account has one.
    func withExisting<Result: Sendable>(_ accountId: String, _ body: (inout Value) -> Result) -> Result? {
        slots.existing(accountId)?.value.withLock { body(&$0) }
    }

    /// Whether `accountId` has a value.
    func holdsValue(of accountId: String) -> Bool {
        slots.existing(accountId) != nil
    }

    /// Drops the value of `accountId`: its next use starts from a new one.
    func remove(_ accountId: String) {
        slots.remove(accountId)
    }
}
