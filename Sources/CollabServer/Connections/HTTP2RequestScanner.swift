import NIOCore

/// Finds the first request of an HTTP/2 connection in its bytes: the first HEADERS frame after the
/// client preface.
///
/// The connection guard needs to know when the header timeout stops applying, and NIOHTTP2's inline
/// stream multiplexer keeps its stream-created events to itself; so the guard reads the frame
/// boundaries (9-byte headers, RFC 9113 §4.1) of what passes it until the first HEADERS frame, then
/// stops looking.
struct HTTP2RequestScanner {
    /// Bytes of the client preface (`PRI * HTTP/2.0…`, 24 bytes) still to pass.
    private var prefaceLeft = 24
    /// Payload bytes of the current frame still to pass.
    private var payloadLeft = 0
    /// The frame header read so far.
    private var header: [UInt8] = []

    /// Reads `buffer` on; whether a HEADERS frame began in it.
    mutating func sawRequest(in buffer: ByteBuffer) -> Bool {
        var bytes = buffer.readableBytesView[...]
        while !bytes.isEmpty {
            if prefaceLeft > 0 || payloadLeft > 0 {
                let passed = min(prefaceLeft > 0 ? prefaceLeft : payloadLeft, bytes.count)
                if prefaceLeft > 0 { prefaceLeft -= passed } else { payloadLeft -= passed }
                bytes = bytes.dropFirst(passed)
                continue
            }
            let taken = min(9 - header.count, bytes.count)
            header += bytes.prefix(taken)
            bytes = bytes.dropFirst(taken)
            guard header.count == 9 else { continue }
            if header[3] == 0x1 { return true }  // HEADERS
            payloadLeft = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
            header.removeAll(keepingCapacity: true)
        }
        return false
    }
}
