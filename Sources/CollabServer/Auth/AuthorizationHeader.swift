import Foundation

/// An `Authorization` header read once: its scheme and credentials, and a `Basic` pair. The
/// authentication middleware checks what it names; the journal only asks whose account it names.
struct AuthorizationHeader {
    /// The scheme, lower case (`basic`, `bearer`, …).
    let scheme: String
    /// The scheme as sent, for an error that names it.
    let sentScheme: String
    /// The credentials after the scheme, without surrounding blanks.
    let credentials: String

    /// Splits `header` into scheme and credentials; `nil` when there are not both.
    init?(_ header: String) {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        sentScheme = String(parts[0])
        scheme = sentScheme.lowercased()
        // Trimmed by hand: Foundation's trimmingCharacters(in:) goes through NSString on Linux and
        // showed up in the Web API read's profile.
        credentials = Self.trimmingBlanks(parts[1])
    }

    /// The `Basic` credentials' username and password; `nil` when they are not base64 of `user:password`.
    var basic: (username: String, password: String)? {
        guard let decoded = Data(base64Encoded: credentials).flatMap({ String(data: $0, encoding: .utf8) }),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        return (String(decoded[..<colon]), String(decoded[decoded.index(after: colon)...]))
    }

    /// `text` without leading and trailing spaces and tabs, found on its UTF-8 bytes.
    static func trimmingBlanks(_ text: Substring) -> String {
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while start < end, isBlank(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isBlank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return String(text[start..<end])
    }
}
