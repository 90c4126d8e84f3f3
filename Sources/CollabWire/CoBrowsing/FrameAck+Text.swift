import Foundation

extension FrameAck {
    /// The acknowledgement a WebSocket text message holds, or `nil` for any other text.
    ///
    /// A device receives one acknowledgement per frame, so the common form — a flat object of the known
    /// keys whose strings have no escapes, as the server writes it — is read by a small scanner; any
    /// other text (escapes, whitespace, unknown keys, other events) goes to `JSONDecoder`. The scanner
    /// accepts only text `JSONDecoder` reads the same way (a property test compares the two on random
    /// and mutated input).
    public static func decode(text: String) -> FrameAck? {
        var text = text
        if let fast = text.withUTF8({ bytes in
            var scanner = FrameAckScanner(bytes: bytes)
            return scanner.scan()
        }) {
            return fast.type.hasPrefix("frame.") ? fast : nil
        }
        guard let ack = try? JSONDecoder().decode(FrameAck.self, from: Data(text.utf8)), ack.type.hasPrefix("frame.") else { return nil }
        return ack
    }
}

/// Reads `{"key":value,…}` with string values free of escapes and control characters and integer
/// values, for FrameAck's keys only, with no whitespace; gives up (`nil`) on anything else.
struct FrameAckScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private static let keys = ["type", "sessionId", "sequence", "retryAfterMs", "reason"]

    mutating func scan() -> FrameAck? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var type: String?
        var sessionId: String?
        var sequence: UInt32?
        var retryAfterMs: Int64?
        var reason: String?
        var seen: UInt8 = 0  // one bit per key: a repeated key is left to JSONDecoder
        if take(UInt8(ascii: "}")) { return nil }  // `type` is required
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), let bit = Self.keys.firstIndex(of: key), seen & (1 << bit) == 0 else { return nil }
            seen |= 1 << bit
            switch key {
            case "type": guard let value = string() else { return nil }; type = value
            case "sessionId": guard let value = string() else { return nil }; sessionId = value
            case "reason": guard let value = string() else { return nil }; reason = value
            case "sequence":
                guard let value = integer(maxDigits: 10), let narrow = UInt32(exactly: value) else { return nil }
                sequence = narrow
            case "retryAfterMs": guard let value = integer(maxDigits: 18) else { return nil }; retryAfterMs = value
            default: return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), index == bytes.count, let type else { return nil }
        return FrameAck(type: type, sessionId: sessionId, sequence: sequence, retryAfterMs: retryAfterMs, reason: reason)
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A string without escapes or control characters.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// A JSON integer (no fraction or exponent, no leading zero) of at most `maxDigits` digits.
    private mutating func integer(maxDigits: Int) -> Int64? {
        let negative = take(UInt8(ascii: "-"))
        let start = index
        var value: Int64 = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), index - start < maxDigits {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        guard digits > 0, !(digits > 1 && bytes[start] == UInt8(ascii: "0")), !(negative && value == 0) else { return nil }
        // More digits than allowed, a fraction or an exponent: not the common form.
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index])
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            return nil
        }
        return negative ? -value : value
    }
}
