extension AccountState {
    /// The configuration cascade for an account, optionally narrowed to a named area and an API key.
    /// - Throws: `notFound` when an id does not exist in the account.
    public func configuration(
        accountId: String, namedAreaId: String? = nil, apiKeyId: String? = nil
    ) throws(CollabError) -> ConfigurationCascade {
        try checkAccount(accountId)
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
            global: directory.globalConfiguration.properties, account: account.configuration, area: area?.configuration, apiKey: key?.configuration
        )
    }

    /// The configuration a conversation works under: the account's, its named area's when it is
    /// addressed to one (a deleted area counts as none), and its own (`updateConfiguration`) on top —
    /// over its template's current one when it inherits from it.
    public func configuration(of conversation: Conversation) -> ConfigurationCascade {
        let area = conversation.recipient.type == .namedArea ? namedAreas[conversation.recipient.id] : nil
        return ConfigurationCascade(
            global: directory.globalConfiguration.properties, account: account.configuration, area: area?.configuration,
            conversation: effectiveConfiguration(of: conversation)
        )
    }

    /// The template a conversation inherits its configuration and texts from (`inheritConfigurationAndTexts`),
    /// read when asked: one lookup by id, and the template's later changes reach every such conversation
    /// without touching it. `nil` for a conversation that copied them at creation, or whose template is gone.
    public func inheritedTemplate(of conversation: Conversation) -> ConversationTemplate? {
        guard conversation.inheritConfigurationAndTexts == true, let id = conversation.conversationTemplateId else { return nil }
        return declared.table(ConversationTemplate.self)[id]
    }

    /// A conversation's configuration: its own over its template's when it inherits them.
    public func effectiveConfiguration(of conversation: Conversation) -> [String: String]? {
        guard let inherited = inheritedTemplate(of: conversation)?.configuration else { return conversation.configuration }
        return inherited.merging(conversation.configuration ?? [:]) { $1 }
    }

    /// A conversation's texts (by key, then locale): its own over its template's when it inherits them.
    public func effectiveText(of conversation: Conversation) -> [String: [String: String]]? {
        guard let inherited = inheritedTemplate(of: conversation)?.text else { return conversation.text }
        return inherited.merging(conversation.text ?? [:]) { $0.merging($1) { $1 } }
    }

    /// Whether a boolean property is `true` along `cascade`.
    static func isEnabled(_ key: String, in cascade: ConfigurationCascade) -> Bool {
        cascade.value(for: key)?.value.lowercased() == "true"
    }

    /// Replaces the GLOBAL configuration scope (undone with the operation's log when it fails).
    public static func setGlobalConfiguration(
        _ properties: [String: String], directory: Directory, log: inout DirectoryLog, changes: inout ChangeSet
    ) throws(CollabError) {
        var configuration = directory.globalConfiguration
        configuration.properties = properties
        try replaceGlobal(configuration, directory: directory, log: &log, changes: &changes)
    }

    /// Replaces the whole GLOBAL level, properties and licence (a snapshot restored, everything removed).
    public static func replaceGlobal(
        _ configuration: GlobalConfiguration, directory: Directory, log: inout DirectoryLog, changes: inout ChangeSet
    ) throws(CollabError) {
        try Limits.checkProperties(configuration.properties, field: "configuration")
        directory.setGlobal(configuration, log: &log)
        changes.put(configuration)
    }

    /// Installs or removes the server's licence on the GLOBAL level (undone with the operation's log when it fails).
    public static func setGlobalLicense(_ license: GlobalLicense, directory: Directory, log: inout DirectoryLog, changes: inout ChangeSet) {
        var configuration = directory.globalConfiguration
        configuration.license = license
        directory.setGlobal(configuration, log: &log)
        changes.put(configuration)
    }
}
