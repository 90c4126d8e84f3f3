import CollabPush
import Synchronization
import Testing

/// The queue behind webhook deliveries and pushes (issue 25, item 4): jobs wait per account and lane,
/// one lane or account that never finishes holds only its share, and the bounds refuse with a type.
@Suite("Fair queue")
struct FairQueueTests {
    /// A job: which account and lane, and whether it waits for `release` before it finishes.
    struct Job: Sendable {
        var account: String
        var lane: String
        var index: Int
        var hangs = false
    }

    /// Records starts and finishes, and holds hanging jobs until released.
    final class Recorder: Sendable {
        private let state = Mutex<(started: [String], held: [CheckedContinuation<Void, Never>]?)>(([], []))
        let (finishes, finished) = AsyncStream.makeStream(of: String.self)

        func run(_ job: Job) async {
            let name = "\(job.account)\(job.index)"
            state.withLock { $0.started.append(name) }
            if job.hangs {
                await withCheckedContinuation { continuation in
                    let released = state.withLock { state in
                        guard state.held != nil else { return true }
                        state.held?.append(continuation)
                        return false
                    }
                    if released { continuation.resume() }
                }
            }
            finished.yield(name)
        }

        /// Lets every hanging job finish, now and later.
        func release() {
            let held = state.withLock { state in
                defer { state.held = nil }
                return state.held ?? []
            }
            for continuation in held { continuation.resume() }
        }

        var started: [String] { state.withLock { $0.started } }

        /// Waits until the jobs named finished (each finish is yielded once).
        func waitFor(_ names: Set<String>) async {
            var missing = names
            for await name in finishes {
                missing.remove(name)
                if missing.isEmpty { return }
            }
        }
    }

    static func enqueue(_ queue: FairQueue<Job>, _ jobs: [Job]) throws {
        for job in jobs { try queue.enqueue(job, account: job.account, lane: job.lane) }
    }

    @Test("jobs that never finish hold their lane's and account's slots only: the account's other lane and other accounts run")
    func hangingLaneHoldsOnlyItsShare() async throws {
        let queue = FairQueue<Job>(limits: .init(running: 4, runningPerAccount: 3, runningPerLane: 2, queued: 100, queuedPerAccount: 50))
        let recorder = Recorder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await queue.run { await recorder.run($0) } }
            // Twenty jobs of account a whose lane hangs, queued first; then a's other lane and account b.
            try Self.enqueue(queue, (0..<20).map { Job(account: "a", lane: "dead", index: $0, hangs: true) })
            try Self.enqueue(queue, (20..<23).map { Job(account: "a", lane: "live", index: $0) })
            try Self.enqueue(queue, (0..<5).map { Job(account: "b", lane: "live", index: $0) })
            await recorder.waitFor(Set((20..<23).map { "a\($0)" } + (0..<5).map { "b\($0)" }))
            #expect(queue.counts(account: "a").running == 2, "the dead lane holds two slots, its lane's share")
            #expect(queue.counts(account: "a").queued == 18)
            #expect(queue.counts(account: "b").queued == 0 && queue.counts(account: "b").running == 0)
            #expect(recorder.started.filter { $0.hasPrefix("a") && Int($0.dropFirst())! < 20 }.count == 2)
            // Released, the hanging jobs finish; once finished, run returns with nothing left.
            recorder.release()
            queue.finish()
            try await group.waitForAll()
        }
        #expect(queue.counts().queued == 0 && queue.counts().running == 0)
        #expect(recorder.started.count == 28)
    }

    @Test("accounts take turns: with one slot, the accounts' jobs alternate whatever order they were queued in")
    func accountsTakeTurns() async throws {
        let queue = FairQueue<Job>(limits: .init(running: 1, runningPerAccount: 1, runningPerLane: 1, queued: 100, queuedPerAccount: 50))
        let recorder = Recorder()
        try Self.enqueue(queue, (0..<3).map { Job(account: "a", lane: "x", index: $0) })
        try Self.enqueue(queue, (0..<3).map { Job(account: "b", lane: "y", index: $0) })
        queue.finish()
        await queue.run { await recorder.run($0) }
        #expect(recorder.started == ["a0", "b0", "a1", "b1", "a2", "b2"])
    }

    @Test("an account's waiting jobs are bounded, then the server's: the excess is refused with its bound, other accounts still queue")
    func boundsRefuseWithAType() throws {
        let queue = FairQueue<Job>(limits: .init(running: 4, runningPerAccount: 2, runningPerLane: 2, queued: 5, queuedPerAccount: 3))
        try Self.enqueue(queue, (0..<3).map { Job(account: "a", lane: "x", index: $0) })
        #expect(throws: FairQueue<Job>.Overflow.account(limit: 3)) {
            try queue.enqueue(Job(account: "a", lane: "y", index: 3), account: "a", lane: "y")
        }
        try Self.enqueue(queue, (0..<2).map { Job(account: "b", lane: "x", index: $0) })
        #expect(throws: FairQueue<Job>.Overflow.server(limit: 5)) {
            try queue.enqueue(Job(account: "c", lane: "x", index: 0), account: "c", lane: "x")
        }
        #expect(queue.counts().queued == 5 && queue.counts().running == 0)
        queue.finish()
        #expect(throws: FairQueue<Job>.Overflow.finished) { try queue.enqueue(Job(account: "c", lane: "x", index: 0), account: "c", lane: "x") }
    }

    @Test("a reset drops an account's waiting jobs, or everyone's; a running job goes on, and the rest of the queue runs in turn")
    func removeWaiting() async throws {
        let queue = FairQueue<Job>(limits: .init(running: 1, runningPerAccount: 1, runningPerLane: 1, queued: 20, queuedPerAccount: 10))
        let recorder = Recorder()
        try Self.enqueue(queue, [Job(account: "a", lane: "x", index: 0, hangs: true)])
        let running = Task { await queue.run { await recorder.run($0) } }
        while queue.counts().running == 0 { await Task.yield() }  // a0 runs and hangs
        try Self.enqueue(queue, (1..<4).map { Job(account: "a", lane: $0 == 3 ? "y" : "x", index: $0) })
        try Self.enqueue(queue, (0..<2).map { Job(account: "b", lane: "x", index: $0) })
        #expect(queue.removeWaiting(account: "a") == 3)
        #expect(queue.counts(account: "a") == (0, 1) && queue.counts(account: "b").queued == 2 && queue.counts().queued == 2)
        #expect(queue.removeWaiting() == 2, "everyone's: b0 and b1")
        #expect(queue.counts() == (0, 1))
        try Self.enqueue(queue, [Job(account: "a", lane: "x", index: 9), Job(account: "b", lane: "x", index: 9)])
        recorder.release()
        await recorder.waitFor(["a0", "a9", "b9"])
        #expect(Set(recorder.started) == ["a0", "a9", "b9"], "what was waiting at the resets never ran")
        queue.finish()
        await running.value
        #expect(queue.counts() == (0, 0))
    }

    @Test("shares above their ceiling are the ceiling, and every limit is at least 1")
    func limitsAreBounded() {
        let limits = FairQueue<Job>.Limits(running: 4, runningPerAccount: 10, runningPerLane: 0, queued: 0, queuedPerAccount: 7)
        #expect(limits == .init(running: 4, runningPerAccount: 4, runningPerLane: 1, queued: 1, queuedPerAccount: 1))
    }
}
