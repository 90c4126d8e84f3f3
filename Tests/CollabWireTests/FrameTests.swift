import CollabWire
import Foundation
import Testing

@Suite("Co-browsing frames")
struct FrameTests {
    @Test("the MCF1 header round-trips and refuses garbage")
    func header() throws {
        let header = FrameHeader(
            sessionId: "session-1", sequence: 42, captureTime: 1_800_000_000_123, width: 1170, height: 2532,
            privateAreas: [PrivateArea(x: 10, y: 20, width: 300, height: 40)])
        let image = Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3])
        let message = header.encode(image: image)
        let (decoded, decodedImage) = try FrameHeader.decode(message)
        #expect(decoded == header)
        #expect(decodedImage == image)
        #expect(throws: FrameHeader.DecodingError.badMagic) { try FrameHeader.decode(Data("NOPE....".utf8)) }
        #expect(throws: FrameHeader.DecodingError.tooShort) { try FrameHeader.decode(message.prefix(12)) }
        var future = message
        future[4] = 9
        #expect(throws: FrameHeader.DecodingError.unsupportedVersion(9)) { try FrameHeader.decode(future) }
        #expect(FrameImageFormat(signatureOf: image) == .jpeg)
        #expect(FrameImageFormat(signatureOf: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])) == .png)
        #expect(FrameImageFormat(signatureOf: Data("GIF89a".utf8)) == nil)
    }

    @Test("the rate limiter: on schedule with a tolerance of a quarter interval, and early frames do not add up")
    func limiter() {
        var limiter = FrameRateLimiter()
        #expect(FrameRateLimiter.interval(fps: 5) == 200)
        #expect(FrameRateLimiter.tolerance(fps: 5) == 50)
        #expect(FrameRateLimiter.tolerance(fps: 1) == 50)
        #expect(FrameRateLimiter.tolerance(fps: 20) == 12)
        #expect(limiter.admit(at: 1_000, fps: 5) == nil)
        #expect(limiter.admit(at: 1_100, fps: 5) == 50)
        #expect(limiter.admit(at: 1_149, fps: 5) == 1)
        #expect(limiter.admit(at: 1_150, fps: 5) == nil, "50 ms early is within the tolerance")
        // The next one is due on the schedule (1400), not 200 ms after the early one.
        #expect(limiter.admit(at: 1_300, fps: 5) == 50)
        #expect(limiter.admit(at: 1_350, fps: 5) == nil)

        // A delayed frame followed by an on-time one is not throttled...
        var jittery = FrameRateLimiter()
        #expect(jittery.admit(at: 0, fps: 5) == nil)
        #expect(jittery.admit(at: 240, fps: 5) == nil, "40 ms late")
        #expect(jittery.admit(at: 400, fps: 5) == nil, "only 160 ms after the late one, but on schedule")
        // ...while a sender that is always early cannot exceed the rate for long.
        var eager = FrameRateLimiter()
        var accepted = 0
        for tick in 0..<100 where eager.admit(at: Int64(tick) * 180, fps: 5) == nil { accepted += 1 }
        #expect(accepted <= 1 + (99 * 180 + 50) / 200, "at most the rate over the whole run")
    }
}
