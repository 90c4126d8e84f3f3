@testable import CollabLoad
import Synchronization
import Testing

/// The load tool's shared wait limits: a device's wait for an acknowledgement or an event ends with
/// what arrives, or with its deadline through the run's one ``TimeoutWheel``.
@Suite("Load tool wait limits")
struct LoadTimeoutTests {
    @Test("an expiry runs once its tick has run, not before; a long stretch runs every slot it passed")
    func wheelRunsWhatIsDue() {
        let origin = ContinuousClock.now
        let wheel = TimeoutWheel(resolution: .milliseconds(10), origin: origin)
        let fired = Mutex<[Int]>([])
        wheel.schedule(at: origin + .milliseconds(25)) { fired.withLock { $0.append(1) } }  // tick 3
        wheel.schedule(at: origin + .milliseconds(30)) { fired.withLock { $0.append(2) } }  // tick 3
        wheel.schedule(at: origin + .seconds(3_600)) { fired.withLock { $0.append(3) } }  // tick 360,000
        wheel.runDue(through: 2)
        #expect(fired.withLock { $0 }.isEmpty)
        wheel.runDue(through: 3)
        #expect(fired.withLock { $0 }.sorted() == [1, 2])
        // A deadline already passed lands on the next tick to run.
        wheel.schedule(at: origin) { fired.withLock { $0.append(4) } }
        wheel.runDue(through: 4)
        #expect(fired.withLock { $0 }.sorted() == [1, 2, 4])
        wheel.runDue(through: 1_000_000)
        #expect(fired.withLock { $0 }.sorted() == [1, 2, 3, 4])
    }

    @Test("a wait ends with the element pushed before its deadline; its stale expiry leaves the next wait alone")
    func elementBeatsDeadline() async {
        let wheel = TimeoutWheel(resolution: .milliseconds(10))
        let inbox = Inbox<Int>(timeouts: wheel)
        async let first = inbox.next(timeout: .seconds(3_600))
        inbox.push(1)
        #expect(await first == 1)
        // Every expiry scheduled so far runs now: none may end the next wait.
        wheel.runDue(through: 1_000_000)
        async let second = inbox.next(timeout: .seconds(3_600))
        inbox.push(2)
        #expect(await second == 2)
    }

    @Test("a wait with nothing arriving ends at its deadline while the wheel ticks, and at once after it stopped")
    func deadlineEndsTheWait() async {
        let wheel = TimeoutWheel(resolution: .milliseconds(5))
        let stop = StopSignal()
        let inbox = Inbox<Int>(timeouts: wheel)
        await withDiscardingTaskGroup { group in
            group.addTask { await wheel.run(until: stop) }
            #expect(await inbox.next(timeout: .milliseconds(20)) == nil)
            stop.stop()
        }
        // The wheel has closed: a new wait times out at once rather than waiting for a tick.
        #expect(await inbox.next(timeout: .seconds(3_600)) == nil)
        inbox.push(3)
        #expect(await inbox.next(timeout: .seconds(3_600)) == 3)
    }
}
