import Synchronization
import Testing

@testable import CollabServer

/// The turn-taking the clock-driven ticks run through: the control API's tick, arriving while a
/// periodic tick commits, answers only after that tick is done.
@Suite("One at a time")
struct OneAtATimeTests {
    /// What the bodies did, in order.
    final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var entries: [String] { lines.withLock { $0 } }
    }

    @Test("a caller arriving while a body runs waits for it to finish; callers run in arrival order", .timeLimit(.minutes(1)))
    func turnsInArrivalOrder() async throws {
        let turns = OneAtATime()
        let log = Log()
        let (entered, enteredInput) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseInput) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            await turns.run {
                log.append("first begins")
                enteredInput.yield()
                for await _ in release { break }
                log.append("first ends")
            }
        }
        for await _ in entered { break }
        let second = Task { await turns.run { log.append("second") } }
        while turns.waitingCount < 1 { await Task.yield() }
        let third = Task { await turns.run { log.append("third") } }
        while turns.waitingCount < 2 { await Task.yield() }
        #expect(log.entries == ["first begins"], "the others wait while the first runs")
        releaseInput.yield()
        await first.value
        await second.value
        await third.value
        #expect(log.entries == ["first begins", "first ends", "second", "third"])
        // Free again: a caller runs at once.
        await turns.run { log.append("later") }
        #expect(log.entries.last == "later")
    }
}
