import DequeModule
import Synchronization

/// A single-consumer queue of incoming messages whose reader can wait with a deadline: what a
/// device's flow needs to say "the next event, or give up after 15 s". The deadlines are kept by a
/// ``TimeoutWheel`` the whole run shares, so a wait costs no task and no timer of its own.
final class Inbox<Element: Sendable>: Sendable {
    private let state = Mutex(State())
    private let timeouts: TimeoutWheel

    private struct State {
        var buffer = Deque<Element>()
        var waiter: Waiter?
        var nextWaiter = 0
        var finished = false
        /// Elements dropped because the buffer was full.
        var dropped = 0
    }

    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Element?, Never>
    }

    /// At most this many elements wait; older ones are dropped beyond it.
    let capacity: Int

    init(capacity: Int = 10_000, timeouts: TimeoutWheel) {
        self.capacity = capacity
        self.timeouts = timeouts
    }

    /// Whether ``finish()`` was called and everything was read.
    var isFinished: Bool { state.withLock { $0.finished && $0.buffer.isEmpty } }

    /// Adds an element, waking the reader.
    func push(_ element: Element) {
        let waiter: CheckedContinuation<Element?, Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            state.buffer.append(element)
            if state.buffer.count > capacity {
                state.buffer.removeFirst()
                state.dropped += 1
            }
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// Whether the source finished and the buffer is read: a `nil` from ``next(timeout:)`` then means
    /// closed, not timed out.
    var isDrained: Bool { state.withLock { $0.finished && $0.buffer.isEmpty } }

    /// No more elements: the reader gets `nil` once the buffer is empty.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume(returning: nil)
    }

    /// The next element, or `nil` after `timeout` (if any), on finish or on cancellation.
    func next(timeout: Duration?) async -> Element? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let ready: Element?? = state.withLock { state in
                    if let first = state.buffer.popFirst() { return .some(first) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = Waiter(id: id, continuation: continuation)
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                } else if let deadline {
                    // Scheduled after the waiter is stored: an expiry that runs at once finds it.
                    timeouts.schedule(at: deadline) { [self] in self.expire(id) }
                }
            }
        } onCancel: {
            self.expire(id)
        }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            guard let waiter = state.waiter, waiter.id == id else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: nil)
    }
}
