import CollabTestSupport
import Testing

/// The bound the live tests put on waits that could otherwise hang a run (a replica that never accepts
/// a connection, a frame that never arrives).
@Suite("Test support: waits with a deadline")
struct DeadlineTests {
    @Test("a wait that ends in time gives its value")
    func inTime() async throws {
        let value = try await withDeadline(.seconds(30), "an immediate answer") { 42 }
        #expect(value == 42)
    }

    @Test("a wait that outlives its limit fails, naming what was awaited, and is cancelled")
    func late() async throws {
        let cancelled = ListBox<Bool>()
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(20), "a reply that never comes") {
                // Ends only when cancelled: the deadline's cancellation is what lets the call return.
                do {
                    try await Task.sleep(for: .seconds(3_600))
                } catch {
                    cancelled.append(error is CancellationError)
                }
            }
        }
        #expect(cancelled.all == [true])
    }
}
