/// How many times visitors may guess at invitations (`serve --pin-attempts…`).
///
/// A PIN has a million values, so what keeps it secret is the number of guesses, not its length.
/// Failed redemptions are limited three ways: per client address within an account (one device or
/// network), per account (many addresses at one tenant, which then slows only that tenant), and per
/// PIN invitation (the failures its account saw while it was open).
public struct RedemptionLimits: Sendable, Equatable {
    /// Failed redemptions one client address may make in one account per ``window``.
    public var perAddress: Int
    /// Failed redemptions all addresses together may make in one account per ``window``.
    public var perAccount: Int
    /// Failed redemptions an account may see while a PIN invitation is open before that PIN stops
    /// redeeming (it reads as a wrong PIN until the PIN is renewed).
    public var perInvitation: Int
    /// The window the per-address and per-account counts cover, in milliseconds.
    public var window: Int64

    /// - Parameters:
    ///   - perAddress: Default 10 per window.
    ///   - perAccount: Default 100 per window.
    ///   - perInvitation: Default 1,000: a PIN is found by guessing with a chance of at most 0.1 %.
    ///   - window: Default one minute.
    public init(perAddress: Int = 10, perAccount: Int = 100, perInvitation: Int = 1_000, window: Int64 = 60_000) {
        self.perAddress = max(1, perAddress)
        self.perAccount = max(1, perAccount)
        self.perInvitation = max(1, perInvitation)
        self.window = max(1, window)
    }
}

/// The redemption attempts of every account, on an injected clock: a value, changed only by its
/// methods, so the same inputs give the same decisions.
///
/// The per-address and per-account counts are generic cell rate algorithm buckets (one timestamp per
/// key: a key may make `limit` attempts at once, then one every `window / limit`). Every attempt is
/// charged when it is admitted, so parallel requests cannot overrun the limit, and refunded when it
/// succeeds: only failures count. The per-invitation budget keeps each account's latest failure
/// times. Memory is bounded: at most ``maxKeys`` address keys (the nearest to expiry go first).
public struct RedemptionAttempts: Sendable {
    /// The answer to an attempt.
    public enum Admission: Sendable, Equatable {
        /// The attempt may run (and is charged).
        case admitted
        /// Too many recent failures; try again after this many milliseconds.
        case refused(retryAfter: Int64)
    }

    /// A client address within an account.
    private struct AddressKey: Hashable {
        var accountId: String
        var address: String
    }

    /// The limits in force.
    public let limits: RedemptionLimits
    /// Address keys kept at most.
    public let maxKeys: Int
    private var addresses: [AddressKey: Timestamp] = [:]
    private var accounts: [String: Timestamp] = [:]
    private var failures: [String: FailureTimes] = [:]

    /// - Parameters:
    ///   - limits: The limits.
    ///   - maxKeys: Address keys kept at most (default 50,000).
    public init(limits: RedemptionLimits, maxKeys: Int = 50_000) {
        self.limits = limits
        self.maxKeys = max(1, maxKeys)
    }

    /// Admits an attempt from `address` at `accountId` at `now`, charging it, or refuses it.
    public mutating func admit(accountId: String, address: String, now: Timestamp) -> Admission {
        let key = AddressKey(accountId: accountId, address: address)
        let addressWait = Self.wait(addresses[key], now: now, limit: limits.perAddress, window: limits.window)
        let accountWait = Self.wait(accounts[accountId], now: now, limit: limits.perAccount, window: limits.window)
        let wait = max(addressWait, accountWait)
        guard wait <= 0 else { return .refused(retryAfter: wait) }
        if addresses[key] == nil, addresses.count >= maxKeys { makeRoom(now: now) }
        addresses[key] = Self.charged(addresses[key], now: now, limit: limits.perAddress, window: limits.window)
        accounts[accountId] = Self.charged(accounts[accountId], now: now, limit: limits.perAccount, window: limits.window)
        return .admitted
    }

    /// The admitted attempt succeeded: its charge is given back.
    public mutating func succeeded(accountId: String, address: String) {
        let key = AddressKey(accountId: accountId, address: address)
        if let tat = addresses[key] { addresses[key] = tat - Self.interval(limit: limits.perAddress, window: limits.window) }
        if let tat = accounts[accountId] { accounts[accountId] = tat - Self.interval(limit: limits.perAccount, window: limits.window) }
    }

    /// The admitted attempt failed: it stays charged and counts against the account's open PINs.
    public mutating func failed(accountId: String, now: Timestamp) {
        failures[accountId, default: FailureTimes(capacity: limits.perInvitation)].append(now)
    }

    /// Whether a PIN open since `since` has seen its account fail ``RedemptionLimits/perInvitation`` times.
    public func isBudgetSpent(accountId: String, since: Timestamp) -> Bool {
        guard let times = failures[accountId], let oldest = times.oldestOfFull else { return false }
        return oldest >= since
    }

    /// Address keys held (for tests of the memory bound).
    public var addressKeyCount: Int { addresses.count }

    // MARK: the bucket

    /// Milliseconds until a key whose theoretical arrival time is `tat` may make another attempt (≤ 0: now).
    private static func wait(_ tat: Timestamp?, now: Timestamp, limit: Int, window: Int64) -> Int64 {
        guard let tat else { return 0 }
        return tat - now - (window - interval(limit: limit, window: window))
    }

    private static func charged(_ tat: Timestamp?, now: Timestamp, limit: Int, window: Int64) -> Timestamp {
        max(tat ?? now, now) + interval(limit: limit, window: window)
    }

    /// The time one attempt takes up: a key regains one attempt per interval.
    private static func interval(limit: Int, window: Int64) -> Int64 {
        max(1, window / Int64(limit))
    }

    /// Drops keys that would admit a full burst anyway; if none, the one nearest to that.
    private mutating func makeRoom(now: Timestamp) {
        addresses = addresses.filter { $0.value > now }
        guard addresses.count >= maxKeys, let nearest = addresses.min(by: { $0.value < $1.value }) else { return }
        addresses[nearest.key] = nil
    }
}

/// The latest failure times of one account, oldest first once full.
private struct FailureTimes: Sendable {
    private var times: [Timestamp] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func append(_ time: Timestamp) {
        if times.count < capacity {
            times.append(time)
        } else {
            times[next] = time
            next = (next + 1) % capacity
        }
    }

    /// The oldest of the kept times, once `capacity` are kept.
    var oldestOfFull: Timestamp? { times.count == capacity ? times[next] : nil }
}
