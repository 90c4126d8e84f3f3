/// Labels on persons (`persons/{id}/setLabels`, `addLabels`, `removeLabels`) and the person visibility
/// rules they drive.
extension AccountState {
    /// The person label of this account named `name`.
    public func personLabel(named name: String) -> PersonLabel? {
        let table = declared.table(PersonLabel.self)
        return table.ids("NAME", name).first.flatMap { table[$0] }
    }

    /// The labels set on `person` that still exist, in the order they were set.
    public func labels(of person: Person) -> [PersonLabel] {
        let table = declared.table(PersonLabel.self)
        return (person.labelIds ?? []).compactMap { table[$0] }
    }

    /// How `setLabels`, `addLabels` and `removeLabels` change a person's labels.
    public enum LabelChange: Sendable {
        /// Exactly these (of the labels the caller may set; the others stay).
        case set
        /// These besides the current ones (a scoped label replaces the one of its scope).
        case add
        /// Without these.
        case remove
    }

    /// Changes the labels of a person by name.
    /// - Throws: `badRequest` for a name that names no label, or a label the caller may not set or that
    ///   cannot be set on this kind of person; `notFound` for the person.
    public mutating func changeLabels(
        _ change: LabelChange, names: [String], personId: String, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> Person {
        guard names.count <= Limits.readMultipleCount else { throw .badRequest("the body has more than \(Limits.readMultipleCount) label names") }
        var person = try self.person(personId, for: principal)
        var given: [PersonLabel] = []
        for (position, name) in names.enumerated() {
            guard let label = personLabel(named: name) else { throw .badRequest("[\(position)]: no person label is named '\(name)'") }
            guard label.isSettable(by: principal) else { throw .badRequest("[\(position)]: the caller may not set the label '\(name)'") }
            guard label.isSettable(on: person) else {
                throw .badRequest("[\(position)]: the label '\(name)' cannot be set on a \(person.labelTarget)")
            }
            given.append(label)
        }
        var current = labels(of: person)
        switch change {
        case .set:
            current = current.filter { !$0.isSettable(by: principal) } + given
        case .add:
            for label in given {
                current.removeAll { $0.id == label.id || (label.scope != nil && $0.scope == label.scope) }
                current.append(label)
            }
        case .remove:
            let removed = Set(given.map(\.id))
            current.removeAll { removed.contains($0.id) }
        }
        var seen = Set<String>()
        let ids = current.map(\.id).filter { seen.insert($0).inserted }
        guard ids != (person.labelIds ?? []) else { return person }
        person.labelIds = ids.isEmpty ? nil : ids
        person.modificationTimestamp = context.now
        storePerson(person)
        changes.put(person)
        emitEntity(.update, .person(person), context: context, changes: &changes)
        return person
    }

    /// Those of `ids` that name a person `principal` may see (the account's visibility rules applied), by id.
    public func visiblePersons(_ ids: [String], for principal: Principal) -> [String: Person] {
        visiblePersons(ids, under: visibilityRules(for: principal))
    }

    /// Those of `ids` that name a person `visibility` lets its caller see, by id: for many look-ups of one
    /// request (a page of conversation histories), the rules worked out once.
    public func visiblePersons(_ ids: [String], under visibility: PersonVisibility) -> [String: Person] {
        var visible: [String: Person] = [:]
        for id in ids { if let person = persons[id], visibility.allows(person, in: self) { visible[id] = person } }
        return visible
    }

    /// The visibility rules that apply to `principal`'s view of persons.
    public func visibilityRules(for principal: Principal) -> PersonVisibility {
        // Admins see every person; so does everyone while the account has no enabled rule.
        guard principal.role.isAgentRole, principal.role < .admin else { return PersonVisibility(rules: []) }
        let rules = declared.table(PersonVisibilityRule.self).rows.values.filter { $0.enabled != false }
        guard !rules.isEmpty else { return PersonVisibility(rules: []) }
        let agentLabels = Set(principal.personId.flatMap { persons[$0] }.map { labels(of: $0).compactMap(\.name) } ?? [])
        let applying = rules.filter { PersonVisibilityRule.selects($0.agentLabelSelection, names: $0.agentLabelNames, labels: agentLabels) }
        return PersonVisibility(rules: applying, restricted: true)
    }
}

/// The visibility rules that select one agent: while the account has an enabled rule, the agent sees a
/// visitor only when one of the rules that select the agent also selects the visitor.
public struct PersonVisibility: Sendable {
    var rules: [PersonVisibilityRule]
    var restricted = false

    /// Whether the agent these rules select may see `person`.
    public func allows(_ person: Person, in state: borrowing AccountState) -> Bool {
        guard restricted, person.personType == .visitor else { return true }
        let names = Set(state.labels(of: person).compactMap(\.name))
        return rules.contains { PersonVisibilityRule.selects($0.visitorLabelSelection, names: $0.visitorLabelNames, labels: names) }
    }
}

extension PersonLabel {
    /// Whether `principal` may set or remove the label (admins always; others when `settableByRoles`
    /// names their role).
    func isSettable(by principal: Principal) -> Bool {
        if principal.role >= .admin { return true }
        let roles = settableByRoles ?? []
        if principal.role >= .supervisor, roles.contains("SUPERVISOR") { return true }
        return principal.role >= .registeredUser && roles.contains("AGENT")
    }

    /// Whether the label may be set on `person` (`settableOn`; unset: on anyone).
    func isSettable(on person: Person) -> Bool {
        guard let targets = settableOn, !targets.isEmpty else { return true }
        return targets.contains(person.labelTarget)
    }
}

extension Person {
    /// The person's `EPersonLabelTargetType`.
    var labelTarget: String {
        switch personType {
        case .agent, .system: "AGENT"
        case .bot: "BOT"
        case .visitor: username != nil || email != nil ? "AUTHENTICATED_VISITOR" : "ANONYMOUS_VISITOR"
        }
    }
}
