public import CollabCore

extension Array where Element == StoreChange {
    /// The changes without every put that a later put of the same record (kind and id) replaces.
    ///
    /// A group-committed batch often puts one record many times: each agent message to a visitor
    /// replaces the visitor's person (its unread counts) and device (its badge), and the batch holds
    /// one such message per waiting request. Applied in order, only the last put of a record decides
    /// what is stored, whatever deletes come between (a later put restores the row they removed), so
    /// the earlier ones need neither encoding nor writing. Deletes and the order of what is left are
    /// kept.
    public func withoutReplacedPuts() -> [StoreChange] {
        guard count > 1 else { return self }
        var later = Set<RecordKey>(minimumCapacity: count)
        var kept: [StoreChange] = []
        kept.reserveCapacity(count)
        for change in reversed() {
            if case .put(let entity) = change, !later.insert(RecordKey(kind: type(of: entity).kind, id: entity.id)).inserted {
                continue
            }
            kept.append(change)
        }
        guard kept.count < count else { return self }
        kept.reverse()
        return kept
    }
}

/// A record's identity in a store: its kind and its id within the kind.
private struct RecordKey: Hashable {
    var kind: EntityKind
    var id: String
}
