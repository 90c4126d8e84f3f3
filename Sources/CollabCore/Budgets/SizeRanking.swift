/// Accounts by how much they hold, so the account holding the most is found without visiting every
/// account: what a shared ceiling needs when "past the server's ceiling, the account holding the
/// most gives up its oldest".
///
/// Sizes fall into buckets of ``granularity`` (1: exact counts); the largest is an account of the
/// highest bucket that is not empty. Moving an account costs O(1); finding the largest costs O(1)
/// amortised (the mark of the highest bucket walks down only as far as sizes went up before).
/// A plain value: the owner keeps it behind a lock of its own, touched only when an account's bucket
/// changes.
public struct SizeRanking: Sendable {
    /// The bucket each account is in (accounts holding nothing are not listed).
    private var bucketOfAccount: [String: Int] = [:]
    /// The accounts in each bucket that is not empty.
    private var accountsInBucket: [Int: Set<String>] = [:]
    /// The highest bucket that is not empty (0 when none is).
    private var highest = 0
    /// How many units of size one bucket spans.
    public let granularity: Int

    /// - Parameter granularity: How many units of size one bucket spans (1: exact counts).
    public init(granularity: Int = 1) {
        self.granularity = max(1, granularity)
    }

    /// The bucket of `size`: 0 for nothing held, otherwise 1 and up.
    public func bucket(of size: Int) -> Int {
        Self.bucket(of: size, granularity: granularity)
    }

    /// The bucket of `size` in a ranking of `granularity`: whether a change of size moves an account can
    /// be told without the ranking's lock.
    public static func bucket(of size: Int, granularity: Int) -> Int {
        size <= 0 ? 0 : 1 + (size - 1) / max(1, granularity)
    }

    /// Files `account` under what it now holds (`size` 0: not listed).
    public mutating func set(_ account: String, size: Int) {
        let new = bucket(of: size)
        let old = bucketOfAccount[account] ?? 0
        guard new != old else { return }
        if old > 0 {
            accountsInBucket[old]?.remove(account)
            if accountsInBucket[old]?.isEmpty == true { accountsInBucket[old] = nil }
        }
        if new > 0 {
            accountsInBucket[new, default: []].insert(account)
            bucketOfAccount[account] = new
            highest = max(highest, new)
        } else {
            bucketOfAccount[account] = nil
        }
        while highest > 0, accountsInBucket[highest] == nil { highest -= 1 }
    }

    /// An account of the highest bucket: one holding the most (to within ``granularity``).
    public var largest: String? { accountsInBucket[highest]?.first }

    /// How many accounts hold something.
    public var count: Int { bucketOfAccount.count }
}
