public import CollabCore

/// An event as committed: its live id (`0` for an event no live client receives) and the event.
public struct CommittedEvent: Sendable, Equatable {
    /// Increasing in commit order; the id clients resume from (`lastEventId`).
    public var id: Int64
    public var event: DomainEvent

    public init(id: Int64, event: DomainEvent) {
        self.id = id
        self.event = event
    }

    /// How many bits of a cluster's live event id number the events within one log entry.
    public static let clusterEventBits: Int64 = 16

    /// Gives the live events of `events` consecutive ids from `next` (and moves it past them); the
    /// others take `0`, so the ids of the replay window stay consecutive.
    static func numbering(_ events: [DomainEvent], from next: inout Int64) -> [CommittedEvent] {
        events.map { event in
            guard !event.isWebhookOnly else { return CommittedEvent(id: 0, event: event) }
            defer { next += 1 }
            return CommittedEvent(id: next, event: event)
        }
    }
}

/// What one commit made happen, as the repository hands it on: in commit order, once, whatever the
/// store — memory, SQLite, or a cluster's change log.
public struct CommittedBatch: Sendable {
    /// Increasing in commit order: the change log's sequence on a cluster replica, this process's count of
    /// commits otherwise.
    public var sequence: Int64
    /// The accounts the batch changed (all of them for a reset, none for the GLOBAL configuration alone).
    public var accountIds: [String]
    /// The events, in the order the operations emitted them, with their live ids.
    public var events: [CommittedEvent]
    /// The pushes, webhook deliveries and bot offers resolved at commit. Empty for a commit another replica
    /// made and this one applied: effects run once per cluster, on the replica that committed.
    public var effects: ResolvedEffects
    /// Whether this process committed the batch (`false`: another replica did).
    public var isLocal: Bool
    /// Sessions, users and accounts the commit ended: their live connections close. A local commit names
    /// the login sessions and started clients it removed; a commit another replica made and this one
    /// applied also names users and accounts.
    public var endedConnections = ReplicatedEffects()
    /// The virtual clock, when another replica set it.
    public var clock: ClockSetting?
}

/// Where the committed stream starts.
public struct CommitPosition: Sendable, Equatable {
    /// The sequence of the last commit loaded (the next batch's is higher).
    public var sequence: Int64
    /// The first live event id the repository will give out.
    public var nextEventId: Int64
}

/// Receives the repository's committed stream.
///
/// ``committed(_:)`` is called once per batch, in commit order, from the commit path and before any write
/// in the batch is answered — so it must not block: queue what takes time.
public protocol CommitSink: Sendable {
    /// Called once, when the repository has loaded: where the stream starts.
    func opened(at position: CommitPosition)
    /// A committed batch.
    func committed(_ batch: CommittedBatch)
}

/// A sink that keeps nothing (a repository without consumers: tools and store tests).
public struct DiscardingCommitSink: CommitSink {
    public init() {}
    public func opened(at position: CommitPosition) {}
    public func committed(_ batch: CommittedBatch) {}
}
