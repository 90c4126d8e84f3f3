import Foundation

/// The `redirectOnSuccess` targets a login may answer with: same-origin absolute paths only.
///
/// The vendor's spec calls the parameter a "redirection URL" and says nothing of its form; the mock
/// follows it only when it cannot leave the server: a path that starts with one `/`, made only of URL
/// characters (no backslash, no control character, no space), that stays such a path after
/// percent-decoding (so `/%2F/host` and `/%5Chost` do not count). Anything else — `//host`, `/\host`,
/// schemes, encoded variants — is ignored: the login still succeeds and answers its `LoginResult`
/// without a redirect, as it does for an absolute URL.
enum SameOriginRedirect {
    /// The longest redirect target followed.
    static let maximumLength = 2048

    /// `target` when it is a same-origin absolute path, else `nil`.
    static func location(_ target: String?) -> String? {
        guard let target, !target.isEmpty, target.utf8.count <= maximumLength else { return nil }
        var text = target
        // Decode a few times: a browser or proxy may decode once more than we expect.
        for _ in 0..<3 {
            guard isSafePath(text), let decoded = text.removingPercentEncoding else { return nil }
            if decoded == text { return target }
            text = decoded
        }
        // Still encoded after three rounds: nobody needs that.
        return nil
    }

    private static let allowed: Set<UInt8> = Set(
        Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?#%".utf8)
    )

    /// One `/` then a path (not `//` or `/\`), only RFC 3986 characters, nothing a browser reads as a host.
    private static func isSafePath(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") || bytes[1] == UInt8(ascii: "\\") { return false }
        return bytes.allSatisfy { allowed.contains($0) }
    }
}
