import AsyncHTTPClient
import CollabPush
import ServiceLifecycle

/// The server's outbound HTTP clients, one per purpose, shut down when the server stops. Listed first
/// among the services, so it stops last: after everything that calls out has finished. Redirects are
/// never followed: allowlists are checked for the registered endpoint only, and a redirect could lead
/// anywhere (a 3xx answer is the caller's to judge).
final class OutboundClients: Service {
    /// Webhook deliveries (registrations' events, bots' events).
    let webhooks = SharedHTTPClient(configuration: OutboundClients.noRedirects)
    /// Requests to dialog bots that wait for an answer (onboarding offers, pings).
    let bots = SharedHTTPClient(configuration: OutboundClients.noRedirects)
    /// File-upload and message interceptors.
    let interceptors = SharedHTTPClient(configuration: OutboundClients.noRedirects)

    private static var noRedirects: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        // A refused connection or a host that does not resolve fails the attempt at once: a webhook's retries
        // are the dispatcher's own, with their backoff and each attempt in the delivery log, and a bot or an
        // interceptor that is not running is told apart from one that is slow (the client would otherwise try to
        // connect again and again until the request's timeout, and only then report the first error).
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    func run() async throws {
        try? await gracefulShutdown()
        for client in [webhooks, bots, interceptors] { await client.shutdown() }
    }
}
