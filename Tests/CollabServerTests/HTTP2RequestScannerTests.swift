import NIOCore
import Testing

@testable import CollabServer

/// The connection guard's look for an HTTP/2 connection's first request (its header timeout ends there).
@Suite("HTTP/2 request scanner")
struct HTTP2RequestScannerTests {
    static func frame(type: UInt8, payload: [UInt8]) -> [UInt8] {
        [UInt8(payload.count >> 16), UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF), type, 0, 0, 0, 0, 1] + payload
    }

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// SETTINGS with one setting, a WINDOW_UPDATE, then a PING whose payload holds the HEADERS type byte.
    static let beforeRequest = frame(type: 0x4, payload: [0, 3, 0, 0, 0, 100]) + frame(type: 0x8, payload: [0, 0, 1, 0])
        + frame(type: 0x6, payload: [1, 1, 1, 1, 1, 1, 1, 1])

    @Test("a HEADERS frame after the preface and other frames is found, however the bytes are split")
    func findsTheFirstRequest() {
        let bytes = Self.preface + Self.beforeRequest + Self.frame(type: 0x1, payload: [0x82, 0x87])
        for chunk in [1, 2, 7, 9, 24, 1000] {
            var scanner = HTTP2RequestScanner()
            var found: Int?
            for (index, start) in stride(from: 0, to: bytes.count, by: chunk).enumerated() {
                let piece = ByteBuffer(bytes: bytes[start..<min(start + chunk, bytes.count)])
                if scanner.sawRequest(in: piece) {
                    found = index
                    break
                }
            }
            let headersStart = Self.preface.count + Self.beforeRequest.count
            // Found once the HEADERS frame's 9-byte header is complete.
            #expect(found == (headersStart + 8) / chunk, "chunks of \(chunk) bytes")
        }
    }

    @Test("frames that are no request, and payload bytes that look like one, are passed over")
    func noRequest() {
        var scanner = HTTP2RequestScanner()
        let saw = scanner.sawRequest(in: ByteBuffer(bytes: Self.preface + Self.beforeRequest))
        #expect(!saw)
    }
}
