extension CollabState {
    /// A webhook registration of the caller's account.
    public func webhook(_ id: String, for principal: Principal) throws(CollabError) -> WebhookRegistration {
        guard let registration = webhooks[id], principal.canAccess(accountId: registration.accountId) else { throw .notFound("WebhookRegistration", id) }
        return registration
    }

    /// A webhook registration of the caller's account by name.
    public func webhook(named name: String, for principal: Principal) throws(CollabError) -> WebhookRegistration {
        let accountId = try callerAccountId(principal)
        guard let registration = webhooks.values.first(where: { $0.accountId == accountId && $0.name == name }) else {
            throw CollabError(.notFound, "WebhookRegistration named '\(name)' not found")
        }
        return registration
    }

    /// The registrations among `ids` the caller may see.
    public func webhooks(_ ids: [String], for principal: Principal) throws(CollabError) -> [WebhookRegistration] {
        guard ids.count <= Limits.readMultipleCount else { throw .badRequest("at most \(Limits.readMultipleCount) ids per call") }
        return ids.compactMap { id in webhooks[id].flatMap { principal.canAccess(accountId: $0.accountId) ? $0 : nil } }
    }

    /// Searches the caller's registrations.
    public func searchWebhooks(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<WebhookRegistration> {
        let accountId = try callerAccountId(principal)
        return try SearchSchemas.webhook.run(query, over: webhooks.values.lazy.filter { $0.accountId == accountId }, id: \.id)
    }

    /// The active registrations of an account that want `eventName`.
    public func webhooks(accountId: String, wanting eventName: String) -> [WebhookRegistration] {
        webhooks.values.filter { $0.accountId == accountId && $0.wants(eventName) }
    }

    /// Creates a registration; names are unique within an account; a secret is generated when absent.
    public mutating func createWebhook(
        _ input: WebhookRegistrationInput, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> WebhookRegistration {
        try input.validate()
        let name = try Limits.checkName(input.name, field: "name")
        guard !webhooks.values.contains(where: { $0.accountId == accountId && $0.name == name }) else {
            throw .conflict("a webhook registration named '\(name)' already exists")
        }
        let registration = WebhookRegistration(
            id: context.ids.make(), accountId: accountId, name: name, description: input.description, status: input.status ?? .active,
            endpoint: input.endpoint!, secret: input.secret ?? context.ids.makeSecret(), events: input.events!, creationTimestamp: context.now,
            modificationTimestamp: context.now
        )
        webhooks[registration.id] = registration
        changes.put(registration)
        return registration
    }

    /// Updates a registration; the secret is kept when absent.
    public mutating func updateWebhook(
        id: String, version: Int64?, _ input: WebhookRegistrationInput, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> WebhookRegistration {
        var registration = try webhook(id, for: principal)
        try Self.checkVersion(version, current: registration.version, entity: "WebhookRegistration")
        try input.validate()
        let name = try Limits.checkName(input.name, field: "name")
        if webhooks.values.contains(where: { $0.accountId == registration.accountId && $0.name == name && $0.id != id }) {
            throw .conflict("a webhook registration named '\(name)' already exists")
        }
        registration.name = name
        registration.description = input.description
        registration.endpoint = input.endpoint!
        registration.events = input.events!
        if let status = input.status { registration.status = status }
        if let secret = input.secret { registration.secret = secret }
        registration.version += 1
        registration.modificationTimestamp = context.now
        webhooks[id] = registration
        changes.put(registration)
        return registration
    }

    /// Deletes a registration.
    public mutating func deleteWebhook(_ id: String, for principal: Principal, changes: inout ChangeSet) throws(CollabError) {
        _ = try webhook(id, for: principal)
        webhooks[id] = nil
        changes.delete(.webhookRegistration, id)
    }
}
