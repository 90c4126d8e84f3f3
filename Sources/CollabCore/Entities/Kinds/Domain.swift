/// A domain the account's visitors come from (`Domain`); names are unique within an account.
public struct Domain: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var domainName: String?

    public static let declaration = EntityDeclaration<Domain>(
        typeName: "Domain", path: "domains", idParameter: "domainId", seedKey: "domains",
        operations: .standard(.admin),
        fields: [.creationTimestamp, .name("DOMAIN_NAME", ordered: true) { $0.domainName }, .modificationTimestamp],
        uniqueName: .name("DOMAIN_NAME") { $0.domainName },
        webhookEvent: "domain",
        rules: EntityRules(validate: { domain, _, _ throws(CollabError) in
            try Limits.check(domain.domainName, field: "domainName", max: 250, required: true)
        })
    )
}
