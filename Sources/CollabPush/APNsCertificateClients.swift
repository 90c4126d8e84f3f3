import AsyncHTTPClient
import CollabCore
import Crypto
import Foundation
import NIOSSL
import Synchronization

/// HTTP/2 clients that present an account's APNs certificate (certificate-based authentication: the
/// TLS handshake proves the sender, and no provider token is sent).
///
/// One client per account, made on first use and replaced (the old one shut down) when the account's
/// certificate changes, so the budget is one connection pool per account that uses a certificate.
final class APNsCertificateClients: Sendable {
    private struct Held {
        var fingerprint: String
        var client: SharedHTTPClient
    }

    private let held = Mutex<[String: Held]>([:])
    private let base: HTTPClient.Configuration

    /// - Parameter base: The configuration every client starts from (timeouts, no redirects).
    init(base: HTTPClient.Configuration) {
        self.base = base
    }

    /// The client presenting `certificate` for `accountId`.
    /// - Throws: `badRequest` when the `.p12` does not open with its password (no retry helps).
    func client(accountId: String, certificate: PushSettings.APNs.Certificate, insecureTLS: Bool) async throws -> SharedHTTPClient {
        let fingerprint = SHA256.hash(data: Data("\(certificate.pkcs12)|\(certificate.password)|\(insecureTLS)".utf8)).description
        if let current = held.withLock({ $0[accountId] }), current.fingerprint == fingerprint { return current.client }
        guard let data = Data(base64Encoded: certificate.pkcs12) else { throw CollabError.badRequest("apns.certificate.pkcs12 is not base64") }
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(buffer: Array(data), passphrase: Array(certificate.password.utf8))
        } catch {
            throw CollabError.badRequest("apns.certificate does not open: pkcs12 is not a PKCS#12 (.p12) file, or password is not its password")
        }
        var configuration = base
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateChain = bundle.certificateChain.map { .certificate($0) }
        tls.privateKey = .privateKey(bundle.privateKey)
        if insecureTLS { tls.certificateVerification = .none }
        configuration.tlsConfiguration = tls
        let client = SharedHTTPClient(configuration: configuration)
        let replaced = held.withLock { held -> SharedHTTPClient? in
            defer { held[accountId] = Held(fingerprint: fingerprint, client: client) }
            return held[accountId]?.client
        }
        await replaced?.shutdown()
        return client
    }

    func shutdown() async {
        let clients = held.withLock { held -> [SharedHTTPClient] in
            defer { held = [:] }
            return held.values.map(\.client)
        }
        for client in clients { await client.shutdown() }
    }
}
