import CollabWire

/// The entity layer's operations: what every declared kind (``DeclaredEntity``) gets from its
/// declaration — read, readMultiple, search, getByName(s), create, update with its version, delete —
/// scoped to the caller's account and the kind's visibility rule, each write stored, announced under
/// the vendor's webhook event and audited.
extension AccountState {
    /// The caller's entity `id` of kind `type`.
    /// - Throws: `notFound` (the vendor's 404) for an id the account does not hold or the caller may not see.
    public func entity<E: DeclaredEntity>(_ type: E.Type, _ id: String, for principal: Principal) throws(CollabError) -> E {
        _ = try callerAccountId(principal)
        guard let entity = declared.table(E.self)[id], E.declaration.rules.visible(entity, principal, self) else {
            throw .notFound(E.declaration.typeName, id)
        }
        return entity
    }

    /// The entities among `ids` the caller may see, in the order asked; ids that match none are left out
    /// (as the vendor's `readMultiple` does).
    public func entities<E: DeclaredEntity>(_ type: E.Type, ids: [String], for principal: Principal) throws(CollabError) -> [E] {
        _ = try callerAccountId(principal)
        try Limits.checkReadMultiple(ids)
        let table = declared.table(E.self)
        return ids.compactMap { id in table[id].flatMap { E.declaration.rules.visible($0, principal, self) ? $0 : nil } }
    }

    /// The entities whose unique name is among `names`, in the order asked; names that match none are
    /// left out.
    public func entities<E: DeclaredEntity>(_ type: E.Type, names: [String], for principal: Principal) throws(CollabError) -> [E] {
        _ = try callerAccountId(principal)
        try Limits.checkReadMultiple(names, what: "names")
        return names.compactMap { entity(E.self, uniqueName: $0, visibleTo: principal) }
    }

    /// The entity whose unique name is `name`.
    /// - Throws: `notFound` when there is none.
    public func entity<E: DeclaredEntity>(_ type: E.Type, named name: String, for principal: Principal) throws(CollabError) -> E {
        _ = try callerAccountId(principal)
        guard let entity = entity(E.self, uniqueName: name, visibleTo: principal) else {
            throw CollabError(.notFound, "\(E.declaration.typeName) named '\(name)' not found")
        }
        return entity
    }

    private func entity<E: DeclaredEntity>(_ type: E.Type, uniqueName name: String, visibleTo principal: Principal) -> E? {
        guard let field = E.declaration.uniqueName else { return nil }
        let table = declared.table(E.self)
        return table.ids(field.name, name).compactMap { table[$0] }.first { E.declaration.rules.visible($0, principal, self) }
    }

    /// Searches the caller's entities of kind `type` (see ``EntityTable/search(_:visible:)``).
    public func searchEntities<E: DeclaredEntity>(
        _ type: E.Type, _ query: SearchQuery, for principal: Principal
    ) throws(CollabError) -> SearchPage<E> {
        _ = try callerAccountId(principal)
        return try declared.table(E.self).search(query) { E.declaration.rules.visible($0, principal, self) }
    }

