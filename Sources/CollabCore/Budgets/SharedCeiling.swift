import Synchronization

/// A ceiling over what all accounts hold together, where each account's share sits in a part behind its
/// own lock (a ring of pushes, of journal entries, of webhook deliveries): past the ceiling, the account
/// holding the most gives up its oldest. That account is found in a ``SizeRanking``, so trimming visits
/// one part a round however many accounts there are, and no account's part is visited for another's
/// sake unless it is the largest.
///
/// Lock order: an owner's part lock, then the ranking's. The ranking's lock is never held while a part's
/// is taken, and ``add(_:trimming:)`` is called outside every part's lock.
public final class SharedCeiling: Sendable {
    private let ranking: Mutex<SizeRanking>
    private let total = Atomic<Int>(0)
    private let visits = Atomic<Int>(0)
    /// The most all accounts hold together.
    public let limit: Int
    /// How many units of size one step of the ranking spans.
    public let granularity: Int

    /// - Parameters:
    ///   - limit: The most all accounts hold together (at least 1).
    ///   - granularity: How many units of size the ranking tells apart (1: exact counts); a coarser one
    ///     takes the ranking's lock only when an account's holding moves by that much.
    public init(limit: Int, granularity: Int = 1) {
        self.limit = max(1, limit)
        self.granularity = max(1, granularity)
        self.ranking = Mutex(SizeRanking(granularity: self.granularity))
    }

    /// What all accounts hold.
    public var held: Int { total.load(ordering: .relaxed) }

    /// Parts visited to bring the holding under ``limit`` since start: one a round, whatever the number
    /// of accounts (tests count it).
    public var trimVisits: Int { visits.load(ordering: .relaxed) }

    /// Files `accountId` under what it holds now, when the change from `before` moves it in the ranking.
    /// Called under the account's part's lock, whenever its holding changes.
    public func rank(_ accountId: String, from before: Int, to after: Int) {
        guard SizeRanking.bucket(of: before, granularity: granularity) != SizeRanking.bucket(of: after, granularity: granularity) else {
            return
        }
        ranking.withLock { $0.set(accountId, size: after) }
    }

    /// Counts a change of what all accounts hold. Past ``limit``, the largest account gives up its oldest
    /// until the holding fits: `trim` is given that account's id and how far over the limit the holding
    /// is, and answers what it freed (having ranked the account anew under its part's lock), or `nil`
    /// when the account has no part any more.
    public func add(_ delta: Int, trimming trim: (_ accountId: String, _ excess: Int) -> Int?) {
        guard total.wrappingAdd(delta, ordering: .relaxed).newValue > limit else { return }
        while case let excess = total.load(ordering: .relaxed) - limit, excess > 0 {
            guard let accountId = ranking.withLock({ $0.largest }) else { return }
            visits.wrappingAdd(1, ordering: .relaxed)
            guard let freed = trim(accountId, excess) else {
                ranking.withLock { $0.set(accountId, size: 0) }
                continue
            }
            // A part emptied just now left the ranking: the next round finds another.
            total.wrappingSubtract(freed, ordering: .relaxed)
        }
    }

    /// Counts what a part gave back outside a trim (emptied by a reset); the part ranks itself anew.
    public func release(_ amount: Int) {
        total.wrappingSubtract(amount, ordering: .relaxed)
    }
}
