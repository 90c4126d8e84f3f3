public import CollabWire
/// A named area (`NamedArea`): routes conversations to a queue and scopes configuration (the AREA
/// level of the cascade). Apps and pages select an area by its `siteId`, unique within an account.
public struct NamedArea: DeclaredEntity {
    /// How a page or app is matched to the area (`ENamedAreaType`).
    public enum AreaType: String, Sendable, Codable, CaseIterable, NamedCases {
        case metaTag = "META_TAG"
        case domain = "DOMAIN"
    }

    /// `NamedAreaTranslation`: the area's name and description in one language.
    public struct Translation: Sendable, Codable, Equatable {
        public var id: String?
        public var name: String?
        public var description: String?

        enum CodingKeys: String, CodingKey {
            case type = "$_type", id, name, description
        }

        public init(id: String? = nil, name: String? = nil, description: String? = nil) {
            self.id = id
            self.name = name
            self.description = description
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(String.self, forKey: .id)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            description = try container.decodeIfPresent(String.self, forKey: .description)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("NamedAreaTranslation", forKey: .type)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encodeIfPresent(name, forKey: .name)
            try container.encodeIfPresent(description, forKey: .description)
        }
    }

    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var name: String?
    public var description: String?
    /// An ``AreaType`` raw value (META_TAG when a client leaves it out).
    public var type: String?
    public var siteId: String?
    public var translations: [String: Translation]?
    public var configuration: [String: String]?
    public var text: [String: [String: String]]?
    public var metadata: [String: String]?

    /// A named area as a seed or test builds it; the layer sets its id, account and timestamps.
    public init(
        siteId: String, name: String? = nil, description: String? = nil, type: AreaType? = nil, configuration: [String: String]? = nil,
        metadata: [String: String]? = nil
    ) {
        id = ""
        accountId = ""
        creationTimestamp = 0
        self.siteId = siteId
        self.name = name
        self.description = description
        self.type = type?.rawValue
        self.configuration = configuration
        self.metadata = metadata
    }

    public static let declaration = EntityDeclaration<NamedArea>(
        typeName: "NamedArea", path: "namedareas", idParameter: "namedAreaId", seedKey: "namedAreas",
        operations: EntityOperations(
            create: .admin, read: .registeredUser, update: .admin, delete: .admin, search: .registeredUser, readMultiple: .registeredUser
        ),
        fields: [
            .creationTimestamp, .text("DESCRIPTION") { $0.description }, .modificationTimestamp, .name("NAME", ordered: true) { $0.name },
            // The vendor's SiteIdNamedAreaSearchFilter takes an IdOperator.
            .id("SITE_ID") { $0.siteId }, .enumeration("TYPE") { $0.type },
        ],
        uniqueName: .id("SITE_ID") { $0.siteId },
        webhookEvent: "named_area",
        rules: EntityRules(
            validate: { area, _, _ throws(CollabError) in try area.check() },
            complete: { area, _ in
                area.type = area.type ?? AreaType.metaTag.rawValue
                area.configuration = area.configuration ?? [:]
            },
            // Configuration, metadata and text show only when expanded: an update without them keeps them.
            merge: EntityRules.keepingOmitted(replaced: ["name", "siteId", "description"])
        ),
        expandable: ["configuration", "metadata", "text"],
        legacyKind: .namedArea
    )

    func check() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        _ = try Limits.checkName(siteId, field: "siteId")
        try Limits.check(type, field: "type", oneOf: AreaType.allCases.map(\.rawValue))
        try Limits.checkOptional(description, field: "description", max: Limits.textLength)
        try Limits.checkProperties(configuration, field: "configuration")
        try Limits.checkProperties(metadata, field: "metadata")
    }
}

extension AccountState {
    /// The named area of `accountId` with the given site id (an index lookup).
    public func namedArea(siteId: String, accountId: String) -> NamedArea? {
        guard accountId == self.accountId else { return nil }
        let areas = namedAreas
        return areas.ids("SITE_ID", siteId).lazy.compactMap { areas[$0] }.first
    }

    /// The account's named areas.
    public var namedAreas: EntityTable<NamedArea> { declared.table(NamedArea.self) }
}
