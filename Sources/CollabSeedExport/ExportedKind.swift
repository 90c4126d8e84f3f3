import CollabCore
import CollabWire

/// The kinds an export reads, in the order it reads them, and where each goes in the seed.
enum ExportedKind: CaseIterable {
    case apiKeys, namedAreas, users, teams, conversationTemplates, cannedResponses, personLabels, bots, webhookRegistrations

    /// The name used in progress and in the report (the seed key where there is one).
    var label: String {
        switch self {
        case .apiKeys: "apiKeys"
        case .namedAreas: "namedAreas"
        case .users: "users"
        case .teams: "teams"
        case .conversationTemplates: "conversationTemplates"
        case .cannedResponses: "cannedResponses"
        case .personLabels: "personLabels"
        case .bots: "bots"
        case .webhookRegistrations: "webhookRegistrations"
        }
    }

    /// The Web API search (vendor spec) and its query's `$_type`.
    var searchPath: String {
        switch self {
        case .apiKeys: "/apikeys/search"
        case .namedAreas: "/namedareas/search"
        case .users: "/users/search"
        case .teams: "/teams/search"
        case .conversationTemplates: "/conversationtemplates/search"
        case .cannedResponses: "/cannedresponses/search"
        case .personLabels: "/personlabels/search"
        case .bots: "/bots/search"
        case .webhookRegistrations: "/webhookregistrations/search"
        }
    }

    var queryType: String {
        switch self {
        case .apiKeys: "ApiKeyQuery"
        case .namedAreas: "NamedAreaQuery"
        case .users: "UserQuery"
        case .teams: "TeamQuery"
        case .conversationTemplates: "ConversationTemplateQuery"
        case .cannedResponses: "CannedResponseQuery"
        case .personLabels: "PersonLabelQuery"
        case .bots: "DialogBotQuery"
        case .webhookRegistrations: "WebhookRegistrationQuery"
        }
    }

    /// Optional parts asked for: configuration is part of what a tenant's shape is.
    var expand: [String] {
        switch self {
        case .namedAreas, .users, .teams, .conversationTemplates: ["configuration", "metadata"]
        default: []
        }
    }

    /// Puts the kind's items into the account's seed, recording what was left out. Entries are sorted by
    /// their natural key (teams: parents first), so two exports of one account give the same text.
    func add(_ items: [JSONValue], to account: inout Seed.AccountSeed, reader: inout KindReader) {
        switch self {
        case .apiKeys:
            // The key is the credential itself: an exported key would be a leaked one.
            if !items.isEmpty { reader.skip("apiKeys: \(items.count) API keys, never exported (the key is a secret); add them under apiKeys:") }
        case .namedAreas:
            let areas = items.compactMap { SeedMapping.namedArea($0, reader: &reader) }.sorted { $0.siteId < $1.siteId }
            put(areas, at: \.namedAreas, in: &account, reader: &reader)
        case .users:
            let users = items.compactMap { SeedMapping.user($0, reader: &reader) }.sorted { $0.username < $1.username }
            put(users, at: \.users, in: &account, reader: &reader, secrets: "passwords, never exported (the Web API does not give them out)")
        case .teams:
            add(entities: SeedMapping.parentsFirst(items).map { SeedMapping.entity($0, keepId: true) }, to: &account, reader: &reader)
        case .conversationTemplates, .personLabels:
            add(entities: items.map { SeedMapping.entity($0, keepId: false) }, to: &account, reader: &reader)
        case .cannedResponses:
            let responses = items.compactMap { SeedMapping.cannedResponse($0) }
            if responses.count < items.count {
                reader.skip(
                    "cannedResponses: \(items.count - responses.count) personal (USER) responses, their owners' ids differ on the target server")
            }
            add(entities: responses, to: &account, reader: &reader)
        case .bots:
            let bots = items.compactMap { SeedMapping.bot($0, reader: &reader) }.sorted { $0.name < $1.name }
            put(bots, at: \.bots, in: &account, reader: &reader, secrets: Self.regeneratedSecrets)
        case .webhookRegistrations:
            let hooks = items.compactMap { SeedMapping.webhook($0, reader: &reader) }.sorted { $0.name < $1.name }
            put(hooks, at: \.webhookRegistrations, in: &account, reader: &reader, secrets: Self.regeneratedSecrets)
        }
    }

    private static let regeneratedSecrets = "webhook secrets, never exported (each gets a new one when the seed is loaded)"

    /// Sets a typed seed list (none when empty), counts it, and reports the secrets its entries left behind.
    private func put<Entry>(
        _ entries: [Entry], at field: WritableKeyPath<Seed.AccountSeed, [Entry]?>, in account: inout Seed.AccountSeed, reader: inout KindReader,
        secrets: String? = nil
    ) {
        account[keyPath: field] = entries.isEmpty ? nil : entries
        reader.exported(self, entries.count)
        if let secrets, !entries.isEmpty { reader.skip("\(label): \(entries.count) \(secrets)") }
    }

    private func add(entities: [JSONValue], to account: inout Seed.AccountSeed, reader: inout KindReader) {
        reader.exported(self, entities.count)
        guard !entities.isEmpty else { return }
        account.entities = (account.entities ?? [:]).merging([label: entities]) { _, new in new }
    }
}
