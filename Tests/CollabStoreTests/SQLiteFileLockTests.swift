import CollabStore
import Foundation
import Logging
import Testing

/// One database file, one server: a second open of a database another store holds is refused with a
/// clear error, and the file is free again once the first store closes.
@Suite("SQLite file lock")
struct SQLiteFileLockTests {
    @Test("a database already open is refused, naming the way out; closing the first frees it")
    func secondOpenRefused() async throws {
        let path = try StoreTests.temporaryPath()
        let first = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        do {
            let second = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
            try await second.close()
            Issue.record("a second store opened a database another held")
        } catch let error as SQLiteStoreError {
            guard case .inUse(let named) = error else {
                Issue.record("unexpected: \(error)")
                return
            }
            #expect(named == path)
            #expect(error.description.contains("--storage"))
        }
        try await first.close()
        let reopened = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        try await reopened.close()
    }
}
