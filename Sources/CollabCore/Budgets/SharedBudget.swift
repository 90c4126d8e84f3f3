/// A resource the accounts share — upload slots, stored bytes — with a ceiling for the server and a
/// share for each account, so one tenant at its share slows or refuses only itself.
///
/// A plain value: the owner keeps it under its lock and asks it before taking anything.
public struct SharedBudget: Sendable, Equatable {
    /// Why an amount did not fit.
    public enum Shortfall: Sendable, Equatable {
        /// The account holds its whole share.
        case account
        /// The accounts together hold the server's whole ceiling.
        case server
    }

    /// What all accounts may hold together.
    public let ceiling: Int64
    /// What one account may hold.
    public let share: Int64
    /// What all accounts hold now.
    public private(set) var used: Int64 = 0
    /// What each account holds now (accounts holding nothing are absent).
    public private(set) var usedBy: [String: Int64] = [:]

    /// - Parameters:
    ///   - ceiling: What all accounts may hold together.
    ///   - share: What one account may hold; `nil`: a quarter of the ceiling (at least 1), so four
    ///     accounts at their share still leave nothing out of reach of the others only together.
    public init(ceiling: Int64, share: Int64? = nil) {
        self.ceiling = ceiling
        self.share = min(ceiling, share ?? Self.defaultShare(of: ceiling))
    }

    /// A quarter of `ceiling`, at least 1.
    public static func defaultShare(of ceiling: Int64) -> Int64 { max(1, ceiling / 4) }

    /// What `account` may still take.
    public func room(for account: String) -> Int64 {
        max(0, min(ceiling - used, share - usedBy[account, default: 0]))
    }

    /// Why `amount` more would not fit for `account`, or `nil` when it fits.
    public func shortfall(_ amount: Int64, for account: String) -> Shortfall? {
        if usedBy[account, default: 0] + amount > share { return .account }
        if used + amount > ceiling { return .server }
        return nil
    }

    /// Takes `amount` for `account` when it fits.
    /// - Returns: Why it did not fit, or `nil` when it was taken.
    public mutating func take(_ amount: Int64, for account: String) -> Shortfall? {
        if let shortfall = shortfall(amount, for: account) { return shortfall }
        used += amount
        usedBy[account, default: 0] += amount
        return nil
    }

    /// Takes `amount` for `account` whether or not it fits (what is already there: files found at start,
    /// a snapshot's files the operator restores).
    public mutating func force(_ amount: Int64, for account: String) {
        used += amount
        usedBy[account, default: 0] += amount
    }

    /// Gives back `amount` `account` held.
    public mutating func release(_ amount: Int64, for account: String) {
        used -= amount
        let left = usedBy[account, default: 0] - amount
        usedBy[account] = left > 0 ? left : nil
    }

    /// Gives back everything `account` held.
    public mutating func releaseAll(for account: String) {
        used -= usedBy.removeValue(forKey: account) ?? 0
    }

    /// Forgets what every account held.
    public mutating func reset() {
        used = 0
        usedBy = [:]
    }
}
