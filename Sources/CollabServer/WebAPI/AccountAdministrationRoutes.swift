import CollabCore
import CollabStore
import CollabWire
import Hummingbird

/// `/accounts/…` beyond the record: getByName, readMultiple, getQuotaUsage, getAccountSecret, the
/// ingress operations and getRecordedMinutes. An account id is the
/// caller's own account or, for a super admin, any account (another account's id is not found).
struct AccountAdministrationRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let accounts = group.group("accounts")
        accounts.operation(.get, "getByName", role: .superAdmin) { request, _ in
            let expand = try Expansion(request)
            let name = try request.requireQuery("name")
            guard let account = env.repository.directory.account(named: name) else {
                throw CollabError(.notFound, "Account named '\(name)' not found")
            }
            return JSONBody.response(WebAccount(account, expand: expand))
        }
        accounts.operation(.post, "readMultiple", role: .superAdmin) { request, _ in
            let expand = try Expansion(request)
            let ids = try await env.decode([String].self, from: request)
            try Limits.checkReadMultiple(ids)
            // In the order asked; unknown ids are left out, as the vendor does.
            let items = ids.compactMap { env.repository.directory.account($0) }.map { WebAccount($0, expand: expand) }
            return JSONBody.response(WebList(type: "AccountList", items: items))
        }
        accounts.operation(.get, "getQuotaUsage", role: .supervisor) { _, context in
            let usage = try env.read(context.principal) { state throws(CollabError) in try state.quotaUsage(for: context.principal) }
            return JSONBody.response(WebAccountQuotaUsage(usage))
        }
        accounts.operation(.get, ":accountId/getAccountSecret", role: .admin) { _, context in
            let id = try context.pathParameter("accountId")
            let secret = try await env.write(account: Self.target(id, context.principal)) { state, changes, op throws(CollabError) in
                try state.accountSecret(id, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebAccountSecret(secret, accountId: id))
        }
        accounts.operation(.get, ":accountId/getIngressStatus", role: .admin) { _, context in
            let id = try context.pathParameter("accountId")
            let ingress = try env.read(account: Self.target(id, context.principal)) { state throws(CollabError) in
                try state.ingress(id, for: context.principal)
            }
            return JSONBody.response(WebAccountIngressStatus(ingress))
        }
        for (name, enabled) in [("enableAccountIngress", true), ("disableAccountIngress", false), ("restartIngressMigration", nil)] {
            accounts.operation(.post, RouterPath(":accountId/\(name)"), role: .superAdmin) { _, context in
                let id = try context.pathParameter("accountId")
                _ = try await env.write(account: id) { state, changes, op throws(CollabError) in
                    try state.migrateIngress(id, enabled: enabled, for: context.principal, context: op, changes: &changes)
                }
                return noContent
            }
        }
        accounts.operation(.get, ":accountId/getRecordedMinutes", role: .admin) { request, context in
            let id = try context.pathParameter("accountId")
            let (from, to) = try Self.timeRange(request)
            let minutes = try env.read(account: Self.target(id, context.principal)) { state throws(CollabError) in
                _ = try state.account(id, for: context.principal)
                return state.recordedMinutes(from: from, to: to)
            }
            return JSONBody.response(WebRecordedMinutes(recordedMinutes: minutes))
        }
    }

    /// The shard an account-id operation reads: the named account for a super admin, the caller's own
    /// otherwise (where another id is not found).
    private static func target(_ id: String, _ principal: Principal) -> String? {
        principal.role == .superAdmin ? id : principal.accountId
    }

    /// `fromTime` / `toTime` (epoch milliseconds), both optional.
    static func timeRange(_ request: Request) throws(CollabError) -> (Int64?, Int64?) {
        func time(_ name: String) throws(CollabError) -> Int64? {
            guard let text = request.query(name) else { return nil }
            guard let value = Int64(text) else { throw .badRequest("\(name) must be a timestamp in epoch milliseconds, not '\(text)'") }
            return value
        }
        let range = (try time("fromTime"), try time("toTime"))
        if let from = range.0, let to = range.1, from > to { throw .badRequest("fromTime must not be after toTime") }
        return range
    }
}

/// `AccountQuotaUsageData`.
struct WebAccountQuotaUsage: Encodable, Sendable {
    /// `QuotaUsageData`.
    struct Usage: Encodable, Sendable {
        var type = "QuotaUsageData"
        var current: Int
        var limit: String

        enum CodingKeys: String, CodingKey {
            case type = "$_type"
            case current, limit
        }
    }

    var type = "AccountQuotaUsageData"
    var apiKeys: Usage?
    var domains: Usage?
    var teams: Usage?
    var users: Usage?

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case apiKeys, domains, teams, users
    }

    init(_ usage: [String: AccountState.QuotaUsage]) {
        func wire(_ key: String) -> Usage? { usage[key].map { Usage(current: $0.current, limit: $0.limit) } }
        apiKeys = wire("apiKeys")
        domains = wire("domains")
        teams = wire("teams")
        users = wire("users")
    }
}

/// `AccountSecret`.
struct WebAccountSecret: Encodable, Sendable {
    var type = "AccountSecret"
    var id: String
    var creationTimestamp: Int64
    var modificationTimestamp: Int64
    var version: Int64 = 1
    var accountId: String
    var secretKey: String

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case id, creationTimestamp, modificationTimestamp, version, accountId, secretKey
    }

    init(_ secret: AccountSecret, accountId: String) {
        id = secret.id
        creationTimestamp = secret.creationTimestamp
        modificationTimestamp = secret.creationTimestamp
        self.accountId = accountId
        secretKey = secret.secretKey
    }
}

/// `AccountIngressStatus`.
struct WebAccountIngressStatus: Encodable, Sendable {
    var type = "AccountIngressStatus"
    var enabled: Bool
    var ingressStatus: String
    var migrationStatus: String
    var errorDetails: [String] = []
    var warningDetails: [String] = []

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case enabled, ingressStatus, migrationStatus, errorDetails, warningDetails
    }

    init(_ ingress: AccountIngress) {
        enabled = ingress.enabled
        ingressStatus = ingress.ingressStatus
        migrationStatus = ingress.migrationStatus.rawValue
    }
}
