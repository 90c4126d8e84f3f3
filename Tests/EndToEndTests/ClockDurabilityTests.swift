import CollabClient
import CollabWire
import Foundation
import Testing

/// The virtual clock is stored like the rest of the state: a change the control API acknowledged
/// outlives `kill -9` (the server binary as a process on SQLite).
@Suite("Virtual clock: durability", .serialized)
struct ClockDurabilityTests {
    @Test("a frozen, advanced clock, a running offset and a snapshot's clock each survive kill -9; a full reset stores the system time")
    func killNine() async throws {
        let directory = try temporaryDirectory()
        let arguments = ["--storage", "sqlite:\(directory.path)/state.sqlite", "--control-token", "clock-token"]
        let day: Int64 = 24 * 3_600_000

        // Frozen a day ahead: the same instant after the restart.
        let first = try await ServerProcess(arguments: arguments)
        let frozen = try await control(first).changeClock(ClockChange(advanceMillis: day, frozen: true))
        #expect(frozen.frozen && frozen.offset >= day - 60_000)
        first.signal(SIGKILL)
        #expect(try await first.waitForExit() != 0)

        let second = try await ServerProcess(arguments: arguments)
        let afterFreeze = try await control(second).clock()
        #expect(afterFreeze.frozen)
        #expect(afterFreeze.now == frozen.now, "the frozen instant was stored")

        // Running again two days ahead of the system time: the offset stays.
        let running = try await control(second).changeClock(ClockChange(advanceMillis: day, frozen: false))
        #expect(!running.frozen)
        let offset = running.offset
        second.signal(SIGKILL)
        #expect(try await second.waitForExit() != 0)

        let third = try await ServerProcess(arguments: arguments)
        let afterRun = try await control(third).clock()
        #expect(!afterRun.frozen)
        // `offset` is read against the system time twice, a millisecond or so apart.
        #expect(abs(afterRun.offset - offset) < 1_000, "the running offset was stored (\(afterRun.offset) vs \(offset))")

        // A full reset puts the clock back to the system time, and that is stored too.
        let snapshot = try await control(third).exportSnapshot()
        _ = try await control(third).reset()
        third.signal(SIGKILL)
        #expect(try await third.waitForExit() != 0)
        let fourth = try await ServerProcess(arguments: arguments)
        let afterReset = try await control(fourth).clock()
        #expect(!afterReset.frozen && abs(afterReset.offset) < 1_000)

        // A server snapshot brings its clock back (running two days ahead), stored with its records.
        _ = try await control(fourth).importSnapshot(snapshot)
        fourth.signal(SIGKILL)
        #expect(try await fourth.waitForExit() != 0)
        let fifth = try await ServerProcess(arguments: arguments)
        let afterImport = try await control(fifth).clock()
        #expect(!afterImport.frozen)
        #expect(abs(afterImport.offset - offset) < 1_000, "the snapshot's offset was stored (\(afterImport.offset) vs \(offset))")
        fifth.signal(SIGTERM)
        #expect(try await fifth.waitForExit() == 0)
    }

    private func control(_ server: ServerProcess) -> ControlClient {
        ControlClient(baseURL: server.baseURL, credentials: .bearer("clock-token"))
    }
}
