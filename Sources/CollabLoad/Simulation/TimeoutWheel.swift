import Synchronization

/// Timeouts for many waits at once, at a coarse resolution: one task ticks and runs what is due.
///
/// A device waits for an acknowledgement after every frame it sends, each wait with a 15 s limit that
/// almost never fires. A timer task per wait cost a task, a system timer and a cancellation per frame;
/// here a wait only appends its expiry to the slot of its deadline, and a wait that ends first leaves
/// an expiry that finds nothing to do. Expiries run at most one ``resolution`` late.
final class TimeoutWheel: Sendable {
    typealias Expiry = @Sendable () -> Void

    /// How late an expiry may run.
    let resolution: Duration
    private let origin: ContinuousClock.Instant
    private let state = Mutex(State())

    private struct State {
        /// Expiries by the tick they are due at (tick `t` is `origin + t × resolution`).
        var due: [Int: [Expiry]] = [:]
        /// Every tick before this one has run.
        var nextTick = 0
        /// Once closed, an expiry runs as soon as it is scheduled.
        var closed = false
    }

    init(resolution: Duration = .milliseconds(50), origin: ContinuousClock.Instant = .now) {
        self.resolution = resolution
        self.origin = origin
    }

    /// Runs `expiry` once `deadline` has passed (at most one ``resolution`` late), or at once when the
    /// wheel no longer ticks.
    func schedule(at deadline: ContinuousClock.Instant, _ expiry: @escaping Expiry) {
        let tick = Int(((deadline - origin) / resolution).rounded(.up))
        let runNow = state.withLock { state in
            guard !state.closed else { return true }
            state.due[max(tick, state.nextTick), default: []].append(expiry)
            return false
        }
        if runNow { expiry() }
    }

    /// Ticks until `stop` fires, then runs every expiry still waiting and closes: a wait that starts
    /// afterwards times out at once instead of waiting for a tick that never comes.
    func run(until stop: StopSignal) async {
        var next = origin + resolution
        while await stop.sleep(until: next) {
            let now = ContinuousClock.now
            runDue(through: Int(((now - origin) / resolution).rounded(.down)))
            next = max(next + resolution, now)
        }
        let left = state.withLock { state in
            state.closed = true
            defer { state.due = [:] }
            return state.due.values.flatMap { $0 }
        }
        for expiry in left { expiry() }
    }

    /// Runs the expiries of every tick up to and including `tick`.
    func runDue(through tick: Int) {
        let expiries = state.withLock { state -> [Expiry] in
            guard tick >= state.nextTick else { return [] }
            var due: [Expiry] = []
            if tick - state.nextTick < state.due.count {
                for passed in state.nextTick...tick {
                    if let slot = state.due.removeValue(forKey: passed) { due += slot }
                }
            } else {
                // A long stretch (a stalled process, a test): visit the slots rather than every tick.
                for passed in state.due.keys where passed <= tick { due += state.due.removeValue(forKey: passed) ?? [] }
            }
            state.nextTick = tick + 1
            return due
        }
        for expiry in expiries { expiry() }
    }
}
