import CollabCore
import CollabWire

/// How many fault rules may be held: each account's admins share a budget of their own, and the
/// operator — the control token, super admins, seed files — has another, so one tenant's rules never
/// refuse another's or the operator's (`serve --max-fault-rules-per-account`, `--max-server-fault-rules`).
public struct FaultRuleLimits: Sendable, Equatable {
    /// Rules an account's admins may hold together.
    public var perAccount: Int
    /// Rules the control token, super admins and seed files may hold together.
    public var server: Int

    /// - Parameters:
    ///   - perAccount: Default 64.
    ///   - server: Default 256.
    public init(perAccount: Int = 64, server: Int = 256) {
        self.perAccount = perAccount
        self.server = server
    }
}

/// The fault rules held, filed by the account they match so a request looks only at the rules that can
/// hit it (those of its account and those of every account), and counted against their owner's budget.
///
/// A plain value kept under ``FaultRules``' lock; rules keep the order they were added in.
struct FaultRuleBook: Sendable {
    /// Whose budget a rule counts against: who made it, not which account it matches (a super admin's
    /// rule for one account is the operator's).
    enum Owner: Hashable, Sendable {
        /// The control token, a super admin or a seed file.
        case server
        /// An admin of the account.
        case account(String)
    }

    /// A rule with its generator, its owner and its place in the order of addition.
    struct Entry: Sendable {
        var rule: FaultRule
        var generator: SeededRandom
        var owner: Owner
        var order: Int
    }

    let limits: FaultRuleLimits
    /// Rules without an account: they match every account's requests.
    private(set) var everyAccount: [Entry] = []
    /// Rules confined to one account, by account.
    private(set) var byAccount: [String: [Entry]] = [:]
    /// Rules held in all.
    private(set) var count = 0
    private var owned: [Owner: Int] = [:]
    private var nextOrder = 0

    init(limits: FaultRuleLimits) {
        self.limits = limits
    }

    /// Every rule, oldest first.
    var all: [Entry] { Self.merged(everyAccount, byAccount.values.flatMap { $0 }) }

    /// How many rules count against `owner`'s budget.
    func held(by owner: Owner) -> Int { owned[owner, default: 0] }

    /// The rules `accountId` may see (all for `nil`), oldest first.
    func visible(to accountId: String?) -> [FaultRule] {
        guard let accountId else { return all.map(\.rule) }
        return (byAccount[accountId] ?? []).map(\.rule)
    }

    /// Adds a checked rule for `owner`; expired and spent rules go first, so they never take room.
    ///
    /// Ids are unique per account (and among the rules of every account): two tenants may each have a
    /// rule `slow-messages`, and neither learns of the other's.
    /// - Throws: `conflict` when a rule of the same account holds its id already (`PUT` replaces one);
    ///   `tooManyRequests` when the owner's budget is spent.
    mutating func add(_ rule: FaultRule, owner: Owner, now: Timestamp) throws(CollabError) {
        removeFinished(now: now)
        if let id = rule.id, index(of: id, in: rule.accountId) != nil {
            throw CollabError(.conflict, "a fault rule with the id '\(id)' exists: PUT /_mock/v1/faults/\(id) replaces it")
        }
        let held = owned[owner, default: 0]
        switch owner {
        case .account where held >= limits.perAccount:
            throw CollabError(
                .tooManyRequests,
                "this account holds \(held) fault rules, the most one account may (--max-fault-rules-per-account); remove some first"
            )
        case .server where held >= limits.server:
            throw CollabError(
                .tooManyRequests,
                "the operator's fault rules (control token, super admins, seeds) number \(held), "
                    + "the most (--max-server-fault-rules); remove some first"
            )
        default:
            break
        }
        insert(Entry(rule: rule, generator: SeededRandom(seed: rule.seed ?? 0), owner: owner, order: nextOrder))
        nextOrder += 1
    }

    /// Replaces rule `id` if `accountId` may see it, keeping its owner, place and count of injections.
    /// - Throws: `notFound` when there is no such rule for the caller.
    mutating func replace(_ id: String, with rule: FaultRule, visibleTo accountId: String?) throws(CollabError) -> FaultRule {
        guard let old = try take(id, visibleTo: accountId) else { throw .notFound("FaultRule", id) }
        var rule = rule
        rule.injected = old.rule.injected
        insert(Entry(rule: rule, generator: SeededRandom(seed: rule.seed ?? 0), owner: old.owner, order: old.order))
        return rule
    }

    /// Removes rule `id` if `accountId` may see it.
    /// - Throws: `notFound` when there is no such rule for the caller.
    mutating func remove(_ id: String, visibleTo accountId: String?) throws(CollabError) {
        guard try take(id, visibleTo: accountId) != nil else { throw .notFound("FaultRule", id) }
    }

    /// Removes every rule `accountId` may see (all for `nil`); returns how many.
    mutating func removeAll(visibleTo accountId: String?) -> Int {
        guard let accountId else {
            defer { (everyAccount, byAccount, owned, count) = ([], [:], [:], 0) }
            return count
        }
        let gone = byAccount.removeValue(forKey: accountId) ?? []
        for entry in gone { forget(entry) }
        return gone.count
    }

