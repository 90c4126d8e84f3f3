extension CollabState {
    /// The configuration cascade for an account, optionally narrowed to a named area and an API key.
    /// - Throws: `notFound` when an id does not exist in the account.
    public func configuration(
        accountId: String, namedAreaId: String? = nil, apiKeyId: String? = nil
    ) throws(CollabError) -> ConfigurationCascade {
        guard let account = accounts[accountId] else { throw .notFound("Account", accountId) }
        var area: NamedArea?
        if let namedAreaId {
            guard let found = namedAreas[namedAreaId], found.accountId == accountId else { throw .notFound("NamedArea", namedAreaId) }
            area = found
        }
        var key: ApiKey?
        if let apiKeyId {
            guard let found = apiKeys[apiKeyId], found.accountId == accountId else { throw .notFound("ApiKey", apiKeyId) }
            key = found
        }
        return ConfigurationCascade(
            global: globalConfiguration.properties, account: account.configuration, area: area?.configuration, apiKey: key?.configuration
        )
    }

    /// Replaces the GLOBAL configuration scope.
    public mutating func setGlobalConfiguration(_ properties: [String: String], changes: inout ChangeSet) throws(CollabError) {
        try Limits.checkProperties(properties, field: "configuration")
        globalConfiguration = GlobalConfiguration(properties: properties)
        changes.put(globalConfiguration)
    }
}
