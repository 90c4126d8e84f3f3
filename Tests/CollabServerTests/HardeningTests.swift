import AsyncHTTPClient
import CollabClient
import CollabPush
import CollabWire
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import CollabServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Findings of the adversarial probe (issue 16) that an in-process server shows; the rest run against
/// the real process in `Tests/adversarial`.
@Suite("Hardening", .serialized)
struct HardeningTests {
    @Test("an SSE outbox stream whose client went away is unsubscribed when its write fails")
    func sseUnsubscribesOnFailedWrite() async throws {
        try await TestServer.with(seed: queueSeed) { server in
            let outbox = server.server.pushes.outbox
            let scenario = try await PushScenario.make(server, device: "sse-gone", version: .notEncrypted)
            let baseline = outbox.subscriberCount
            // A raw client that reads the stream's first line and then disappears.
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(server.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            let request = "GET /_mock/v1/pushes/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-control-token\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), 0) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var received = ""
            while !received.contains("mock-collab push outbox") {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            #expect(received.hasPrefix("HTTP/1.1 200"))
            #expect(outbox.subscriberCount == baseline + 1)
            close(fd)
            // Each reply is a push the stream tries to write to the closed connection.
            var released = false
            for index in 0..<200 where !released {
                _ = try await scenario.agent.send("after close \(index)", in: scenario.conversationId)
                released = outbox.subscriberCount == baseline
                if !released { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(released, "the stream's subscription outlived its client")
        }
    }

    @Test("the anonymous ops routes answer whatever Authorization header comes with them")
    func opsIgnoreMalformedCredentials() async throws {
        try await InProcessServer.with(seed: queueSeed) { server in
            for path in ["/healthz", "/readyz", "/metrics", "/openapi.json"] {
                for value in ["garbage", "Bearer", "Basic !!!", "Bearer unknown"] {
                    let response = try await server.transport(.none).raw("GET", path, headers: [("Authorization", value)])
                    #expect(response.status == 200, "\(path) with '\(value)'")
                }
            }
            #expect(try await server.transport(.none).raw("GET", "/agent/v1/queue", headers: [("Authorization", "garbage")]).status == 401)
        }
    }
}
