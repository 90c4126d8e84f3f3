public import CollabWire

/// A conversation template (`ConversationTemplate`): configuration and texts a conversation starts with,
/// named at `conversations/create` (`conversationTemplateId`) or, when none is named, the default
/// template of the conversation's initial engagement type. An engagement type has at most one default
/// template: marking another one default clears the flag on the previous one.
public struct ConversationTemplate: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var name: String?
    public var description: String?
    public var defaultTemplate: Bool?
    public var conversationVisibility: String?
    public var initialEngagementType: String?
    public var translations: [String: JSONValue]?
    public var inheritConfigurationAndTexts: Bool?
    public var configuration: [String: String]?
    public var text: [String: [String: String]]?
    public var metadata: [String: String]?

    public static let declaration = EntityDeclaration<ConversationTemplate>(
        typeName: "ConversationTemplate", path: "conversationtemplates", idParameter: "templateId", seedKey: "conversationTemplates",
        operations: EntityOperations(
            create: .admin, read: .registeredUser, update: .admin, delete: .admin, search: .registeredUser, readMultiple: .registeredUser
        ),
        fields: [
            .creationTimestamp, .boolean("DEFAULT_TEMPLATE") { $0.defaultTemplate }, .text("DESCRIPTION") { $0.description },
            .enumeration("INITIAL_ENGAGEMENT_TYPE") { $0.initialEngagementType }, .modificationTimestamp, .name("NAME", ordered: true) { $0.name },
        ],
        naturalKey: { $0.name },
        rules: EntityRules(
            validate: { template, _, _ throws(CollabError) in
                try Limits.check(template.name, field: "name", max: 250, required: true)
                try Limits.check(template.description, field: "description", max: 500)
                try Limits.check(
                    template.initialEngagementType, field: "initialEngagementType", oneOf: EngagementType.allCases.map(\.rawValue), required: true
                )
                try Limits.check(template.conversationVisibility, field: "conversationVisibility", oneOf: ["PRIVATE", "TEAM", "PUBLIC"])
                try Limits.checkProperties(template.configuration, field: "configuration")
                try Limits.checkProperties(template.metadata, field: "metadata")
                try Limits.checkTexts(template.text, field: "text")
            },
            complete: { template, _ in
                if template.defaultTemplate == nil { template.defaultTemplate = false }
                if template.inheritConfigurationAndTexts == nil { template.inheritConfigurationAndTexts = false }
                if template.conversationVisibility == nil { template.conversationVisibility = "PRIVATE" }
            },
            afterWrite: { template, principal, state, context, changes in
                state.keepOneDefault(template, by: principal, context: context, changes: &changes)
            }
        )
    )
}

extension AccountState {
    /// The default template of an engagement type, if the account has one.
    public func defaultTemplate(for engagementType: EngagementType) -> ConversationTemplate? {
        let table = declared.table(ConversationTemplate.self)
        return table.ids("INITIAL_ENGAGEMENT_TYPE", engagementType.rawValue).sorted().compactMap { table[$0] }.first { $0.defaultTemplate == true }
    }

    /// `getDefaultTemplateByEngagementType`.
    /// - Throws: `notFound` when the engagement type has no default template.
    public func defaultTemplate(for engagementType: EngagementType, principal: Principal) throws(CollabError) -> ConversationTemplate {
        _ = try callerAccountId(principal)
        guard let template = defaultTemplate(for: engagementType) else {
            throw CollabError(.notFound, "no default conversation template for \(engagementType.rawValue)")
        }
        return template
    }

    /// After `template` was stored as its engagement type's default, the previous default is one no more.
    mutating func keepOneDefault(_ template: ConversationTemplate, by principal: Principal, context: OperationContext, changes: inout ChangeSet) {
        guard template.defaultTemplate == true, let type = template.initialEngagementType else { return }
        let table = declared.table(ConversationTemplate.self)
        for id in table.ids("INITIAL_ENGAGEMENT_TYPE", type).sorted() where id != template.id {
            guard let previous = table[id], previous.defaultTemplate == true else { continue }
            var demoted = previous
            demoted.defaultTemplate = false
            demoted.version = (previous.version ?? 1) + 1
            demoted.modificationTimestamp = context.now
            putEntity(demoted, action: .update, previous: previous, by: principal, context: context, changes: &changes)
        }
    }

    /// The template a new conversation takes: the one named (which must exist), else its engagement
    /// type's default.
    func template(named id: String?, for engagementType: EngagementType) throws(CollabError) -> ConversationTemplate? {
        guard let id else { return defaultTemplate(for: engagementType) }
        guard let template = declared.table(ConversationTemplate.self)[id] else { throw .notFound("ConversationTemplate", id) }
        return template
    }
}

extension Limits {
    /// Validates texts by key and locale (a conversation's or a template's).
    public static func checkTexts(_ text: [String: [String: String]]?, field: String) throws(CollabError) {
        guard let text else { return }
        guard text.count <= propertyCount else { throw .badRequest("\(field) has more than \(propertyCount) keys") }
        for (key, locales) in text {
            guard key.utf8.count <= propertyKeyLength else { throw .badRequest("\(field) has a key longer than \(propertyKeyLength) bytes") }
            try checkProperties(locales, field: "\(field).\(key)")
        }
    }
}
