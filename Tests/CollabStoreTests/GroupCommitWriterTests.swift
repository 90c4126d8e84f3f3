import CollabCore
import Synchronization
import Testing

@testable import CollabStore

/// The group-commit writer on its own: order, grouping, the transaction cap, failure and idleness.
/// Its store records each transaction and can hold the first one, so that batches queue up behind it
/// the way they do under load.
@Suite("Group-commit writer")
struct GroupCommitWriterTests {
    /// A store that records the ids of every transaction it applies; the first apply waits until
    /// ``release()``, and applies fail once ``failNext`` is set.
    final class RecordingStore: Store {
        private struct State {
            var transactions: [[String]] = []
            var held = true
            var holdWaiters: [CheckedContinuation<Void, Never>] = []
            var entered: [CheckedContinuation<Void, Never>] = []
            var hasEntered = false
            var failNext = false
        }

        private let state = Mutex(State())

        var transactions: [[String]] { state.withLock { $0.transactions } }

        func loadAll() async throws -> [StoredRecord] { [] }
        func close() async throws {}

        func apply(_ changes: [StoreChange]) async throws {
            let ids = changes.map { change -> String in
                switch change {
                case .put(let entity): entity.id
                case .delete(_, let id): "-" + id
                case .deleteAccountData(let account): "*" + account
                }
            }
            let entered = state.withLock { state in
                defer { state.entered = [] }
                state.hasEntered = true
                return state.entered
            }
            for waiter in entered { waiter.resume() }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let go = state.withLock { state in
                    if !state.held { return true }
                    state.holdWaiters.append(continuation)
                    return false
                }
                if go { continuation.resume() }
            }
            let fail = state.withLock { state in
                defer { state.failNext = false }
                return state.failNext
            }
            if fail { throw StoreTestFailure() }
            state.withLock { $0.transactions.append(ids) }
        }

        /// Waits until the writer is inside its first apply.
        func waitUntilEntered() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let entered = state.withLock { state in
                    if state.hasEntered { return true }
                    state.entered.append(continuation)
                    return false
                }
                if entered { continuation.resume() }
            }
        }

        func release() {
            let waiters = state.withLock { state in
                state.held = false
                defer { state.holdWaiters = [] }
                return state.holdWaiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func failNextApply() {
            state.withLock { $0.failNext = true }
        }
    }

    struct StoreTestFailure: Error {}

    /// A record the writer passes on untouched: only its id matters here.
    struct Row: StorableEntity {
        static var kind: EntityKind { .conversation }
        var id: String
        var storageAccountId: String? { "acc" }
    }

    static func put(_ id: String) -> StoreChange {
        .put(Row(id: id))
    }

    /// Outcomes of submitted batches, by batch name.
    final class Outcomes: Sendable {
        private let values = Mutex<[String: Bool]>([:])
        func record(_ name: String, _ error: (any Error)?) { values.withLock { $0[name] = error == nil } }
        var all: [String: Bool] { values.withLock { $0 } }
    }

    @Test("batches that queue behind a transaction are written together, in submission order")
    func grouping() async {
        let store = RecordingStore()
        let writer = GroupCommitWriter(store: store)
        let outcomes = Outcomes()
        writer.submit([Self.put("a")]) { outcomes.record("a", $0) }
        await store.waitUntilEntered()
        // The first transaction is held: these queue up and go in one transaction after it.
        writer.submit([Self.put("b"), .delete(.namedArea, id: "x")]) { outcomes.record("b", $0) }
        writer.submit([.deleteAccountData("old")]) { outcomes.record("c", $0) }
        writer.submit([Self.put("d")]) { outcomes.record("d", $0) }
        store.release()
        await writer.waitUntilIdle()
        #expect(store.transactions == [["a"], ["b", "-x", "*old", "d"]])
        #expect(outcomes.all == ["a": true, "b": true, "c": true, "d": true])
    }

    @Test("a transaction never exceeds the cap, but a single larger batch is never split")
    func cap() async {
        let store = RecordingStore()
        let writer = GroupCommitWriter(store: store, maxChangesPerTransaction: 3)
        writer.submit([Self.put("first")]) { _ in }
        await store.waitUntilEntered()
        writer.submit([Self.put("a1"), Self.put("a2")]) { _ in }
        writer.submit([Self.put("b1"), Self.put("b2")]) { _ in }
        writer.submit([Self.put("c1"), Self.put("c2"), Self.put("c3"), Self.put("c4")]) { _ in }
        writer.submit([Self.put("d1")]) { _ in }
        store.release()
        await writer.waitUntilIdle()
        #expect(store.transactions == [["first"], ["a1", "a2"], ["b1", "b2"], ["c1", "c2", "c3", "c4"], ["d1"]])
    }

    @Test("a failed transaction fails every batch in it, and every batch after it at once")
    func failure() async {
        let store = RecordingStore()
        let writer = GroupCommitWriter(store: store)
        let outcomes = Outcomes()
        writer.submit([Self.put("ok")]) { outcomes.record("ok", $0) }
        await store.waitUntilEntered()
        store.release()
        await writer.waitUntilIdle()
        store.failNextApply()
        writer.submit([Self.put("lost")]) { outcomes.record("lost", $0) }
        await writer.waitUntilIdle()
        #expect(writer.failure != nil)
        writer.submit([Self.put("later")]) { outcomes.record("later", $0) }
        await writer.waitUntilIdle()
        #expect(outcomes.all == ["ok": true, "lost": false, "later": false])
        #expect(store.transactions == [["ok"]], "nothing is written after a failure")
    }

    @Test("waitUntilIdle answers at once when nothing is pending")
    func idle() async {
        let writer = GroupCommitWriter(store: RecordingStore())
        await writer.waitUntilIdle()
        #expect(writer.failure == nil)
    }
}
