import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 request over a plain TCP socket, read until the server closes: what a client sees on
/// the socket (the bytes, and how the connection ended), for the connection-level faults.
struct RawHTTPExchange: Sendable {
    /// Every byte received.
    var received: [UInt8]
    /// `errno` of the read that ended the exchange (`ECONNRESET` for a reset); `nil` for an orderly close.
    var failure: Int32?

    var text: String { String(decoding: received, as: UTF8.self) }

    /// The status line, headers and body, split at the first blank line.
    var head: String { text.components(separatedBy: "\r\n\r\n").first ?? "" }
    var body: [UInt8] {
        guard let end = text.range(of: "\r\n\r\n") else { return [] }
        return Array(received[text.utf8.distance(from: text.startIndex, to: end.upperBound)...])
    }
    /// The `Content-Length` the server announced.
    var contentLength: Int? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
    }

    /// Sends `request` to 127.0.0.1:`port` on a thread of its own (the reads block) and reads until
    /// the server closes or resets the connection (at most 10 s).
    static func exchange(_ request: String, port: Int) async -> RawHTTPExchange {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: blockingExchange(request, port: port)) }.start()
        }
    }

    private static func blockingExchange(_ request: String, port: Int) -> RawHTTPExchange {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connectLoopback(fd, port: port) else { return RawHTTPExchange(received: [], failure: errno) }
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[0..<count]
            } else if count == 0 {
                return RawHTTPExchange(received: received, failure: nil)
            } else {
                return RawHTTPExchange(received: received, failure: errno)
            }
        }
    }
}

/// Connects the TCP socket `fd` to 127.0.0.1:`port`; `false` with `errno` set when it fails.
func connectLoopback(_ fd: Int32, port: Int) -> Bool {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}
