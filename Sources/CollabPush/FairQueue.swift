import Synchronization

/// Outbound work (webhook deliveries, pushes) waiting per account and, within an account, per lane (an
/// endpoint, a push service), handed out in turn so that one account — or one lane of it — whose work is
/// slow to finish holds back only itself.
///
/// ``run(_:)`` starts at most ``Limits/running`` jobs at once, at most ``Limits/runningPerAccount`` of
/// one account and ``Limits/runningPerLane`` of one lane; when a slot frees, the next account in turn
/// that has a job it may start gets it (round robin over accounts, then over the account's lanes). So an
/// endpoint that never answers holds at most its lane's slots, and an account whose endpoints all hang
/// at most its account's: the other accounts' jobs keep flowing through the rest.
///
/// Waiting jobs are bounded per account and for the server; ``enqueue(_:account:lane:)`` never blocks
/// and refuses a job beyond either bound with a typed ``Overflow``, which the caller records.
public final class FairQueue<Element: Sendable>: Sendable {
    /// How much may run and wait.
    public struct Limits: Sendable, Equatable {
        /// Jobs running at once, all accounts together.
        public var running: Int
        /// Jobs of one account running at once.
        public var runningPerAccount: Int
        /// Jobs of one lane (an endpoint) running at once.
        public var runningPerLane: Int
        /// Jobs waiting, all accounts together.
        public var queued: Int
        /// Jobs of one account waiting.
        public var queuedPerAccount: Int

        /// Limits at least 1 each; a share above its ceiling is the ceiling.
        public init(running: Int, runningPerAccount: Int, runningPerLane: Int, queued: Int, queuedPerAccount: Int) {
            self.running = max(1, running)
            self.runningPerAccount = min(self.running, max(1, runningPerAccount))
            self.runningPerLane = min(self.runningPerAccount, max(1, runningPerLane))
            self.queued = max(1, queued)
            self.queuedPerAccount = min(self.queued, max(1, queuedPerAccount))
        }
    }

    /// Why a job was not queued.
    public enum Overflow: Error, Sendable, Equatable, CustomStringConvertible {
        /// The account already has `limit` jobs waiting.
        case account(limit: Int)
        /// All accounts together already have `limit` jobs waiting.
        case server(limit: Int)
        /// The queue stopped taking work (the server is shutting down).
        case finished

        public var description: String { reason(queue: "", accountOption: nil) }

        /// What happened, for logs and records: "this account's webhook queue is full (2500 waiting,
        /// --webhook-queue-per-account)".
        public func reason(queue: String, accountOption: String?) -> String {
            let name = queue.isEmpty ? "queue" : "\(queue) queue"
            switch self {
            case .account(let limit): return "this account's \(name) is full (\(limit) waiting\(accountOption.map { ", \($0)" } ?? ""))"
            case .server(let limit): return "the server's \(name) is full (\(limit) waiting)"
            case .finished: return "the server is shutting down"
            }
        }
    }

    private struct Job {
        var element: Element
        var account: String
        var lane: String
    }

    /// One lane's waiting jobs, oldest first, read from `head` (so taking one does not move the rest).
    private struct Lane {
        var waiting: [Element] = []
        var head = 0
        var running = 0

        var isIdle: Bool { head == waiting.count && running == 0 }

