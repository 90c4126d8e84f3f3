import CollabCore
import CollabStore
import CollabWire
import Hummingbird

/// `/global/read` and `/global/getRecordedMinutes`: the server as a whole. MockCollab needs no licence:
/// `currentLicense` says `ACTIVE`, with no expiry and no features listed.
struct GlobalRoutes {
    let environment: CollabEnvironment

    /// What `serverIdentifier` says: one MockCollab server (or cluster) is one installation.
    static let serverIdentifier = "mock-collab"

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let global = group.group("global")
        global.operation(.get, "read", role: .superAdmin) { request, _ in
            let expand = try Expansion(request)
            var data = WebGlobalData()
            if expand.configuration { data.configuration = env.repository.directory.globalConfiguration.properties }
            // The mock keeps no global texts or metadata: expanded, they are empty.
            if expand.text { data.text = [:] }
            if expand.metadata { data.metadata = [:] }
            return JSONBody.response(data)
        }
        global.operation(.get, "getRecordedMinutes", role: .admin) { request, context in
            let (from, to) = try AccountAdministrationRoutes.timeRange(request)
            // Over all accounts for a super admin; an admin's total is their own account's (one
            // account never learns another's activity).
            let principal = context.principal
            let accountIds = principal.role == .superAdmin ? env.repository.directory.accounts.map(\.id) : [principal.accountId].compactMap { $0 }
            var total: Int64 = 0
            for accountId in accountIds {
                total += (try? env.read(account: accountId) { state in state.recordedMinutes(from: from, to: to) }) ?? 0
            }
            return JSONBody.response(WebRecordedMinutes(recordedMinutes: total))
        }
    }
}

/// `GlobalData`.
struct WebGlobalData: Encodable, Sendable {
    /// `LicenseData`.
    struct License: Encodable, Sendable {
        var type = "LicenseData"
        var state = "ACTIVE"
        var licenseId = "mock-collab"
        var features: [String: [String: String]] = [:]

        enum CodingKeys: String, CodingKey { case type = "$_type", state, licenseId, features }
    }

    var type = "GlobalData"
    var serverIdentifier = GlobalRoutes.serverIdentifier
    var currentLicense = License()
    var configuration: [String: String]?
    var text: [String: [String: String]]?
    var metadata: [String: String]?

    enum CodingKeys: String, CodingKey { case type = "$_type", serverIdentifier, currentLicense, configuration, text, metadata }
}