    /// Creates an entity from a client's draft: the layer sets its id, account, timestamps and version.
    /// - Parameter id: The id to give the entity (a seed's); a new one when `nil`.
    public mutating func createEntity<E: DeclaredEntity>(
        _ draft: E, id: String? = nil, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> E {
        let accountId = try callerAccountId(principal)
        if !draft.accountId.isEmpty, draft.accountId != accountId { throw .notFound("Account", draft.accountId) }
        guard declared.table(E.self).count < E.declaration.maxPerAccount else {
            let bound = E.declaration.maxPerAccount
            throw CollabError(.tooManyRequests, "the account holds the most \(E.declaration.typeName) entities it may (\(bound))")
        }
        var entity = draft
        entity.id = id ?? context.ids.make()
        entity.accountId = accountId
        entity.creationTimestamp = context.now
        if E.declaration.tracksModification { entity.modificationTimestamp = context.now }
        if E.declaration.versioned { entity.version = 1 }
        E.declaration.rules.complete(&entity, principal)
        try checkWrite(entity, for: principal)
        try E.declaration.rules.prepareCreate(&entity, principal, self, context)
        // Measured as it is stored (with what prepareCreate filled in), as a restart counts it.
        let size = try checkRoom(for: entity, context: context)
        try claimGlobalKeys(of: entity, previous: nil)
        putEntity(entity, action: .create, previous: nil, by: principal, context: context, changes: &changes, size: size)
        E.declaration.rules.afterCreate(entity, principal, &self, context, &changes)
        E.declaration.rules.afterWrite(entity, principal, &self, context, &changes)
        return entity
    }

    /// Replaces an entity with a client's draft, which must name its id and current version.
    /// - Throws: `badRequest` without an id or version, `notFound`, `conflict` for a stale version.
    public mutating func updateEntity<E: DeclaredEntity>(
        _ draft: E, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> E {
        guard !draft.id.isEmpty else { throw .badRequest("id is required") }
        let current = try entity(E.self, draft.id, for: principal)
        try E.declaration.rules.writable(current, principal, self)
        var entity = E.declaration.rules.merge(E.declaration.secrets?.keep?(draft, current) ?? draft, current)
        if E.declaration.versioned {
            try Self.checkVersion(draft.version, current: current.version ?? 1, entity: E.declaration.typeName)
            entity.version = (current.version ?? 1).adding(saturating: 1)
        }
        entity.accountId = current.accountId
        entity.creationTimestamp = current.creationTimestamp
        if E.declaration.tracksModification { entity.modificationTimestamp = context.now }
        E.declaration.rules.complete(&entity, principal)
        try checkWrite(entity, for: principal)
        let size = try checkRoom(for: entity, context: context)
        try claimGlobalKeys(of: entity, previous: current)
        putEntity(entity, action: .update, previous: current, by: principal, context: context, changes: &changes, size: size)
        E.declaration.rules.afterWrite(entity, principal, &self, context, &changes)
        return entity
    }

    /// Deletes an entity of the caller's account.
    @discardableResult
    public mutating func deleteEntity<E: DeclaredEntity>(
        _ type: E.Type, _ id: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> E {
        let current = try entity(E.self, id, for: principal)
        try E.declaration.rules.writable(current, principal, self)
        try E.declaration.rules.deletable(current, principal, self)
        removeEntity(current, by: principal, context: context, changes: &changes)
        return current
    }

    /// Checks that `entity`, in place of the stored one with its id, keeps the account's entities within
    /// ``StoredRecordLimits/entityBytesPerAccount``.
    /// - Returns: The entity's size, for ``putEntity`` to count (`nil` for a kind whose bytes do not count).
    /// - Throws: `conflict` naming the option.
    private func checkRoom<E: DeclaredEntity>(for entity: E, context: OperationContext) throws(CollabError) -> Int? {
        guard E.declaration.bytesCounted else { return nil }
        let size = EntityTables.storedSize(of: entity)
        let limit = context.limits.entityBytesPerAccount
        guard declared.storedBytes - declared.storedSize(of: E.self, id: entity.id) + size <= limit else {
            throw .conflict(
                "the account's entities hold their maximum of \(limit) bytes (--max-entity-bytes-per-account); deleting entities frees their bytes")
        }
        return size
    }

    /// The checks every stored version of an entity passes: the kind's rules and its unique name.
    private func checkWrite<E: DeclaredEntity>(_ entity: E, for principal: Principal) throws(CollabError) {
        try E.declaration.rules.validate(entity, principal, self)
        try E.declaration.rules.writable(entity, principal, self)
        if let field = E.declaration.uniqueName, let key = field.value(entity).indexKey,
            declared.table(E.self).ids(field.name, key).contains(where: { $0 != entity.id })
        {
            throw .conflict("a \(E.declaration.typeName) with \(field.name) '\(key)' already exists in this account")
        }
    }

    /// Claims in the directory the global keys `entity` has and `previous` had not, and releases those
    /// it no longer has.
    /// - Throws: `conflict` when another account holds one.
    private mutating func claimGlobalKeys<E: DeclaredEntity>(of entity: E, previous: E?) throws(CollabError) {
        guard let keys = E.declaration.globalKeys else { return }
        let before = previous.map(keys) ?? []
        let after = keys(entity)
        for key in after where !before.contains(key) {
            let conflict = CollabError.conflict("that \(E.declaration.typeName) value is already in use")
            try directory.claim(key, for: accountId, log: &directoryLog, conflict: conflict)
        }
        for key in before where !after.contains(key) { directory.release(key, log: &directoryLog) }
    }

    /// Stores an entity an operation built (the layer's writes, and behaviour written by hand on top of
    /// it), announcing and auditing the change.
    /// - Parameter size: The entity's bytes when a check already worked them out (one encoding per write).
    mutating func putEntity<E: DeclaredEntity>(
        _ entity: E, action: EntityChange.Action, previous: E?, by principal: Principal?, context: OperationContext, changes: inout ChangeSet,
        size: Int? = nil
    ) {
        declared.put(entity, size: size)
        if let legacy = E.declaration.legacyKind { changes.delete(legacy, entity.id) }
        changes.put(DeclaredRecord(entity))
        announce(entity, action: action, previous: previous, by: principal, context: context, changes: &changes)
    }

    /// Removes an entity (the layer's deletes, and behaviour written by hand on top of it).
    mutating func removeEntity<E: DeclaredEntity>(_ entity: E, by principal: Principal?, context: OperationContext, changes: inout ChangeSet) {
        declared.remove(E.self, entity.id)
        for key in E.declaration.globalKeys?(entity) ?? [] { directory.release(key, log: &directoryLog) }
        if let legacy = E.declaration.legacyKind { changes.delete(legacy, entity.id) }
        changes.delete(.declared, DeclaredRecord<E>.recordId(entity.id))
        announce(entity, action: .delete, previous: entity, by: principal, context: context, changes: &changes)
    }

    private mutating func announce<E: DeclaredEntity>(
        _ entity: E, action: EntityChange.Action, previous: E?, by principal: Principal?, context: OperationContext, changes: inout ChangeSet
    ) {
        if let name = E.declaration.webhookEvent {
            var event = DomainEvent(kind: .entityModified, accountId: accountId, timestamp: context.now)
            event.entity = EntityChange(action: action, entity: .declared(event: name, entity: EntityWire.json(entity)))
            changes.emit(event)
        }
        guard E.declaration.audited else { return }
        let declaration = E.declaration
        recordAudit(
            AuditedChange(
                action: action, entityType: declaration.typeName, entityId: entity.id, entityName: declaration.auditName(entity),
                oldState: action == .create ? nil : previous.map { EntityWire.json(declaration.audited($0)) },
                newState: action == .delete ? nil : EntityWire.json(declaration.audited(entity))
            ),
            by: principal, context: context, changes: &changes
        )
    }
}
