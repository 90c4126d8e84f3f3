extension AccountState {
    /// A webhook registration of the caller's account.
    public func webhook(_ id: String, for principal: Principal) throws(CollabError) -> WebhookRegistration {
        guard let registration = webhooks[id], principal.canAccess(accountId: registration.accountId) else { throw .notFound("WebhookRegistration", id) }
        return registration
    }

    /// A webhook registration of the caller's account by name.
    public func webhook(named name: String, for principal: Principal) throws(CollabError) -> WebhookRegistration {
        _ = try callerAccountId(principal)
        guard let registration = webhooks.rows(Indexes.webhookByName, name).first else {
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
        _ = try callerAccountId(principal)
        return try SearchSchemas.webhook.run(query, over: webhooks.values, id: \.id)
    }

    /// The active registrations of an account that want `eventName`.
    public func webhooks(accountId: String, wanting eventName: String) -> [WebhookRegistration] {
        guard accountId == self.accountId else { return [] }
        let ids = webhooks.ids(Indexes.webhookByEvent, eventName).union(webhooks.ids(Indexes.webhookByEvent, "*"))
        return ids.compactMap { webhooks[$0] }.filter { $0.wants(eventName) }.sorted { $0.id < $1.id }
    }

    /// Creates a registration; names are unique within an account; a secret is generated when absent.
    public mutating func createWebhook(
        _ input: WebhookRegistrationInput, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> WebhookRegistration {
        try input.validate()
        let name = try Limits.checkName(input.name, field: "name")
        try checkAccount(accountId)
        guard webhooks.count(Indexes.webhookByName, name) == 0 else {
            throw .conflict("a webhook registration named '\(name)' already exists")
        }
        let registration = WebhookRegistration(
            id: context.ids.make(), accountId: accountId, name: name, description: input.description, status: input.status ?? .active,
            endpoint: input.endpoint!, secret: input.secret ?? context.ids.makeSecret(), events: WebhookRegistration.vendorEventNames(input.events!), creationTimestamp: context.now,
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
        if webhooks.ids(Indexes.webhookByName, name).contains(where: { $0 != id }) {
            throw .conflict("a webhook registration named '\(name)' already exists")
        }
        registration.name = name
        registration.description = input.description
        registration.endpoint = input.endpoint!
        registration.events = WebhookRegistration.vendorEventNames(input.events!)
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
