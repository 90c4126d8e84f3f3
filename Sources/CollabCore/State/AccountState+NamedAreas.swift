/// The editable fields of a named area.
public struct NamedAreaInput: Sendable {
    public var name: String?
    public var description: String?
    public var type: NamedArea.AreaType?
    public var siteId: String?
    public var configuration: [String: String]?
    public var metadata: [String: String]?
    public var translations: [String: Account.Translation]?
    public var text: [String: [String: String]]?

    public init(
        name: String? = nil, description: String? = nil, type: NamedArea.AreaType? = nil, siteId: String? = nil,
        configuration: [String: String]? = nil, metadata: [String: String]? = nil,
        translations: [String: Account.Translation]? = nil, text: [String: [String: String]]? = nil
    ) {
        self.name = name
        self.description = description
        self.type = type
        self.siteId = siteId
        self.configuration = configuration
        self.metadata = metadata
        self.translations = translations
        self.text = text
    }

    func validate() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        _ = try Limits.checkName(siteId, field: "siteId")
        try Limits.checkOptional(description, field: "description", max: Limits.textLength)
        try Limits.checkProperties(configuration, field: "configuration")
        try Limits.checkProperties(metadata, field: "metadata")
    }
}

extension AccountState {
    /// A named area of the caller's account.
    public func namedArea(_ id: String, for principal: Principal) throws(CollabError) -> NamedArea {
        guard let area = namedAreas[id], principal.canAccess(accountId: area.accountId) else { throw .notFound("NamedArea", id) }
        return area
    }

    /// The named area of `accountId` with the given site id.
    public func namedArea(siteId: String, accountId: String) -> NamedArea? {
        guard accountId == self.accountId else { return nil }
        return namedAreas.rows(Indexes.areaBySiteId, siteId).first
    }

    /// The named areas among `ids` that the caller may see, in the order asked.
    public func namedAreas(_ ids: [String], for principal: Principal) throws(CollabError) -> [NamedArea] {
        guard ids.count <= Limits.readMultipleCount else { throw .badRequest("at most \(Limits.readMultipleCount) ids per call") }
        return ids.compactMap { id in namedAreas[id].flatMap { principal.canAccess(accountId: $0.accountId) ? $0 : nil } }
    }

    /// Searches the caller's named areas.
    public func searchNamedAreas(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<NamedArea> {
        _ = try callerAccountId(principal)
        return try SearchSchemas.namedArea.run(query, over: namedAreas.values, id: \.id)
    }

    /// Creates a named area in `accountId`; site ids are unique within an account.
    public mutating func createNamedArea(
        _ input: NamedAreaInput, accountId: String, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> NamedArea {
        try input.validate()
        try checkAccount(accountId)
        let siteId = try Limits.checkName(input.siteId, field: "siteId")
        guard namedArea(siteId: siteId, accountId: accountId) == nil else {
            throw .conflict("a named area with siteId '\(siteId)' already exists in this account")
        }
        let area = NamedArea(
            id: context.ids.make(), accountId: accountId, name: try Limits.checkName(input.name, field: "name"),
            description: input.description, type: input.type ?? .metaTag, siteId: siteId,
            creationTimestamp: context.now, modificationTimestamp: context.now, configuration: input.configuration ?? [:],
            metadata: input.metadata, translations: input.translations, text: input.text
        )
        namedAreas[area.id] = area
        changes.put(area)
        emitEntity(.create, .namedArea(area), context: context, changes: &changes)
        return area
    }

    /// Updates a named area of the caller's account.
    public mutating func updateNamedArea(
        id: String, version: Int64?, _ input: NamedAreaInput, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> NamedArea {
        var area = try namedArea(id, for: principal)
        try Self.checkVersion(version, current: area.version, entity: "NamedArea")
        try input.validate()
        let siteId = try Limits.checkName(input.siteId, field: "siteId")
        if let other = namedArea(siteId: siteId, accountId: area.accountId), other.id != id {
            throw .conflict("a named area with siteId '\(siteId)' already exists in this account")
        }
        area.name = try Limits.checkName(input.name, field: "name")
        area.siteId = siteId
        area.description = input.description
        if let type = input.type { area.type = type }
        if let configuration = input.configuration { area.configuration = configuration }
        if let metadata = input.metadata { area.metadata = metadata }
        if let translations = input.translations { area.translations = translations }
        if let text = input.text { area.text = text }
        area.version += 1
        area.modificationTimestamp = context.now
        namedAreas[id] = area
        changes.put(area)
        emitEntity(.update, .namedArea(area), context: context, changes: &changes)
        return area
    }

    /// Deletes a named area of the caller's account.
    public mutating func deleteNamedArea(_ id: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet) throws(CollabError) {
        let area = try namedArea(id, for: principal)
        namedAreas[id] = nil
        changes.delete(.namedArea, id)
        emitEntity(.delete, .namedArea(area), context: context, changes: &changes)
    }
}
