public import CollabCore

/// Durable storage of records.
///
/// The server keeps its working state in memory and writes every change through a store before it
/// acknowledges the request, so a store only needs to load everything at start and apply batches of
/// changes atomically.
public protocol Store: Sendable {
    /// Every stored record.
    func loadAll() async throws -> [StoredRecord]
    /// Applies the changes atomically and durably: after this returns they survive a crash.
    func apply(_ changes: [StoreChange]) async throws
    /// Releases the store's resources.
    func close() async throws
}

/// Where the server keeps its state.
public enum StorageLocation: Sendable, Equatable, CustomStringConvertible {
    /// Nothing survives the process.
    case memory
    /// An SQLite database file.
    case sqlite(path: String)

    /// Parses `memory` or `sqlite:PATH`.
    public init(parsing text: String) throws(CollabError) {
        if text == "memory" {
            self = .memory
        } else if text.hasPrefix("sqlite:"), text.count > "sqlite:".count {
            self = .sqlite(path: String(text.dropFirst("sqlite:".count)))
        } else {
            throw .badRequest("storage must be 'memory' or 'sqlite:PATH', not '\(text)'")
        }
    }

    public var description: String {
        switch self {
        case .memory: "memory"
        case .sqlite(let path): "sqlite:\(path)"
        }
    }
}
