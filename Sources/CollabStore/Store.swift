public import CollabCore
import Foundation

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
    /// `nil` when the store can take writes right now, else what is wrong (a database that does not
    /// answer). `/readyz` asks it.
    func checkHealth() async -> String?
}

extension Store {
    /// Local stores are healthy while the writer has not failed.
    public func checkHealth() async -> String? { nil }
}

/// Where the server keeps its state.
public enum StorageLocation: Sendable, Equatable, CustomStringConvertible {
    /// Nothing survives the process.
    case memory
    /// An SQLite database file.
    case sqlite(path: String)
    /// A PostgreSQL database: `postgres://USER:PASS@HOST:PORT/DB`.
    case postgres(url: String)

    /// Parses `memory`, `sqlite:PATH` or `postgres://…` (`postgresql://…`).
    public init(parsing text: String) throws(CollabError) {
        if text == "memory" {
            self = .memory
        } else if text.hasPrefix("sqlite:"), text.count > "sqlite:".count {
            self = .sqlite(path: String(text.dropFirst("sqlite:".count)))
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            do {
                _ = try PostgresLocation(parsing: text)
            } catch {
                throw .badRequest(error.description)
            }
            self = .postgres(url: text)
        } else {
            throw .badRequest("storage must be 'memory', 'sqlite:PATH' or 'postgres://USER:PASS@HOST:PORT/DB', not '\(Self.redacted(text))'")
        }
    }

    /// The location with any password replaced, for logs and messages.
    public var description: String {
        switch self {
        case .memory: "memory"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url): Self.redacted(url)
        }
    }

    /// `text` with the password of a URL replaced by `REDACTED`.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "REDACTED"
        return components.string ?? text
    }
}
