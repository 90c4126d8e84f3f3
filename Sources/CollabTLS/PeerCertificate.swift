public import NIOCore
import NIOSSL

/// The certificate a TLS peer presented, read from a connection: the server's mutual TLS and the APNs
/// simulator's certificate-based authentication. The handshake already verified it against the
/// trusted authority; this only reads it.
public enum PeerCertificate {
    /// The peer certificate (DER) on the channel's TLS connection, `nil` when none was presented. On
    /// HTTP/2 the TLS handler sits on the connection, the parent of the request's stream.
    public static func der(on channel: any Channel) async -> [UInt8]? {
        for candidate in [channel, channel.parent].compactMap({ $0 }) {
            let presented: NIOSSLCertificate?
            do {
                presented = try await candidate.nioSSL_peerCertificate().get()
            } catch {
                continue  // no TLS handler on this channel: look at its parent
            }
            return try? presented?.toDERBytes()
        }
        return nil
    }

    /// Whether the request came over TLS (on HTTP/2, its stream's connection).
    public static func isTLS(_ channel: any Channel) async -> Bool {
        for candidate in [channel, channel.parent].compactMap({ $0 }) {
            do {
                // Answered (with a certificate or without one): a TLS handler is there.
                _ = try await candidate.nioSSL_peerCertificate().get()
                return true
            } catch {
                continue
            }
        }
        return false
    }
}
