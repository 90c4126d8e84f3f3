import CollabCore
import Synchronization
import Testing

@testable import CollabServer

@Suite("Snapshot exports at once")
struct SnapshotExportsTests {
    @Test("one export per account and two on the server run at once; another is a 429 at once; a finished one frees its place",
        .timeLimit(.minutes(1)))
    func slots() async throws {
        let exports = SnapshotExports()
        let (started, starts) = AsyncStream.makeStream(of: String.self)
        final class Held: Sendable { let releases = Mutex<[String: CheckedContinuation<Void, Never>]>([:]) }
        let held = Held()
        @Sendable func export(_ account: String?) async throws -> String {
            let name = account ?? "server"
            return try await exports.run(accountId: account) {
                await withCheckedContinuation { continuation in
                    held.releases.withLock { $0[name] = continuation }
                    starts.yield(name)
                }
                return name
            }
        }
        func refusal(_ account: String?) async -> CollabError? {
            do {
                let ran = try await export(account)
                Issue.record("the export of \(ran) ran")
            } catch let error as CollabError {
                return error
            } catch {
                Issue.record("\(error)")
            }
            return nil
        }
        var next = started.makeAsyncIterator()
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask { try await export("a") }
            #expect(await next.next() == "a")
            let same = await refusal("a")
            #expect(same?.kind == .tooManyRequests && same?.retryAfterSeconds == 1)
            #expect(same?.message.contains("a snapshot of this account is being taken") == true, "\(String(describing: same))")

            group.addTask { try await export(nil) }
            #expect(await next.next() == "server", "a whole-server export takes the second place")
            let full = await refusal("b")
            #expect(full?.message.contains("the server takes its most snapshots at once (2)") == true, "\(String(describing: full))")
            #expect(await refusal(nil)?.message.contains("whole server") == true)

            held.releases.withLock { $0.removeValue(forKey: "a") }?.resume()
            #expect(try await group.next() == "a")
            group.addTask { try await export("b") }
            #expect(await next.next() == "b", "the finished export freed its place")
            for name in ["server", "b"] { held.releases.withLock { $0.removeValue(forKey: name) }?.resume() }
            try await group.waitForAll()
        }
    }
}