    /// The rules a request of `accountId` can meet, oldest first, after the expired and spent ones among
    /// them went; `hit` is asked of each in turn and may change it (its draws, its count), and the first
    /// answer it gives is returned.
    mutating func first<Hit>(for accountId: String?, now: Timestamp, _ hit: (inout Entry) -> Hit?) -> Hit? {
        for entry in Self.removeFinished(from: &everyAccount, now: now) { forget(entry) }
        var own = accountId.flatMap { byAccount.removeValue(forKey: $0) } ?? []
        for entry in Self.removeFinished(from: &own, now: now) { forget(entry) }
        defer { if let accountId, !own.isEmpty { byAccount[accountId] = own } }
        var (common, mine) = (0, 0)
        while common < everyAccount.count || mine < own.count {
            let found: Hit?
            if mine == own.count || (common < everyAccount.count && everyAccount[common].order < own[mine].order) {
                found = hit(&everyAccount[common])
                common += 1
            } else {
                found = hit(&own[mine])
                mine += 1
            }
            if let found { return found }
        }
        return nil
    }

    // MARK: filing

    private mutating func insert(_ entry: Entry) {
        if let accountId = entry.rule.accountId {
            byAccount[accountId, default: []].insert(entry, at: Self.position(of: entry.order, in: byAccount[accountId] ?? []))
        } else {
            everyAccount.insert(entry, at: Self.position(of: entry.order, in: everyAccount))
        }
        owned[entry.owner, default: 0] += 1
        count += 1
    }

    /// Removes rule `id` if `accountId` may see it and returns it.
    /// - Throws: `conflict` when the operator (`nil`) names an id that rules of several accounts hold.
    private mutating func take(_ id: String, visibleTo accountId: String?) throws(CollabError) -> Entry? {
        guard let (bucket, index) = try locate(id, visibleTo: accountId) else { return nil }
        let entry: Entry
        if let bucket {
            entry = byAccount[bucket]!.remove(at: index)  // located there
            if byAccount[bucket]!.isEmpty { byAccount[bucket] = nil }
        } else {
            entry = everyAccount.remove(at: index)
        }
        forget(entry)
        return entry
    }

    /// Where rule `id` is filed (`nil` bucket: every account's), if `accountId` may see it.
    /// - Throws: `conflict` when the operator (`nil`) names an id held in several places.
    private func locate(_ id: String, visibleTo accountId: String?) throws(CollabError) -> (String?, Int)? {
        if let accountId { return index(of: id, in: accountId).map { (accountId, $0) } }
        var found: [(String?, Int)] = index(of: id, in: nil).map { [(nil, $0)] } ?? []
        for bucket in byAccount.keys.sorted() {
            if let index = index(of: id, in: bucket) { found.append((bucket, index)) }
        }
        guard found.count <= 1 else {
            let accounts = found.compactMap(\.0)
            throw CollabError(
                .conflict,
                "rules of \(found.count) places hold the id '\(id)' (accounts \(accounts.joined(separator: ", "))): name one with ?account="
            )
        }
        return found.first
    }

    /// The index of rule `id` among the rules of `bucket` (`nil`: every account's).
    private func index(of id: String, in bucket: String?) -> Int? {
        guard let bucket else { return everyAccount.firstIndex { $0.rule.id == id } }
        return byAccount[bucket]?.firstIndex { $0.rule.id == id }
    }

    /// Takes a removed entry off its owner's count.
    private mutating func forget(_ entry: Entry) {
        owned[entry.owner, default: 1] -= 1
        if owned[entry.owner] == 0 { owned[entry.owner] = nil }
        count -= 1
    }

    /// Removes every expired or spent rule.
    private mutating func removeFinished(now: Timestamp) {
        for entry in Self.removeFinished(from: &everyAccount, now: now) { forget(entry) }
        for key in Array(byAccount.keys) {
            var entries = byAccount.removeValue(forKey: key) ?? []
            for entry in Self.removeFinished(from: &entries, now: now) { forget(entry) }
            if !entries.isEmpty { byAccount[key] = entries }
        }
    }

    /// Removes the expired and spent entries of `entries` and returns them.
    private static func removeFinished(from entries: inout [Entry], now: Timestamp) -> [Entry] {
        let finished = entries.filter { isFinished($0, now: now) }
        if !finished.isEmpty { entries.removeAll { isFinished($0, now: now) } }
        return finished
    }

    private static func isFinished(_ entry: Entry, now: Timestamp) -> Bool {
        if let expiresAt = entry.rule.expiresAt, now >= expiresAt { return true }
        if let limit = entry.rule.limit, (entry.rule.injected ?? 0) >= limit { return true }
        return false
    }

    private static func position(of order: Int, in entries: [Entry]) -> Int {
        entries.firstIndex { $0.order > order } ?? entries.endIndex
    }

    private static func merged(_ first: [Entry], _ second: [Entry]) -> [Entry] {
        (first + second).sorted { $0.order < $1.order }
    }
}
