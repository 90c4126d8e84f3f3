import CollabWire
import Foundation

/// Seeding declared entities: a seed's `entities` section, by kind.
extension AccountState {
    /// Applies a seed's declared entities idempotently: an entity is matched by its kind's unique name,
    /// or by `id` for kinds without one, and updated only when it differs.
    /// - Throws: `badRequest` naming the seed key or item that does not fit.
    mutating func applyEntities(
        _ seeds: [String: [JSONValue]]?, context: OperationContext, changes: inout ChangeSet, report: inout SeedReport
    ) throws(CollabError) {
        guard let seeds else { return }
        let system = Principal.control(of: accountId)
        // In the registry's order, so a kind comes after the kinds it refers to (contacts after channels).
        let order = Dictionary(uniqueKeysWithValues: EntityRegistry.kinds.enumerated().map { ($1.seedKey, $0) })
        for key in seeds.keys.sorted(by: { (order[$0] ?? .max, $0) < (order[$1] ?? .max, $1) }) {
            guard let type = EntityRegistry.type(seedKey: key) else {
                let known = EntityRegistry.kinds.map { $0.seedKey }.sorted().joined(separator: ", ")
                throw .badRequest("seed: account '\(account.name)': entities.\(key) is no entity kind (known: \(known))")
            }
            for (position, item) in (seeds[key] ?? []).enumerated() {
                let path = "seed: account '\(account.name)': entities.\(key)[\(position)]"
                try applySeed(type, item, at: path, by: system, context: context, changes: &changes, report: &report)
            }
        }
    }

    private mutating func applySeed<E: DeclaredEntity>(
        _ type: E.Type, _ item: JSONValue, at path: String, by system: Principal, context: OperationContext, changes: inout ChangeSet,
        report: inout SeedReport
    ) throws(CollabError) {
        let draft = try EntityWire.draft(E.self, from: item, at: path)
        try Self.refuseUnknownFields(item, of: draft, at: path)
        try applySeed(draft, at: path, by: system, context: context, changes: &changes, report: &report)
    }

    /// A seeded entity with a key its kind does not store is refused (a misspelt field would otherwise
    /// be dropped without a word, and the entity seeded without it).
    private static func refuseUnknownFields<E: DeclaredEntity>(_ item: JSONValue, of draft: E, at path: String) throws(CollabError) {
        guard case .object(var object) = item else { return }
        object["$_type"] = nil
        guard let data = try? RecordCoding.encoder.encode(JSONValue.object(object)),
            let document = try? JSONSerialization.jsonObject(with: data),
            let unknown = UnknownFields.firstPath(in: document, decodedAs: draft)
        else { return }
        throw .badRequest("\(path): unknown field '\(unknown)' (misspelt, or not a field of \(E.declaration.wireType(draft)))")
    }

    /// Applies one seeded entity of a declared kind: created, or updated when the update it makes
    /// differs from the entity as it is (a field the seed leaves out is what an update keeps).
    mutating func applySeed<E: DeclaredEntity>(
        _ draft: E, at path: String, by system: Principal, context: OperationContext, changes: inout ChangeSet, report: inout SeedReport
    ) throws(CollabError) {
        // Natural keys are compared with the defaults a write would fill in (a canned response's
        // ACCOUNT owner is the account), so a seed that leaves them out matches what it created.
        var keyed = draft
        keyed.accountId = accountId
        E.declaration.rules.complete(&keyed, system)
        let table = declared.table(E.self)
        let existing: E? =
            if let field = E.declaration.uniqueName, let name = field.value(draft).indexKey {
                table.ids(field.name, name).first.flatMap { table[$0] }
            } else if !draft.id.isEmpty {
                table[draft.id]
            } else if let key = E.declaration.naturalKey, let value = key(keyed) {
                // Seeds are small and applied rarely: a look through the kind is fine here.
                table.rows.values.first { key($0) == value }
            } else {
                nil
            }
        /// The draft as an update of `existing`: its identity and timestamps, what it leaves out kept and
        /// completed as a write would.
        func candidate(replacing existing: E) -> E {
            var candidate = E.declaration.rules.merge(E.declaration.secrets?.keep?(draft, existing) ?? draft, existing)
            candidate.id = existing.id
            candidate.accountId = existing.accountId
            candidate.creationTimestamp = existing.creationTimestamp
            candidate.modificationTimestamp = existing.modificationTimestamp
            candidate.version = existing.version
            E.declaration.rules.complete(&candidate, system)
            return candidate
        }
        do {
            try upsert(
                existing, report: &report, unchanged: { candidate(replacing: $0) == $0 },
                create: { state throws(CollabError) in
                    _ = try state.createEntity(draft, id: draft.id.isEmpty ? nil : draft.id, for: system, context: context, changes: &changes)
                },
                update: { state, existing throws(CollabError) in
                    _ = try state.updateEntity(candidate(replacing: existing), for: system, context: context, changes: &changes)
                }
            )
        } catch {
            throw CollabError(error.kind, "\(path): \(error.message)")
        }
    }
}
