/// An external service that suggests chat answers (`SuggestionSourceData`). The mock keeps its
/// registration and answers its ping; it does not call it for suggestions.
public struct SuggestionSource: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var name: String?
    public var description: String?
    public var outboundApiVersion: String?
    public var outboundStatus: String?
    public var outboundEndpoint: String?
    public var outboundSecret: String?
    public var outboundTimeoutMillis: Int64?

    public static let declaration = EntityDeclaration<SuggestionSource>(
        typeName: "SuggestionSourceData", path: "suggestionsources", idParameter: "suggestionSourceId", queryType: "SuggestionSourceQuery",
        resultType: "SuggestionSourceResult", seedKey: "suggestionSources",
        operations: EntityOperations(create: .admin, read: .admin, update: .admin, delete: .admin, search: .admin, getByName: .admin),
        fields: [.creationTimestamp, .modificationTimestamp, .name("NAME", ordered: true) { $0.name }],
        uniqueName: .name("NAME") { $0.name },
        rules: EntityRules(
            validate: { source, _, _ throws(CollabError) in
                try Limits.check(source.name, field: "name", max: 250, required: true)
                try Limits.check(source.description, field: "description", max: 500)
                try Limits.check(source.outboundApiVersion, field: "outboundApiVersion", oneOf: ["V1", "V2", "V3", "V4"])
                try Limits.check(source.outboundStatus, field: "outboundStatus", oneOf: ["ENABLED", "DISABLED"])
                try Limits.check(source.outboundEndpoint, field: "outboundEndpoint", max: 4000, required: true)
                try Limits.check(source.outboundSecret, field: "outboundSecret", max: 4000)
                guard let timeout = source.outboundTimeoutMillis, (1...600_000).contains(timeout) else {
                    throw .badRequest("outboundTimeoutMillis is required (1 to 600000)")
                }
            },
            complete: { source, _ in
                if source.outboundApiVersion == nil { source.outboundApiVersion = "V4" }
                if source.outboundStatus == nil { source.outboundStatus = "ENABLED" }
            }
        ),
        // The secret signs the mock's requests to the source: a redacted snapshot leaves it out and an
        // import issues a new one.
        secrets: EntitySecrets(
            redact: { source in
                var redacted = source
                redacted.outboundSecret = source.outboundSecret == nil ? nil : ""
                return redacted
            },
            renew: { source, makeSecret in
                var renewed = source
                if renewed.outboundSecret == "" { renewed.outboundSecret = makeSecret() }
                return renewed
            }
        )
    )
}
