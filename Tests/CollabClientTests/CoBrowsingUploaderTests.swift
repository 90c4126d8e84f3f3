import CollabWire
import Foundation
import Synchronization
import Testing

@testable import CollabClient

/// The uploader's decisions before anything is sent (unchanged frames, the rate limit), and what it
/// sends when a frame is due.
@Suite("Co-browsing uploader")
struct CoBrowsingUploaderTests {
    final class Clock: Sendable {
        let time = Mutex<Int64>(1_000_000)
        func now() -> Int64 { time.withLock { $0 } }
        func advance(_ milliseconds: Int64) { time.withLock { $0 += milliseconds } }
    }

    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 1])
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 2])

    static func accepting(_ request: ScriptedServer.Request) -> HTTPTransport.RawResponse {
        let sequence = request.header("x-frame-sequence").flatMap(UInt32.init)
        return ScriptedServer.json(200, FrameAck(type: "frame.accepted", sessionId: "s1", sequence: sequence))
    }

    @Test("an unchanged frame is not sent; a changed one waits for the rate limit (5 fps: 200 ms, 50 ms early is on time)")
    func decisions() async throws {
        try await ScriptedServer.with(Self.accepting) { server in
            let clock = Clock()
            let uploader = CoBrowsingUploader(
                client: VisitorClient(configuration: .init(baseURL: server.baseURL, apiKey: "k", deviceId: "d")), sessionId: "s1", maxFps: 5,
                now: { clock.now() }
            )
            let outcome1 = try await uploader.submit(image: Self.jpeg, width: 10, height: 20)
            #expect(outcome1 == .sent(FrameAck(type: "frame.accepted", sessionId: "s1", sequence: 1)))
            clock.advance(300)
            let outcome2 = try await uploader.submit(image: Self.jpeg, width: 10, height: 20)
            #expect(outcome2 == .unchanged, "the same image is not sent, however late")
            clock.advance(-200)
            let outcome3 = try await uploader.submit(image: Self.png, width: 10, height: 20)
            #expect(outcome3 == .tooEarly(50), "100 ms after the first: 50 ms early past the tolerance")
            clock.advance(50)
            let outcome4 = try await uploader.submit(image: Self.png, width: 10, height: 20)
            #expect(outcome4 == .sent(FrameAck(type: "frame.accepted", sessionId: "s1", sequence: 2)))
            // The second frame (at +150) set the schedule to +400. A changed rate applies from the next frame on:
            // the third, due at +400 less 50 ms, goes at +350 and puts the next at +1,400 (1 fps), so at +850
            // that one is 500 ms early past the tolerance.
            uploader.setMaxFps(1)
            clock.advance(200)
            let outcome5 = try await uploader.submit(image: Self.jpeg, width: 10, height: 20)
            #expect(outcome5 == .sent(FrameAck(type: "frame.accepted", sessionId: "s1", sequence: 3)))
            clock.advance(500)
            let outcome6 = try await uploader.submit(image: Self.png, width: 10, height: 20)
            #expect(outcome6 == .tooEarly(500))
            #expect(server.requests.compactMap { $0.header("x-frame-sequence") } == ["1", "2", "3"])
        }
    }

    @Test("a sent frame carries its sequence, capture time, size, private areas and the image's type")
    func request() async throws {
        try await ScriptedServer.with(Self.accepting) { server in
            let clock = Clock()
            let uploader = CoBrowsingUploader(
                client: VisitorClient(configuration: .init(baseURL: server.baseURL, apiKey: "k", deviceId: "d")), sessionId: "s1", maxFps: 5,
                now: { clock.now() }
            )
            _ = try await uploader.submit(image: Self.png, width: 1170, height: 2532, privateAreas: [PrivateArea(x: 1, y: 2, width: 3, height: 4)])
            let sent = try #require(server.requests.first)
            #expect(sent.method == "POST" && sent.uri == "/mobile/v1/cobrowsing/s1/frames")
            #expect(sent.header("Content-Type") == "image/png")
            #expect(sent.header("x-frame-sequence") == "1" && sent.header("x-frame-capture-time") == "1000000")
            #expect(sent.header("x-frame-width") == "1170" && sent.header("x-frame-height") == "2532")
            let areas = try JSONDecoder().decode([PrivateArea].self, from: Data(try #require(sent.header("x-private-areas")).utf8))
            #expect(areas == [PrivateArea(x: 1, y: 2, width: 3, height: 4)])
            #expect(sent.body == Self.png)
        }
    }

    @Test("the server's throttle answer (429 with an acknowledgement) is an outcome; other refusals throw")
    func answers() async throws {
        let throttled = FrameAck(type: "frame.throttled", sessionId: "s1", sequence: 1, retryAfterMs: 120)
        try await ScriptedServer.with({ request in
            request.header("x-frame-sequence") == "1"
                ? ScriptedServer.json(429, throttled) : ScriptedServer.json(404, #"{"type":"NOT_FOUND","message":"no session"}"#)
        }) { server in
            let clock = Clock()
            let uploader = CoBrowsingUploader(
                client: VisitorClient(configuration: .init(baseURL: server.baseURL, apiKey: "k", deviceId: "d")), sessionId: "s1", maxFps: 5,
                now: { clock.now() }
            )
            let outcome7 = try await uploader.submit(image: Self.jpeg, width: 1, height: 1)
            #expect(outcome7 == .sent(throttled))
            clock.advance(200)
            await #expect(throws: CollabClientError.self) { try await uploader.submit(image: Self.png, width: 1, height: 1) }
        }
    }
}
