import CollabCore
import CollabTLS
import Hummingbird
import NIOCore
import NIOSSL
import X509

/// Reads the client certificate of a mutual-TLS connection into the request trace (so the journal
/// shows which client called) and, when client authentication is on, answers the device API
/// (`/mobile/v1/…`) with 401 `AUTHORIZATION` for a request that presented none.
///
/// The handshake already verified a presented certificate against the client CA; this middleware only
/// reports it. On HTTP/2 the TLS handler sits on the connection, the parent of the request's stream.
struct ClientCertificateMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    /// Whether device API requests need a certificate.
    let requireForDeviceAPI: Bool

    static let deviceAPIPrefix = "/mobile/"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let subject = await Self.subject(on: context.channel)
        if let subject {
            context.trace.clientCertificate = subject
        } else if requireForDeviceAPI, request.uri.path.hasPrefix(Self.deviceAPIPrefix) {
            throw CollabError(.unauthorized, "a client certificate is required for the device API (mutual TLS)")
        }
        return try await next(request, context)
    }

    /// The subject of the peer certificate on the channel's TLS connection, e.g. `OU=clients,O=MockCollab,CN=device-1`.
    static func subject(on channel: any Channel) async -> String? {
        for candidate in [channel, channel.parent].compactMap({ $0 }) {
            let presented: NIOSSLCertificate?
            do {
                presented = try await candidate.nioSSL_peerCertificate().get()
            } catch {
                continue  // no TLS handler on this channel: look at its parent
            }
            guard let presented, let der = try? presented.toDERBytes() else { return nil }
            return Certificate.subject(ofDER: der)
        }
        return nil
    }
}
