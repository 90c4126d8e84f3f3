import CollabCore
import CollabStore
import CollabWire
import Hummingbird

/// Who sees what on the control API's read-only inspector routes (journal, outbox, devices, webhook
/// deliveries, co-browsing stats, stats, configuration, clock).
///
/// Super admins and the control token see every account, as on the rest of the control API. Admins
/// (ADMIN and TECHNICAL_ADMIN) see their own account only: naming another account answers 404, as
/// another account's id does everywhere else. Everything that changes state (reset, seed, clock,
/// clearing logs, key rotation, push settings) stays with super admins.
extension CollabRequestContext {
    /// Requires ADMIN; `nil` for callers who see every account, else the one account they are confined to.
    func inspectorConfinement() throws(CollabError) -> String? {
        try principal.require(.admin)
        if principal.role >= .superAdmin { return nil }
        guard let accountId = principal.accountId else { throw .forbidden("the inspector needs a user of an account") }
        return accountId
    }
}

extension CollabEnvironment {
    /// The account an inspector read covers: the one named (id or name), else the confinement.
    /// - Throws: `notFound` for an unknown account, or one the caller is confined away from.
    func inspectedAccountId(_ reference: String?, confinedTo confinement: String?) throws(CollabError) -> String? {
        guard let reference, !reference.isEmpty else { return confinement }
        let id = try resolveAccount(reference).id
        if let confinement, id != confinement { throw .unknownAccount(reference) }
        return id
    }
}

/// The configuration cascade of one scope, as the inspector shows it.
struct ConfigurationCascadeView: Encodable, Sendable {
    struct Layer: Encodable, Sendable {
        /// GLOBAL, ACCOUNT, AREA or APIKEY.
        var scope: String
        /// The entity that sets this layer (absent for GLOBAL).
        var entityId: String?
        var properties: [String: String]
    }

    var accountId: String
    var namedAreaId: String?
    var apiKeyId: String?
    /// From least to most specific.
    var layers: [Layer]
    /// Every effective property with the scope that set it.
    var resolved: [String: ResolvedProperty]
}

extension AccountState {
    /// The cascade for an account, narrowed to a named area (id or siteId) and an API key (id or key).
    func configurationView(accountId: String, namedArea: String?, apiKey: String?) throws(CollabError) -> ConfigurationCascadeView {
        var areaId: String?
        if let namedArea, !namedArea.isEmpty {
            guard
                let area = namedAreas[namedArea].flatMap({ $0.accountId == accountId ? $0 : nil })
                    ?? self.namedArea(siteId: namedArea, accountId: accountId)
            else { throw .notFound("NamedArea", namedArea) }
            areaId = area.id
        }
        var keyId: String?
        if let apiKey, !apiKey.isEmpty {
            guard let key = apiKeys[apiKey] ?? self.apiKey(presented: apiKey), key.accountId == accountId else { throw .notFound("ApiKey", apiKey) }
            keyId = key.id
        }
        let cascade = try configuration(accountId: accountId, namedAreaId: areaId, apiKeyId: keyId)
        let entities: [ConfigurationScope: String] = [.account: accountId, .area: areaId, .apiKey: keyId].compactMapValues { $0 }
        return ConfigurationCascadeView(
            accountId: accountId, namedAreaId: areaId, apiKeyId: keyId,
            layers: cascade.layers.map { Layer(scope: $0.scope.rawValue, entityId: entities[$0.scope], properties: $0.properties) },
            resolved: cascade.resolved()
        )
    }

    private typealias Layer = ConfigurationCascadeView.Layer
}

extension CollabEnvironment {
    /// The account holding an entity named by a bare id: `scope` (the account the request names, or an
    /// admin's own, ``inspectedAccountId(_:confinedTo:)``), else, for a super admin who names none,
    /// whichever account holds it: a look through every account, which naming the account spares.
    /// - Throws: `notFound` when no account the caller may inspect holds it.
    func account(
        holding predicate: (borrowing AccountState) -> Bool, in scope: String?, entity: String, id: String
    ) throws(CollabError) -> String {
        if let scope {
            guard try read(account: scope, { predicate($0) }) else { throw .notFound(entity, id) }
            return scope
        }
        guard let accountId = repository.firstAccount(where: predicate) else { throw .notFound(entity, id) }
        return accountId
    }
}
