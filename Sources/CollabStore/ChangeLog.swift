public import CollabCore
public import Foundation

/// One committed entry of a cluster's change log.
public struct LoggedEntry: Sendable {
    /// The entry's place in the log: increasing in commit order, cluster-wide.
    public var sequence: Int64
    /// The replica that committed it.
    public var origin: String
    /// The encoded ``ChangeLogEntry``.
    public var body: Data
}

/// What one write committed, as every replica applies it: the records it changed, the live events
/// it emitted and, for the control API's clock, the clock it set.
public struct ChangeLogEntry: Sendable, Codable {
    /// The accounts the entry changed (a delete applies to whichever of them holds the entity).
    public var accounts: [String]
    public var changes: [ReplicatedChange]
    /// Live events (webhook-only events stay with the replica that committed them).
    public var events: [DomainEvent]
    /// The virtual clock, when the write set it.
    public var clock: ClockSetting?
    /// The accounts the write deleted (``StagedCommit/deletedAccountIds``): every replica lets go of what
    /// it keeps for them. `nil` in entries of builds before the field, whose deletions are inferred.
    public var deletedAccounts: [String]?
}

/// Which locks a cluster write takes.
public enum ChangeLogScope: Sendable {
    /// Writes within these accounts: serialized per account across the cluster, concurrent otherwise.
    case accounts([String])
    /// Writes that span accounts or create and remove them (seeds, resets, the clock): one at a time
    /// across the cluster, excluding every other write.
    case everything
}

/// A write in progress on the cluster's database (inside its transaction, holding its locks).
public protocol ChangeLogTransaction {
    /// Entries committed after `sequence`, in order.
    func entries(after sequence: Int64) async throws -> [LoggedEntry]
    /// Every record an account owns (rebuilding a shard that went wrong).
    func records(account: String) async throws -> [StoredRecord]
    /// Writes `changes` to the tables and appends `entry` to the log, after taking the log's lock so
    /// entries become visible in sequence order.
    /// - Returns: The entry's sequence and the entries other replicas committed after `since()`
    ///   (read under the log's lock, so nothing between them and this entry is missing).
    func append(_ changes: [StoreChange], entry: Data, origin: String, since: @Sendable () -> Int64) async throws -> (
        sequence: Int64, missing: [LoggedEntry]
    )
}

/// The database side of a cluster: a store whose replicas follow one ordered change log.
public protocol ChangeLog: Store {
    /// Runs `body` in a transaction holding the locks of `scope`, committing when it returns.
    func write<Result: Sendable>(_ scope: ChangeLogScope, _ body: (any ChangeLogTransaction) async throws -> Result) async throws -> Result
    /// Entries committed after `sequence`, in order.
    func entries(after sequence: Int64) async throws -> [LoggedEntry]
    /// Every record and the log's last sequence, read in one snapshot (a replica's start).
    func loadAllWithSequence() async throws -> (records: [StoredRecord], sequence: Int64)
    /// Calls `wake` whenever another replica may have committed (LISTEN/NOTIFY), and once after each
    /// reconnection of the listener; runs until cancelled.
    func follow(_ wake: @escaping @Sendable () -> Void) async
    /// Whether this replica is the one that runs timed work now (it takes the role when free).
    func holdsLeadership() async -> Bool
    /// Removes entries older than `seconds` (every replica applied them long ago) and raises the floor;
    /// also forgets replicas not seen for an hour.
    /// - Returns: How many entries were removed.
    func prune(olderThanSeconds seconds: Int) async throws -> Int
    /// The newest entry pruned away: a replica that has not applied it cannot catch up.
    func floor() async throws -> Int64
    /// Announces this replica (its URL, for cluster-wide reads) and refreshes its `seen` time.
    func announce(origin: String, url: String) async throws
    /// Removes this replica from the announced ones (a graceful stop).
    func withdraw(origin: String) async throws
    /// The URLs of the replicas seen within `seconds`, this one included.
    func replicaURLs(seenWithinSeconds seconds: Int) async throws -> [(origin: String, url: String)]
}
