import CollabClient
import CollabWire
import Foundation
import Synchronization
import Testing

/// Milliseconds the uploader's rate limiter reads, moved by the test.
final class ManualMillis: Sendable {
    private let value = Mutex<Int64>(1_000_000)
    var now: Int64 { value.withLock { $0 } }
    func advance(_ millis: Int64) { value.withLock { $0 += millis } }
}

/// The RGBA pixels of a PNG whose image data is deflate "stored" blocks (what ``CoBrowsingAPI`` sends),
/// read independently of the encoder: chunks, zlib header, stored blocks, filter bytes.
func storedPNGPixels(_ png: Data) throws -> (width: Int, height: Int, rgba: [UInt8]) {
    struct Malformed: Error {}
    let bytes = [UInt8](png)
    guard bytes.count > 8, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { throw Malformed() }
    func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
    var offset = 8
    var width = 0
    var height = 0
    var zlib: [UInt8] = []
    while offset + 8 <= bytes.count {
        let length = u32(offset)
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        let data = Array(bytes[(offset + 8)..<(offset + 8 + length)])
        if type == "IHDR" {
            width = u32(offset + 8)
            height = u32(offset + 12)
            guard data[8] == 8, data[9] == 6 else { throw Malformed() }
        }
        if type == "IDAT" { zlib += data }
        offset += 12 + length
    }
    var raw: [UInt8] = []
    var position = 2
    while position < zlib.count - 4 {
        let final = zlib[position] & 1
        guard zlib[position] & 0b110 == 0 else { throw Malformed() }
        let count = Int(zlib[position + 1]) | Int(zlib[position + 2]) << 8
        raw += zlib[(position + 5)..<(position + 5 + count)]
        position += 5 + count
        if final == 1 { break }
    }
    var rgba: [UInt8] = []
    for row in 0..<height {
        let start = row * (width * 4 + 1)
        guard raw[start] == 0 else { throw Malformed() }
        rgba += raw[(start + 1)..<(start + 1 + width * 4)]
    }
    return (width, height, rgba)
}

@Suite("CollabClient as the SDK: co-browsing with private views and areas")
struct ClientCoBrowsingAPITests {
    @Test("private views by tag and private areas by id are masked in every frame the agent receives, and declared")
    func privateViewsAndAreas() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let app = visitor(server, device: "private-phone")
            try await app.start()
            let agentA = try await agent(server, "agent-a")
            let conversation = try await app.startConversation(topic: "screen")
            _ = try await agentA.accept(conversation.id)
            let session = try await app.startCoBrowsing(in: conversation.id)
            let millis = ManualMillis()
            let uploader = CoBrowsingUploader(client: app, sessionId: session.id, maxFps: session.maxFps, now: { millis.now })
            let coBrowsing = CoBrowsingAPI(uploader: uploader)
            coBrowsing.addPrivateView(tag: 7)
            coBrowsing.addPrivateArea(id: "card-number", frame: PrivateArea(x: 0, y: 0, width: 4, height: 2))

            // Every pixel distinct from the mask: (x, y, 0x11, 0xFF).
            let width = 16
            let height = 8
            var rgba: [UInt8] = []
            for y in 0..<height { for x in 0..<width { rgba += [UInt8(x), UInt8(y), 0x11, 0xFF] } }
            let views = [7: PrivateArea(x: 10, y: 4, width: 3, height: 3), 8: PrivateArea(x: 0, y: 6, width: 2, height: 2)]
            let capture = ScreenCapture(width: width, height: height, rgba: rgba, views: views)
            func pixel(_ image: [UInt8], _ x: Int, _ y: Int) -> [UInt8] { Array(image[((y * width + x) * 4)..<((y * width + x) * 4 + 4)]) }

            guard case .sent(let ack) = try await coBrowsing.send(capture) else { Issue.record("the first frame was not sent"); return }
            #expect(ack.type == "frame.accepted")
            let first = try #require(try await agentA.latestFrame(session.id))
            let seen = try storedPNGPixels(first.image)
            #expect(seen.width == width && seen.height == height)
            #expect(pixel(seen.rgba, 0, 0) == CoBrowsingAPI.maskPixel, "private area")
            #expect(pixel(seen.rgba, 3, 1) == CoBrowsingAPI.maskPixel, "private area")
            #expect(pixel(seen.rgba, 11, 5) == CoBrowsingAPI.maskPixel, "private view 7")
            #expect(pixel(seen.rgba, 0, 7) == pixel(rgba, 0, 7), "view 8 is not private")
            #expect(pixel(seen.rgba, 5, 5) == pixel(rgba, 5, 5))
            #expect(coBrowsing.masks(for: capture) == [views[7]!, PrivateArea(x: 0, y: 0, width: 4, height: 2)])
            let stats = try await server.control.transport.send("GET", "/_mock/v1/cobrowsing/\(session.id)/stats", as: CoBrowsingStats.self)
            #expect(stats.privateAreas == [views[7]!, PrivateArea(x: 0, y: 0, width: 4, height: 2)], "the frame declared what it masked")

            // The view is shown again: the next frame (due on both clocks) carries its pixels.
            coBrowsing.removePrivateView(tag: 7)
            millis.advance(1_000)
            try await server.control.changeClock(ClockChange(advanceMillis: 1_000))
            guard case .sent(let second) = try await coBrowsing.send(capture) else { Issue.record("the second frame was not sent"); return }
            #expect(second.type == "frame.accepted")
            let latest = try #require(try await agentA.latestFrame(session.id))
            let shown = try storedPNGPixels(latest.image)
            #expect(pixel(shown.rgba, 11, 5) == pixel(rgba, 11, 5))
            #expect(pixel(shown.rgba, 0, 0) == CoBrowsingAPI.maskPixel, "the private area stays masked")

            // An unchanged screen is not sent again.
            millis.advance(1_000)
            #expect(try await coBrowsing.send(capture) == .unchanged)
        }
    }
}
