import Foundation
import Hummingbird
import HummingbirdCore

/// URLs as they may appear in logs: the query's secret-bearing parameters (tokens, API keys,
/// passwords) replaced by `REDACTED`, so a log line never carries a credential.
enum RedactedURL {
    /// A request URI for a log line.
    static func string(_ uri: URI) -> String {
        string(path: uri.path, query: uri.query)
    }

    /// Any URL text (a webhook endpoint, a URI) for a log line; credentials in its authority
    /// (`https://user:secret@host/`) are redacted too.
    static func string(_ url: String) -> String {
        let url = redactingUserInfo(url)
        guard let mark = url.firstIndex(of: "?") else { return url }
        let query = url[url.index(after: mark)...]
        let fragment = query.firstIndex(of: "#").map { String(query[$0...]) } ?? ""
        let bare = query.firstIndex(of: "#").map { query[..<$0] } ?? query
        return string(path: String(url[..<mark]), query: String(bare)) + fragment
    }

    private static func redactingUserInfo(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return String(url[..<scheme.upperBound]) + "REDACTED" + String(url[at...])
    }

    private static func string(path: String, query: String?) -> String {
        guard let redacted = RequestJournal.redact(query: query) else { return path }
        return "\(path)?\(redacted)"
    }
}
