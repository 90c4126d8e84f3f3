import CollabCore
import CollabTLS
import NIOCore
import X509

/// The client certificate of a mutual-TLS connection. The handshake already verified a presented
/// certificate against the client CA; the server only reads who it names, for the journal and for the
/// surfaces that require one (``Surface/Credentials/clientCertificate``).
enum ClientCertificate {
    /// The subject of the peer certificate on the channel's TLS connection, e.g. `OU=clients,O=MockCollab,CN=device-1`.
    static func subject(on channel: any Channel) async -> String? {
        guard let der = await PeerCertificate.der(on: channel) else { return nil }
        return Certificate.subject(ofDER: der)
    }
}
