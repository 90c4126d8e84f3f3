/// The server of a load run could not be reached at all (refused, not resolvable, a TLS handshake that
/// fails): the run does not start, rather than count every operation of every device as failed.
public struct LoadServerUnreachable: Error, Sendable, CustomStringConvertible {
    /// The server's URL.
    public var url: String
    /// Why the request failed, as the client said.
    public var reason: String

    public var description: String { "the server at \(url) cannot be reached: \(reason)" }
}
