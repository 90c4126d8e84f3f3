import CollabCore
import CollabWire
import Foundation
import Testing

@Suite("Co-browsing frames")
struct FrameTests {
    @Test("the MCF1 header round-trips and refuses garbage")
    func header() throws {
        let header = FrameHeader(sessionId: "session-1", sequence: 42, captureTime: 1_800_000_000_123, width: 1170, height: 2532, privateAreas: [PrivateArea(x: 10, y: 20, width: 300, height: 40)])
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

    @Test("the rate limiter: 1000/fps ms apart, with a tolerance of 10 % up to 10 ms")
    func limiter() {
        var limiter = FrameRateLimiter()
        #expect(FrameRateLimiter.interval(fps: 5) == 200)
        #expect(FrameRateLimiter.tolerance(fps: 5) == 10)
        #expect(FrameRateLimiter.tolerance(fps: 50) == 2)
        #expect(limiter.admit(at: 1_000, fps: 5) == nil)
        #expect(limiter.admit(at: 1_100, fps: 5) == 90)
        #expect(limiter.admit(at: 1_189, fps: 5) == 1)
        #expect(limiter.admit(at: 1_190, fps: 5) == nil, "10 ms early is within the tolerance")
        #expect(limiter.admit(at: 1_391, fps: 5) == nil)
    }

    @Test("the rate resolves along the cascade for the platform, default 5, clamped")
    func rate() {
        #expect(CoBrowsingConfiguration.maxFps(cascade: ConfigurationCascade(global: [:]), ios: true) == 5)
        let cascade = ConfigurationCascade(global: [CoBrowsingConfiguration.iosMaxFpsRate: "5", CoBrowsingConfiguration.androidMaxFpsRate: "8"], account: [CoBrowsingConfiguration.iosMaxFpsRate: "2"])
        #expect(CoBrowsingConfiguration.maxFps(cascade: cascade, ios: true) == 2)
        #expect(CoBrowsingConfiguration.maxFps(cascade: cascade, ios: false) == 8)
        #expect(CoBrowsingConfiguration.maxFps(cascade: ConfigurationCascade(global: [CoBrowsingConfiguration.iosMaxFpsRate: "1000"]), ios: true) == 60)
    }
}
