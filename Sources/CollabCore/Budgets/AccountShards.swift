import Synchronization

/// A shared structure split by account: each account's part (its ring, its sessions) is an object
/// with its own lock, made on first use. The map here is held only to find or add a part, so one
/// account's work never waits on another account's lock, and an account's reset or read touches
/// its own part alone.
public final class AccountShards<Shard: AnyObject & Sendable>: Sendable {
    private let shards = Mutex<[String: Shard]>([:])
    private let make: @Sendable (String) -> Shard

    /// - Parameter make: Makes an account's part the first time the account needs one.
    public init(_ make: @escaping @Sendable () -> Shard) {
        self.make = { _ in make() }
    }

    /// - Parameter make: Makes an account's part, given the account's id, the first time the account needs one.
    public init(keyed make: @escaping @Sendable (String) -> Shard) {
        self.make = make
    }

    /// The account's part, made on first use.
    public func shard(_ accountId: String) -> Shard {
        shards.withLock { shards in
            if let shard = shards[accountId] { return shard }
            let shard = make(accountId)
            shards[accountId] = shard
            return shard
        }
    }

    /// The account's part, if it has one.
    public func existing(_ accountId: String) -> Shard? {
        shards.withLock { $0[accountId] }
    }

    /// The parts a read for `accountId` looks at: that account's (none when it has none), or with `nil`
    /// every account's.
    public func shards(for accountId: String?) -> [Shard] {
        shards.withLock { shards in
            guard let accountId else { return Array(shards.values) }
            return shards[accountId].map { [$0] } ?? []
        }
    }

    /// Takes the account's part out (an account reset): the next use makes a new one.
    @discardableResult
    public func remove(_ accountId: String) -> Shard? {
        shards.withLock { $0.removeValue(forKey: accountId) }
    }

    /// Takes every part out (a full reset).
    @discardableResult
    public func removeAll() -> [Shard] {
        shards.withLock { shards in
            defer { shards = [:] }
            return Array(shards.values)
        }
    }
}
