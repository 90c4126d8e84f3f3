import Foundation
/// A label set on persons (`PersonLabel`); names are unique within an account (`scope::value` for
/// scoped labels). Labels on persons drive ``PersonVisibilityRule``s.
public struct PersonLabel: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var name: String?
    public var description: String?
    public var color: String?
    public var settableOn: [String]?
    public var readableByRoles: [String]?
    public var settableByRoles: [String]?
    public var displayedToRoles: [String]?

    /// The scope of a scoped label (`upsell potential` of `upsell potential::high`).
    public var scope: String? {
        guard let name, let range = name.range(of: "::") else { return nil }
        return String(name[..<range.lowerBound])
    }

    static let targets = ["AGENT", "ANONYMOUS_VISITOR", "AUTHENTICATED_VISITOR", "BOT"]
    static let roles = ["SUPERVISOR", "AGENT", "AUTHENTICATED_VISITOR", "ANONYMOUS_VISITOR"]

    public static let declaration = EntityDeclaration<PersonLabel>(
        typeName: "PersonLabel", path: "personlabels", idParameter: "personLabelId", seedKey: "personLabels",
        operations: EntityOperations(
            create: .admin, read: .registeredUser, update: .admin, delete: .admin, search: .registeredUser, readMultiple: .registeredUser,
            getByNames: .registeredUser
        ),
        fields: [.name("NAME", ordered: true) { $0.name }, .creationTimestamp, .list("SCOPE") { $0.scope.map { [$0] } ?? [] }],
        uniqueName: .name("NAME") { $0.name },
        webhookEvent: "person_label",
        rules: EntityRules(validate: { label, _, _ throws(CollabError) in
            try Limits.check(label.name, field: "name", max: 250, required: true)
            try Limits.check(label.description, field: "description", max: 500)
            try Limits.check(label.color, field: "color", max: 50, required: true)
            for target in label.settableOn ?? [] { try Limits.check(target, field: "settableOn", oneOf: targets) }
            for role in (label.readableByRoles ?? []) + (label.settableByRoles ?? []) + (label.displayedToRoles ?? []) {
                try Limits.check(role, field: "roles", oneOf: roles)
            }
        })
    )
}

/// Which agents see which visitors (`PersonVisibilityRuleData`): while an account has an enabled rule,
/// an agent below ADMIN sees a visitor only when an enabled rule selects both (by their labels).
public struct PersonVisibilityRule: DeclaredEntity {
    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var name: String?
    public var enabled: Bool?
    public var description: String?
    public var agentLabelSelection: String?
    public var agentLabelNames: [String]?
    public var visitorLabelSelection: String?
    public var visitorLabelNames: [String]?

    static let selections = ["ALL", "UNLABELED", "DEFINED_LABELS"]

    /// How many rules an account holds: an agent's request that shows persons reads every enabled one.
    public static let maxPerAccount = 1_000

    /// Whether the selection (`ALL`, `UNLABELED`, `DEFINED_LABELS` with `names`) takes a person with
    /// the label names `labels`.
    static func selects(_ selection: String?, names: [String]?, labels: Set<String>) -> Bool {
        switch selection ?? "ALL" {
        case "UNLABELED": labels.isEmpty
        case "DEFINED_LABELS": (names ?? []).allSatisfy(labels.contains)
        default: true
        }
    }

    public static let declaration = EntityDeclaration<PersonVisibilityRule>(
        typeName: "PersonVisibilityRuleData", path: "personvisibilityrules", idParameter: "personVisibilityRuleId",
        queryType: "PersonVisibilityRuleQuery", resultType: "PersonVisibilityRuleResult", seedKey: "personVisibilityRules",
        operations: .standard(.admin, getByNames: .admin),
        fields: [
            .enumeration("AGENT_LABEL_SELECTION", .selection) { $0.agentLabelSelection }, .name("NAME", ordered: true) { $0.name },
            .enumeration("VISITOR_LABEL_SELECTION", .selection) { $0.visitorLabelSelection }, .creationTimestamp,
            // For `getByUsedLabelName`: the label names the rule selects agents or visitors by.
            .list("USED_LABEL_NAME") { ($0.agentLabelNames ?? []) + ($0.visitorLabelNames ?? []) },
        ],
        uniqueName: .name("NAME") { $0.name },
        webhookEvent: "person_visibility_rule",
        maxPerAccount: maxPerAccount,
        rules: EntityRules(
            validate: { rule, _, state throws(CollabError) in
                try Limits.check(rule.name, field: "name", max: 250, required: true)
                try Limits.check(rule.description, field: "description", max: 500)
                try Limits.check(rule.agentLabelSelection, field: "agentLabelSelection", oneOf: selections)
                try Limits.check(rule.visitorLabelSelection, field: "visitorLabelSelection", oneOf: selections)
                for (field, selection, names) in [
                    ("agentLabelNames", rule.agentLabelSelection, rule.agentLabelNames),
                    ("visitorLabelNames", rule.visitorLabelSelection, rule.visitorLabelNames),
                ] {
                    if selection == "DEFINED_LABELS", names?.isEmpty ?? true {
                        throw .badRequest("\(field) is required when the selection is DEFINED_LABELS")
                    }
                    for name in names ?? [] where state.personLabel(named: name) == nil {
                        throw .badRequest("\(field) names '\(name)', which is no person label of this account")
                    }
                }
            },
            complete: { rule, _ in
                if rule.enabled == nil { rule.enabled = true }
                if rule.agentLabelSelection == nil { rule.agentLabelSelection = "ALL" }
                if rule.visitorLabelSelection == nil { rule.visitorLabelSelection = "ALL" }
            }
        )
    )
}
