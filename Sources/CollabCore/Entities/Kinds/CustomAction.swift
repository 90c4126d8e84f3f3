public import CollabWire

/// A custom action agents or visitors invoke on a conversation, person or message
/// (`CustomConversationActionData`, `CustomPersonActionData`, `CustomMessageActionData`: one kind, told
/// apart by `type`). The mock keeps the configuration; fields it does not interpret are kept as sent.
public struct CustomAction: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var key: String?
    public var name: String?
    public var description: String?
    public var translations: [String: JSONValue]?
    public var actionIcon: JSONValue?
    public var state: String?
    public var triggerWebhook: JSONValue?
    public var invocableFromFrontends: [String]?
    public var invocableForConversationStates: [String]?
    public var invocableForParticipationStates: [String]?
    public var invocableBy: [String]?
    public var triggerSystemMessage: Bool?
    public var triggerVisitorMobileSdkEvent: Bool?
    public var triggerVisitorEmbeddedApiEvent: Bool?
    public var triggerVisitorFloatingApiEvent: Bool?
    public var triggerAgentMobileSdkEvent: Bool?
    public var sortingOrder: Int?
    public var type: String?
    public var actionBarPosition: String?
    public var apiEventTriggerFilter: String?
    public var availableForTargetPersonTypes: [String]?
    public var availableForTargetFrontends: [String]?
    public var messageTypes: [String]?
    public var fileMessageMimeTypeRegex: String?
    public var invocableForMessagesSentBy: [String]?

    /// `type` → the schema of that variant.
    public static let variants = [
        "CONVERSATION": "CustomConversationActionData", "PERSON": "CustomPersonActionData", "MESSAGE": "CustomMessageActionData",
    ]

    public static let declaration: EntityDeclaration<CustomAction> = {
        var declaration = plainDeclaration
        // The trigger webhook's secret signs the calls to the customer's backend: the admins' to read,
        // not an audit entry's to keep once it changes.
        declaration.shownBelowRead = withoutWebhookSecret
        declaration.auditView = EntityAuditView(redact: withoutWebhookSecret)
        return declaration
    }()

    /// The action without its trigger webhook's signing secret.
    @Sendable private static func withoutWebhookSecret(_ action: CustomAction) -> CustomAction {
        guard case .object(var webhook)? = action.triggerWebhook, webhook["secret"] != nil else { return action }
        var shown = action
        webhook["secret"] = nil
        shown.triggerWebhook = .object(webhook)
        return shown
    }

    private static let plainDeclaration = EntityDeclaration<CustomAction>(
        typeName: "CustomActionData", path: "customactions", idParameter: "customActionId", queryType: "CustomActionQuery",
        resultType: "CustomActionResult", seedKey: "customActions",
        operations: EntityOperations(create: .admin, read: .admin, update: .admin, delete: .admin, search: .registeredUser),
        fields: [.name("KEY", ordered: true) { $0.key }],
        uniqueName: .name("KEY") { $0.key },
        rules: EntityRules(validate: { action, _, _ throws(CollabError) in
            try Limits.check(action.type, field: "type", oneOf: ["CONVERSATION", "PERSON", "MESSAGE"], required: true)
            try Limits.check(action.key, field: "key", max: 250, required: true)
            try Limits.check(action.name, field: "name", max: 250)
            try Limits.check(action.description, field: "description", max: 500)
        }),
        wireType: { variants[$0.type ?? ""] ?? "CustomConversationActionData" }
    )
}
