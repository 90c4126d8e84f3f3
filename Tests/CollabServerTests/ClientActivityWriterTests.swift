import Logging
import Synchronization
import Testing

@testable import CollabServer

@Suite("Client activity writer")
struct ClientActivityWriterTests {
    /// A write that reports when it starts and finishes only when the test lets it.
    final class HeldWrites: Sendable {
        let started: AsyncStream<[String]>
        private let startedContinuation: AsyncStream<[String]>.Continuation
        private let releases: Mutex<[CheckedContinuation<Void, Never>]> = Mutex([])
        private let pending = Mutex(0)
        let calls = Mutex<[[String]]>([])

        init() { (started, startedContinuation) = AsyncStream.makeStream(of: [String].self) }

        func write(_ accountId: String, _ tokens: [String]) async throws {
            calls.withLock { $0.append(tokens) }
            startedContinuation.yield(tokens)
            await withCheckedContinuation { continuation in
                let released = pending.withLock { count in
                    guard count == 0 else {
                        count -= 1
                        return true
                    }
                    return false
                }
                if released { continuation.resume() } else { releases.withLock { $0.append(continuation) } }
            }
        }

        /// Lets the write in flight (or the next one) finish.
        func release() {
            let waiter = releases.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let waiter { waiter.resume() } else { pending.withLock { $0 += 1 } }
        }
    }

    @Test("requests of one client while its write is pending lead to one write; the next write takes what queued meanwhile")
    func oneWritePerClient() async throws {
        let writes = HeldWrites()
        let writer = ClientActivityWriter(write: writes.write, logger: Logger(label: "test"))
        let running = Task { try await writer.run() }
        var started = writes.started.makeAsyncIterator()

        #expect(writer.note(accountId: "acc", token: "t1"))
        #expect(await started.next() == ["t1"])
        // Every request of the client while its activity is being stored.
        for _ in 0..<200 { #expect(!writer.note(accountId: "acc", token: "t1")) }
        #expect(writer.note(accountId: "acc", token: "t2"), "another client is queued")
        #expect(writer.note(accountId: "acc", token: "t3"))
        #expect(!writer.note(accountId: "acc", token: "t2"))
        writes.release()
        #expect(await started.next() == ["t2", "t3"], "one write for the account's queued clients")
        // Stored: the client's activity can be queued again (the authenticator does so a quarter idle timeout later).
        #expect(writer.note(accountId: "acc", token: "t1"))
        writes.release()
        #expect(await started.next() == ["t1"])
        writes.release()
        writer.stop()
        try await running.value
        #expect(writes.calls.withLock { $0 } == [["t1"], ["t2", "t3"], ["t1"]])
        #expect(!writer.note(accountId: "acc", token: "t1"), "nothing is taken once stopped")
    }
}
