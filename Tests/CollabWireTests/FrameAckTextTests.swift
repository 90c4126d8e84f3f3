import CollabWire
import Foundation
import Testing

/// `FrameAck.decode(text:)`: its scanner for the common form must read every text exactly as
/// `JSONDecoder` does, and leave everything else to it.
@Suite("Frame acknowledgement text")
struct FrameAckTextTests {
    private func reference(_ text: String) -> FrameAck? {
        guard let ack = try? JSONDecoder().decode(FrameAck.self, from: Data(text.utf8)), ack.type.hasPrefix("frame.") else { return nil }
        return ack
    }

    private func randomAck(_ random: inout SeededRandom) -> FrameAck {
        let types = ["frame.accepted", "frame.throttled", "frame.duplicate", "frame.rejected", "frame.x", "typing"]
        let texts = ["s-1", "", "a/b", "quote \" inside", "back\\slash", "ü — 表", "line\nbreak", "tab\t"]
        func maybe<T>(_ value: T, _ random: inout SeededRandom) -> T? { random.next() % 3 == 0 ? nil : value }
        return FrameAck(
            type: types[Int(random.next() % UInt64(types.count))],
            sessionId: maybe(texts[Int(random.next() % UInt64(texts.count))], &random),
            sequence: maybe(UInt32(truncatingIfNeeded: random.next() >> UInt64(random.next() % 64)), &random),
            retryAfterMs: maybe(Int64(truncatingIfNeeded: random.next() % 1_000_000_000_000), &random),
            reason: maybe(texts[Int(random.next() % UInt64(texts.count))], &random)
        )
    }

    @Test("what the server writes reads back the same, escapes and all")
    func roundTrip() throws {
        var random = SeededRandom(seed: 7)
        for _ in 0..<2_000 {
            let ack = randomAck(&random)
            let text = String(decoding: try JSONEncoder().encode(ack), as: UTF8.self)
            #expect(FrameAck.decode(text: text) == reference(text), "\(text)")
            #expect(FrameAck.decode(text: text) == (ack.type.hasPrefix("frame.") ? ack : nil), "\(text)")
        }
    }

    @Test("mutated and hand-made texts decode exactly as JSONDecoder decodes them")
    func agreesWithJSONDecoder() throws {
        let handMade = [
            #"{"type":"frame.accepted","sequence":01}"#, #"{"type":"frame.accepted","sequence":-0}"#,
            #"{"type":"frame.accepted","sequence":4294967296}"#, #"{"type":"frame.accepted","sequence":1.0}"#,
            #"{"type":"frame.accepted","sequence":1e2}"#, #"{"type":"frame.accepted","type":"frame.rejected"}"#,
            #"{"type":"frame.accepted","extra":1}"#, #"{ "type":"frame.accepted"}"#, #"{"sequence":1}"#, "{}", "",
            #"{"type":"frame.accepted","retryAfterMs":9223372036854775807}"#, #"{"type":"frame.accepted"}x"#,
            #"{"type":"frame.accepted","sessionId":null}"#, #"{"type":"frame.accepted",}"#, #"{"type":"frame.\u0061"}"#,
        ]
        for text in handMade { #expect(FrameAck.decode(text: text) == reference(text), "\(text)") }
        var random = SeededRandom(seed: 11)
        let alphabet = Array(#"{}[]",:-.e0123456789 \abcdefghijklmnopqrstuvwxyz"#.utf8)
        for _ in 0..<20_000 {
            var bytes = Array(try JSONEncoder().encode(randomAck(&random)))
            for _ in 0...(random.next() % 3) {
                let at = Int(random.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: bytes.insert(byte, at: at)
                case 1: if at < bytes.count { bytes[at] = byte }
                default: if at < bytes.count { bytes.remove(at: at) }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(FrameAck.decode(text: text) == reference(text), "\(text)")
        }
    }
}
