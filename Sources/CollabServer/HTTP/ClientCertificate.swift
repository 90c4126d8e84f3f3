import CollabCore
import CollabTLS
import NIOCore
import NIOSSL
import X509

/// The client certificate of a mutual-TLS connection. The handshake already verified a presented
/// certificate against the client CA; the server only reads who it names, for the journal and for the
/// surfaces that require one (``Surface/Credentials/clientCertificate``).
enum ClientCertificate {
    /// The subject of the peer certificate on the channel's TLS connection, e.g. `OU=clients,O=MockCollab,CN=device-1`.
    /// On HTTP/2 the TLS handler sits on the connection, the parent of the request's stream.
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
