/// Call identifiers are UUIDs, unlike other entities' 22-character ids: the SDK's CallKit bridge reports
/// a call to CallKit under a `UUID` and asks that the same one come back in every later callback, so a
/// call id travels unchanged from the server through a VoIP push into `CXProvider` and back.
public enum CallID {
    private static let hex = Array("0123456789ABCDEF")

    /// A new random (version 4, RFC 9562) UUID in its canonical upper-case form — what Foundation's
    /// `UUID().uuidString` prints, so `UUID(uuidString:)` on a device gives back the same text.
    public static func make(_ ids: EntityIDGenerator) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            var bits = ids.randomBits()
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
            }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        var text = ""
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append("-") }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return text
    }

    /// `text` as the server issues call ids (upper case), when it is a UUID in either case; `nil` otherwise.
    /// Kotlin's and Python's UUIDs print in lower case.
    public static func canonical(_ text: String) -> String? {
        isValid(text) ? text.uppercased() : nil
    }

    /// Whether `text` is a UUID in the 8-4-4-4-12 hexadecimal form (either case).
    public static func isValid(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex = (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
                guard isHex else { return false }
            }
        }
        return true
    }
}
