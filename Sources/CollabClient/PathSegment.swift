import Foundation

extension String.StringInterpolation {
    /// `value` as one percent-encoded path segment: `/accounts/\(pathSegment: "Acme Corp")` is
    /// `/accounts/Acme%20Corp` (a `/`, `?`, `#` or `%` in it stays part of the segment).
    mutating func appendInterpolation(pathSegment value: String) {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/%?#;")
        appendLiteral(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
    }
}
