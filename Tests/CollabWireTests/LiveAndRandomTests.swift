import CollabWire
import Foundation
import Testing

@Suite("Live-socket messages and the seeded generator")
struct LiveAndRandomTests {
    @Test("a sync request is read only when well formed, of the sync type, with an id of 1 to 64 characters")
    func syncRequest() throws {
        let sent = String(decoding: try JSONEncoder().encode(LiveSyncRequest(id: "barrier-1")), as: UTF8.self)
        #expect(LiveSyncRequest.id(in: sent) == "barrier-1")
        #expect(LiveSyncRequest.id(in: #"{"type":"sync","id":""}"#) == nil)
        #expect(LiveSyncRequest.id(in: #"{"type":"sync","id":"\#(String(repeating: "x", count: 65))"}"#) == nil)
        #expect(LiveSyncRequest.id(in: #"{"type":"typing","id":"1"}"#) == nil)
        #expect(LiveSyncRequest.id(in: "sync") == nil)
        #expect(LiveSyncRequest.id(in: #"{"type":"sync","id":"1","pad":"\#(String(repeating: " ", count: 300))"}"#) == nil)
    }

    @Test("a live event round-trips; control messages have their own names")
    func liveEvent() throws {
        let event = LiveEvent(id: 7, type: "conversation.new_message", timestamp: 1_800_000_000_000, detail: ["reason": "test"])
        #expect(try JSONDecoder().decode(LiveEvent.self, from: JSONEncoder().encode(event)) == event)
        #expect(Set([LiveEvent.hello, LiveEvent.resync, LiveEvent.sync]).count == 3)
    }

    @Test("the same seed draws the same numbers; streams of one seed differ from each other")
    func seededRandom() {
        func draw(_ generator: SeededRandom, _ count: Int = 8) -> [UInt64] {
            var generator = generator
            return (0..<count).map { _ in generator.next() }
        }
        #expect(draw(SeededRandom(seed: 42)) == draw(SeededRandom(seed: 42)))
        #expect(draw(SeededRandom(seed: 42)) != draw(SeededRandom(seed: 43)))
        #expect(draw(.stream(0, seed: 1)) == draw(.stream(0, seed: 1)))
        #expect(draw(.stream(0, seed: 1)) != draw(.stream(1, seed: 1)))
        // SplitMix64's first output for seed 0 (the published reference value).
        var zero = SeededRandom(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
    }
}