        mutating func take() -> Element? {
            guard head < waiting.count else { return nil }
            let element = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    private struct Account {
        var lanes: [String: Lane] = [:]
        /// Lanes in turn; `turn` is the one asked first next time.
        var order: [String] = []
        var turn = 0
        var queued = 0
        var running = 0

        mutating func add(_ element: Element, lane: String) {
            if lanes[lane] == nil {
                lanes[lane] = Lane()
                order.append(lane)
            }
            lanes[lane]!.waiting.append(element)
            queued += 1
        }

        /// The next lane in turn below its running limit with a job waiting: its oldest job.
        mutating func take(limitPerLane: Int) -> (Element, String)? {
            for step in 0..<order.count {
                let index = (turn + step) % order.count
                let name = order[index]
                guard let busy = lanes[name]?.running, busy < limitPerLane, let element = lanes[name]?.take() else { continue }
                lanes[name]?.running += 1
                turn = index + 1
                queued -= 1
                running += 1
                return (element, name)
            }
            return nil
        }

        /// A job of `lane` ended; an idle lane is forgotten.
        mutating func finished(lane name: String) {
            running -= 1
            lanes[name]?.running -= 1
            if lanes[name]?.isIdle == true {
                lanes[name] = nil
                if let index = order.firstIndex(of: name) {
                    order.remove(at: index)
                    if turn > index { turn -= 1 }
                }
            }
        }
    }

    private struct State {
        var accounts: [String: Account] = [:]
        var order: [String] = []
        var turn = 0
        var queued = 0
        var running = 0
        var finished = false
        var cancelled = false
        /// Bumped by every change a waiting ``FairQueue/run(_:)`` may act on.
        var generation = 0
        var waiter: CheckedContinuation<Void, Never>?

        var isDone: Bool { cancelled || (finished && queued == 0) }

        /// Marks a change and hands back the waiter to resume (outside the lock).
        mutating func changed() -> CheckedContinuation<Void, Never>? {
            generation &+= 1
            defer { waiter = nil }
            return waiter
        }

        /// Takes the next job in turn that the limits allow, counting it as running.
        mutating func take(_ limits: Limits) -> Job? {
            guard !cancelled, running < limits.running, !order.isEmpty else { return nil }
            for step in 0..<order.count {
                let index = (turn + step) % order.count
                let name = order[index]
                guard var account = accounts[name], account.running < limits.runningPerAccount, account.queued > 0 else { continue }
                accounts[name] = nil  // moved out while it changes, so its lanes are not copied
                let taken = account.take(limitPerLane: limits.runningPerLane)
                accounts[name] = account
                guard let (element, lane) = taken else { continue }
                turn = index + 1
                queued -= 1
                running += 1
                return Job(element: element, account: name, lane: lane)
            }
            return nil
        }
    }

    /// The limits the queue keeps.
    public let limits: Limits
    private let state = Mutex(State())

    public init(limits: Limits) {
        self.limits = limits
    }

    /// Queues a job of `account` in `lane`. Never blocks.
    /// - Throws: ``Overflow`` when the account's or the server's waiting jobs are at their bound, or the
    ///   queue has finished; the job is not queued.
    public func enqueue(_ element: Element, account: String, lane: String) throws(Overflow) {
        let waiter = try state.withLock { state throws(Overflow) -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { throw .finished }
            guard state.queued < limits.queued else { throw .server(limit: limits.queued) }
            guard (state.accounts[account]?.queued ?? 0) < limits.queuedPerAccount else { throw .account(limit: limits.queuedPerAccount) }
            if state.accounts[account] == nil {
                state.accounts[account] = Account()
                state.order.append(account)
            }
            state.accounts[account]!.add(element, lane: lane)
            state.queued += 1
            return state.changed()
        }
        waiter?.resume()
    }

    /// Jobs waiting and running: of `account`, or of all accounts.
    public func counts(account: String? = nil) -> (queued: Int, running: Int) {
        state.withLock { state in
            guard let account else { return (state.queued, state.running) }
            return (state.accounts[account]?.queued ?? 0, state.accounts[account]?.running ?? 0)
        }
    }

    /// Drops the waiting jobs of `account`, or of every account; running ones go on. Returns how many.
    @discardableResult
    public func removeWaiting(account: String? = nil) -> Int {
        state.withLock { state -> Int in
            var removed = 0
            for name in account.map({ [$0] }) ?? state.order {
                guard var entry = state.accounts[name] else { continue }
                for (lane, var waiting) in entry.lanes {
                    removed += waiting.waiting.count - waiting.head
                    waiting.waiting.removeAll()
                    waiting.head = 0
                    entry.lanes[lane] = waiting.isIdle ? nil : waiting
                }
                entry.order.removeAll { entry.lanes[$0] == nil }
                entry.turn = 0
                entry.queued = 0
                if entry.lanes.isEmpty {
                    state.accounts[name] = nil
                    state.order.removeAll { $0 == name }
                } else {
                    state.accounts[name] = entry
                }
            }
            state.queued -= removed
            state.turn = 0
            return removed
        }
    }

    /// Stops taking jobs: ``run(_:)`` returns once those already queued have run.
    public func finish() {
        state.withLock { state in
            state.finished = true
            return state.changed()
        }?.resume()
    }

    /// Runs `body` for every job as the limits allow, until ``finish()`` was called and every job ran,
    /// or the task is cancelled (then jobs still waiting are left, and running ones are cancelled).
    public func run(_ body: @escaping @Sendable (Element) async -> Void) async {
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                while let job = await next() {
                    group.addTask {
                        await body(job.element)
                        self.done(job)
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                state.cancelled = true
                return state.changed()
            }?.resume()
        }
    }

    /// The next job the limits allow, waiting for one; `nil` when the queue is done.
    private func next() async -> Job? {
        while true {
            let (job, generation, done) = state.withLock { state in (state.take(limits), state.generation, state.isDone) }
            if let job { return job }
            if done { return nil }
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    guard state.generation == generation else { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    private func done(_ job: Job) {
        state.withLock { state in
            state.running -= 1
            state.accounts[job.account]?.finished(lane: job.lane)
            if state.accounts[job.account]?.lanes.isEmpty == true {
                state.accounts[job.account] = nil
                state.order.removeAll { $0 == job.account }
            }
            return state.changed()
        }?.resume()
    }
}
