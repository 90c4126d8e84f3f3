public import CollabCore

/// The store behind `--storage memory`: nothing survives the process, so it keeps nothing.
///
/// The working state already lives in memory (the repository's shards); a second, encoded copy here
/// would double the memory a load test costs for no reader.
public final class MemoryStore: Store {
    public init() {}

    public func loadAll() async throws -> [StoredRecord] { [] }

    public func apply(_ changes: [StoreChange]) async throws {}

    public func close() async throws {}
}
