public import AsyncHTTPClient

extension HTTPClient {
    /// The HTTP client CollabClient's clients use unless given one: one per process, never shut down (like
    /// `HTTPClient.shared`, with the same configuration otherwise).
    ///
    /// A connection that cannot be made — refused, a host that does not resolve, a TLS handshake that
    /// fails — fails the request at once, as the SDK's `URLSession` does. `HTTPClient.shared` tries to
    /// connect again and again until the request's timeout (30 s by default here), so a server that is not
    /// running looked like a server that hangs.
    public static let collab: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
}
