import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An upload over a plain TCP socket that sends its head and the first bytes of its body and then holds
/// on: what a slow or stalled client looks like to the server. Reads block, so they run on a thread.
final class HeldUpload: Sendable {
    let fd: Int32

    /// Connects to 127.0.0.1:`port` and sends `head` (without the blank line) and `firstBytes`.
    init(port: Int, head: [String], firstBytes: [UInt8]) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard connectLoopback(fd, port: port) else {
            posixClose(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
        send(Array((head.joined(separator: "\r\n") + "\r\n\r\n").utf8) + firstBytes)
    }

    /// A visitor's upload of `name` to `conversationId`, announcing `length` bytes and sending the first `sent`.
    convenience init(port: Int, token: String, conversationId: String, name: String = "held.png", length: Int = 100_000, sent: Int = 8) throws {
        let head = [
            "POST /mobile/v1/conversations/\(conversationId)/files?name=\(name) HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer \(token)",
            "Content-Type: image/png", "Content-Length: \(length)",
        ]
        try self.init(port: port, head: head, firstBytes: Array(pngBytes(sent)))
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { posixSend(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// The status of the answer, once its head arrived; `nil` when the server closed without one or none
    /// came within `timeout` seconds (a bound for a broken server, not a measurement).
    func status(timeout: Int = 20) async -> Int? {
        await withCheckedContinuation { continuation in
            Thread { [fd] in
                var limit = timeval(tv_sec: timeout, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while !received.contains(0x0A) {
                    let count = recv(fd, &buffer, buffer.count, 0)
                    guard count > 0 else { break }
                    received += buffer[0..<count]
                }
                let line = String(decoding: received, as: UTF8.self).split(separator: "\r\n").first ?? ""
                continuation.resume(returning: line.split(separator: " ").dropFirst().first.flatMap { Int($0) })
            }.start()
        }
    }

    /// Whether the server closes the connection (a read reaches the end of the stream, or a reset)
    /// within `timeout` seconds, whatever else it still sends; `false` when it stays open that long
    /// (a bound for a broken server, not a measurement).
    func closedByServer(timeout: Int = 20) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread { [fd] in
                var limit = timeval(tv_sec: timeout, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count > 0 { continue }
                    continuation.resume(returning: count == 0 || errno == ECONNRESET)
                    return
                }
            }.start()
        }
    }

    /// Shuts the socket down (which also ends a read waiting on it) and closes it.
    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        posixClose(fd)
    }
}

// The socket calls under names the methods above do not shadow.
private func posixSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, bytes, count, 0)
    #endif
}

private func posixClose(_ fd: Int32) { _ = close(fd) }
