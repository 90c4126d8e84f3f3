import ExtrasBase64

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
        // Found on the UTF-8 bytes, not with `split`: it runs on every authenticated request.
        let bytes = header.utf8
        guard let space = bytes.firstIndex(of: 0x20), space != bytes.startIndex, bytes.index(after: space) != bytes.endIndex else {
            return nil
        }
        sentScheme = String(header[..<space])
        scheme = sentScheme.lowercased()
        // Trimmed by hand: Foundation's trimmingCharacters(in:) goes through NSString on Linux and
        // showed up in the Web API read's profile.
        credentials = Self.trimmingBlanks(header[bytes.index(after: space)...])
    }

    /// The `Basic` credentials' username and password; `nil` when they are not base64 of `user:password`.
    var basic: (username: String, password: String)? {
        // Strict base64 with padding, as Foundation's `Data(base64Encoded:)` was, without going through `Data`.
        guard let bytes = try? Base64.decode(string: credentials), let decoded = String(validating: bytes, as: UTF8.self),
            let colon = decoded.utf8.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        return (String(decoded[..<colon]), String(decoded[decoded.utf8.index(after: colon)...]))
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
