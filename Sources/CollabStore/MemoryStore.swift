public import CollabCore
import Synchronization

/// A store that keeps records in memory only (`--storage memory`).
public final class MemoryStore: Store {
    private struct Key: Hashable {
        var kind: EntityKind
        var id: String
    }

    private let records = Mutex<[Key: StoredRecord]>([:])

    public init() {}

    public func loadAll() async throws -> [StoredRecord] {
        records.withLock { Array($0.values) }
    }

    public func apply(_ changes: [StoreChange]) async throws {
        records.withLock { records in
            for change in changes {
                switch change {
                case .put(let record): records[Key(kind: record.kind, id: record.id)] = record
                case .delete(let kind, let id): records[Key(kind: kind, id: id)] = nil
                }
            }
        }
    }

    public func close() async throws {}
}
