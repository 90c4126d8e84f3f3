import CollabCore
import CollabStore
import CollabWire
import Crypto
import Foundation
import Hummingbird

/// `/global/read`, `update`, `installLicense`, `removeLicense` and `getRecordedMinutes`: the server as a
/// whole. MockCollab needs no licence: until one is installed `currentLicense` says `ACTIVE`, with no
/// expiry and no features listed; an installed or removed licence is stored on the GLOBAL level and only
/// reported. Its configuration is the GLOBAL level of the cascade; the mock keeps no global texts or metadata.
struct GlobalRoutes {
    let environment: CollabEnvironment

    /// What `serverIdentifier` says: one MockCollab server (or cluster) is one installation.
    static let serverIdentifier = "mock-collab"

    /// The largest licence `installLicense` takes, in bytes.
    static let licenseLimit = 64 * 1024

    /// The id an installed licence reports: derived from its content, so installing the same licence twice gives one id.
    static func licenseId(of content: String) -> String {
        "license-" + SHA256.hash(data: Data(content.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let global = group.group("global")
        global.operation(.get, "read", role: .superAdmin) { request, _ in
            JSONBody.response(WebGlobalData(env.repository.directory.globalConfiguration, expand: try Expansion(request)))
        }
        global.operation(.post, "update", role: .superAdmin) { request, _ in
            let expand = try Expansion(request)
            let body = try await env.decode(WebGlobalData.self, from: request)
            if let type = body.type, type != "GlobalData" { throw CollabError.badRequest("$_type must be 'GlobalData', not '\(type.prefix(40))'") }
            guard body.text?.isEmpty ?? true else { throw CollabError.badRequest("text: MockCollab keeps no global texts") }
            guard body.metadata?.isEmpty ?? true else { throw CollabError.badRequest("metadata: MockCollab keeps no global metadata") }
            // Like the vendor's: the rest is read-only, and the configuration changes only when it is sent.
            if let configuration = body.configuration {
                try await env.repository.writeAcross(accountNames: []) { set, changes throws(CollabError) in
                    try set.replaceGlobalConfiguration(configuration, changes: &changes)
                }
            }
            return JSONBody.response(WebGlobalData(env.repository.directory.globalConfiguration, expand: expand))
        }
        global.operation(.post, "installLicense", role: .superAdmin) { request, _ in
            let expand = try Expansion(request)
            let content = String(buffer: try await env.collectBody(request, limit: Self.licenseLimit))
            guard !content.allSatisfy(\.isWhitespace) else {
                throw CollabError.badRequest("licenseContent is required (the licence as text/plain)")
            }
            let license = GlobalLicense.installed(licenseId: Self.licenseId(of: content))
            try await env.repository.writeAcross(accountNames: []) { set, changes throws(CollabError) in
                set.replaceGlobalLicense(license, changes: &changes)
            }
            return JSONBody.response(WebGlobalData(env.repository.directory.globalConfiguration, expand: expand))
        }
        global.operation(.post, "removeLicense", role: .superAdmin) { request, _ in
            let expand = try Expansion(request)
            try await env.repository.writeAcross(accountNames: []) { set, changes throws(CollabError) in
                set.replaceGlobalLicense(.removed, changes: &changes)
            }
            return JSONBody.response(WebGlobalData(env.repository.directory.globalConfiguration, expand: expand))
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
struct WebGlobalData: Codable, Sendable {
    /// `LicenseData`.
    struct License: Codable, Sendable {
        var type: String? = "LicenseData"
        var state: String? = "ACTIVE"
        var licenseId: String? = "mock-collab"
        var features: [String: [String: String]]? = [:]

        enum CodingKeys: String, CodingKey { case type = "$_type", state, licenseId, features }
    }

    var type: String? = "GlobalData"
    var serverIdentifier: String? = GlobalRoutes.serverIdentifier
    var currentLicense: License? = License()
    var configuration: [String: String]?
    var text: [String: [String: String]]?
    var metadata: [String: String]?

    enum CodingKeys: String, CodingKey { case type = "$_type", serverIdentifier, currentLicense, configuration, text, metadata }

    /// The server as `global/read` answers it (the licence as last installed or removed); configuration,
    /// texts (none) and metadata (none) on `expand`.
    init(_ global: GlobalConfiguration, expand: Expansion) {
        switch global.license {
        case nil: break
        case .installed(let licenseId): currentLicense = License(licenseId: licenseId)
        case .removed: currentLicense = License(state: "NO_LICENSE", licenseId: nil)
        }
        (configuration, metadata, text) = expand.parts(configuration: global.properties, metadata: nil, text: nil)
    }
}
