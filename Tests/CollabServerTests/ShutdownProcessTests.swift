import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Graceful shutdown of the real process with clients that would hold it open (issue 16, item 4).
@Suite("Shutdown with open connections", .serialized)
struct ShutdownProcessTests {
    @Test("SIGTERM with a live WebSocket, a long-poll, a half-sent request and a slow head open exits 0; the WebSocket hears 1001")
    func shutdownWithOpenConnections() async throws {
        let server = try await ServerProcess(arguments: [
            "--storage", "memory", "--password-hash-cost", "4", "--control-token", "ctl", "--shutdown-timeout", "2",
            "--idle-timeout", "300", "--header-timeout", "300",
        ])
        // A started client's live WebSocket, opened by hand and never read until the end.
        var start = HTTPClientRequest(url: server.baseURL + "/mobile/v1/clients")
        start.method = .POST
        start.headers.add(name: "Content-Type", value: "application/json")
        start.body = .bytes(ByteBuffer(string: #"{"apiKey":"demo-api-key","deviceId":"shutdown-phone","device":{"os":"iOS"}}"#))
        let started = try await HTTPClient.shared.execute(start, timeout: .seconds(10))
        let body = try await started.body.collect(upTo: 1 << 20)
        let token = try #require(try JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any])["token"] as? String
        let webSocket = try RawSocket(port: server.port)
        try webSocket.write(
            "GET /mobile/v1/events?token=\(token) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        let handshake = String(decoding: try webSocket.receive(until: { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }), as: UTF8.self)
        #expect(handshake.hasPrefix("HTTP/1.1 101"), "\(handshake)")
        // A long-poll that would wait a minute, a request whose body never finishes, a head that never ends.
        var poll = HTTPClientRequest(url: server.baseURL + "/_mock/v1/pushes/wait?timeoutMs=60000")
        poll.headers.add(name: "Authorization", value: "Bearer ctl")
        let longPoll = Task { try await HTTPClient.shared.execute(poll, timeout: .seconds(120)) }
        let halfSent = try RawSocket(port: server.port)
        try halfSent.write("POST /app/rest/v4/namedareas/create HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YWRtaW46YWRtaW4=\r\nContent-Length: 100\r\n\r\n{")
        let slowHead = try RawSocket(port: server.port)
        try slowHead.write("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a")
        try await Task.sleep(for: .milliseconds(300))  // lets the long-poll reach the server

        server.signal(SIGTERM)
        #expect(try await server.waitForExit(timeout: .seconds(30)) == 0)
        let answer = try await longPoll.value
        #expect(answer.status == .serviceUnavailable, "the long-poll was not ended by the shutdown")
        // The WebSocket's last frame is a close with code 1001 (going away).
        let received = try webSocket.receive(until: { _ in false })
        let close = received.lastIndex(of: 0x88).map { Array(received[$0...]) } ?? []
        #expect(close.count >= 4 && close[2] == 0x03 && close[3] == 0xE9, "no 1001 close frame in \(received.suffix(60))")
    }
}

/// A blocking loopback TCP socket for hand-made requests.
final class RawSocket {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func write(_ text: String) throws {
        let sent = text.withCString { send(fd, $0, strlen($0), 0) }
        guard sent >= 0 else { throw POSIXError(.EPIPE) }
    }

    /// Reads until `done` says so, the peer closes, or 10 s pass without data.
    func receive(until done: ([UInt8]) -> Bool) throws -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !done(received) {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return received
    }
}
