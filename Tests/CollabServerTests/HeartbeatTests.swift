import CollabClient
import CollabCore
import CollabStore
import CollabWire
import Foundation
import Testing

@testable import CollabServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Live connection heartbeats")
struct HeartbeatTests {
    /// Opens a WebSocket by hand and then never reads or answers again: a dead peer.
    func openSilentWebSocket(port: Int, path: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0, String(decoding: buffer[0..<count], as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw POSIXError(.EPROTO) }
        return fd
    }

    @Test("a peer that stops answering pings is disconnected and its subscription released")
    func deadPeer() async throws {
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, storage: .memory, seed: queueSeed, controlToken: "test-control-token", passwordHashCost: 4,
            // Long enough that a client on a loaded machine (the whole suite runs in parallel) still
            // answers in time; the silent peer never does.
            heartbeatInterval: .milliseconds(500)
        )
        let server = try await TestServer.start(configuration: configuration)
        do {
            let app = visitor(server, device: "silent-phone")
            let started = try await app.start()
            let hub = server.server.environment.events
            let baseline = hub.connectionCount
            let fd = try openSilentWebSocket(port: server.port, path: "/mobile/v1/events?token=\(started.token)")
            defer { close(fd) }
            var opened = false
            for _ in 0..<500 where !opened {
                opened = hub.connectionCount == baseline + 1
                if !opened { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(opened)
            var released = false
            for _ in 0..<1_000 where !released {
                released = hub.connectionCount == baseline
                if !released { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(released, "the silent connection was not dropped")
            // The client that does answer pings stays connected.
            #expect(app.liveConnection?.connectionCount == 1)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }
}
