import Hummingbird
import HummingbirdCore

/// URLs as they may appear in logs: the query's secret-bearing parameters (tokens, API keys,
/// passwords) replaced by `REDACTED`, so a log line never carries a credential.
enum RedactedURL {
    /// A request URI for a log line.
    static func string(_ uri: URI) -> String {
        string(path: uri.path, query: uri.query)
    }

    /// Any URL text (a webhook endpoint, a URI) for a log line.
    static func string(_ url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return url }
        let query = url[url.index(after: mark)...]
        let fragment = query.firstIndex(of: "#").map { String(query[$0...]) } ?? ""
        let bare = query.firstIndex(of: "#").map { query[..<$0] } ?? query
        return string(path: String(url[..<mark]), query: String(bare)) + fragment
    }

    private static func string(path: String, query: String?) -> String {
        guard let redacted = RequestJournal.redact(query: query) else { return path }
        return "\(path)?\(redacted)"
    }
}
