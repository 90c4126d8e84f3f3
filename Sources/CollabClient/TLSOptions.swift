import CollabTLS
public import NIOSSL
import Synchronization

/// How a client speaks TLS to the server: which CA it trusts, which certificate or public key it pins,
/// which client certificate it presents (mutual TLS) — CollabClient's counterpart of the SDK's
/// `authenticationChallengeDelegate` with an `UnbluAuthenticationChallengeHandler`.
///
/// ```swift
/// let tls = try TLSOptions(
///     trustedCAFiles: [".mock-collab/tls/ca.pem"],
///     pins: [.publicKeySHA256("kX2…=")],
///     clientIdentity: .pkcs12(file: "device-1.p12", password: "secret"))
/// let visitor = VisitorClient(configuration: ClientConfiguration(baseURL: "https://127.0.0.1:8443", …, tls: tls))
/// ```
///
/// Pins are checked on a handshake of their own before the first request to a host and port (and
/// before every live-events connection): a mismatch throws ``CollabClientError/Code-swift.struct/pinMismatch``
/// and no request is sent. Later connections to a verified endpoint are not checked again — the HTTP
/// client's pool gives no hook into its handshakes — so rotate the server certificate between
/// clients, not under one.
public struct TLSOptions: Sendable {
    /// A SHA-256 pin, base64 (with or without a `sha256/` prefix).
    public enum Pin: Sendable, Hashable {
        /// The hash of the whole certificate (DER) — the SDK's "certificate data".
        case certificateSHA256(String)
        /// The hash of the certificate's SubjectPublicKeyInfo (DER) — the SDK's "public keys"; survives re-issuing with the same key.
        case publicKeySHA256(String)
    }

    /// The certificate a client presents for mutual TLS.
    public enum ClientIdentity: Sendable, Hashable {
        /// A PEM certificate (chain) and its PEM private key.
        case pem(certificateFile: String, keyFile: String)
        /// A password-protected PKCS#12 file (`.p12`), as the SDK's `UnbluAuthenticationChallengeHandler(pkcs12FileName:pkcs12Password:)` takes.
        case pkcs12(file: String, password: String)
    }

    /// CA certificates (PEM files) trusted in addition to the system's.
    public let trustedCAFiles: [String]
    /// Pins the server's certificate must match (any one of them); empty: no pinning.
    public let pins: [Pin]
    /// The client certificate presented, if any.
    public let clientIdentity: ClientIdentity?
    /// The NIOSSL configuration for HTTP requests and WebSockets.
    public let configuration: TLSConfiguration
    private let verified: VerifiedEndpoints

    /// Loads the files and prepares the configuration.
    /// - Throws: ``CollabClientError`` with code `.tlsSetup` when a file cannot be read or a password is wrong.
    public init(trustedCAFiles: [String] = [], pins: [Pin] = [], clientIdentity: ClientIdentity? = nil) throws(CollabClientError) {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        do {
            var roots: [NIOSSLAdditionalTrustRoots] = []
            for file in trustedCAFiles { roots.append(.certificates(try NIOSSLCertificate.fromPEMFile(file))) }
            configuration.additionalTrustRoots = roots
        } catch {
            throw CollabClientError(
                code: .tlsSetup, status: nil, message: "cannot read a trusted CA (\(trustedCAFiles.joined(separator: ", "))): \(error)")
        }
        switch clientIdentity {
        case .none: break
        case .pem(let certificateFile, let keyFile):
            do {
                configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) }
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
            } catch {
                throw CollabClientError(
                    code: .tlsSetup, status: nil, message: "cannot read the client certificate \(certificateFile) / \(keyFile): \(error)")
            }
        case .pkcs12(let file, let password):
            do {
                let bundle = try NIOSSLPKCS12Bundle(file: file, passphrase: Array(password.utf8))
                configuration.certificateChain = bundle.certificateChain.map { .certificate($0) }
                configuration.privateKey = .privateKey(bundle.privateKey)
            } catch {
                throw CollabClientError(code: .tlsSetup, status: nil, message: "cannot open the PKCS#12 file \(file) (wrong password?): \(error)")
            }
        }
        self.trustedCAFiles = trustedCAFiles
        self.pins = pins
        self.clientIdentity = clientIdentity
        self.configuration = configuration
        self.verified = VerifiedEndpoints()
    }

    /// Checks the pins against the certificate `url`'s server presents, once per host and port.
    /// - Throws: ``CollabClientError`` `.pinMismatch` when no pin matches, `.transport` when the
    ///   handshake fails (an untrusted certificate, no client certificate where one is required).
    public func verifyPins(url: String) async throws(CollabClientError) {
        guard !pins.isEmpty, let endpoint = Endpoint(url: url), endpoint.secure else { return }
        try await verify(endpoint)
    }

    /// The TLS configuration and SNI name for a WebSocket to `url`.
    ///
    /// The WebSocket client sends the URL's host as SNI, which TLS forbids for an IP address
    /// (`wss://127.0.0.1:…` fails before the handshake). For an address the endpoint is therefore
    /// verified on a handshake of its own — chain, the address against the certificate's IP SANs,
    /// and pins — and the WebSocket connects with a placeholder SNI name and the chain check only.
    public func webSocketSettings(url: String) async throws(CollabClientError) -> (configuration: TLSConfiguration, sniHostname: String?) {
        guard let endpoint = Endpoint(url: url), endpoint.secure else { return (configuration, nil) }
        guard endpoint.isAddress else {
            try await verifyPins(url: url)
            return (configuration, nil)
        }
        try await verify(endpoint)
        var relaxed = configuration
        if relaxed.certificateVerification == .fullVerification { relaxed.certificateVerification = .noHostnameVerification }
        return (relaxed, "ip-address.invalid")
    }

    private func verify(_ endpoint: Endpoint) async throws(CollabClientError) {
        if verified.contains(endpoint.key) { return }
        let presented: CertificatePins
        do {
            presented = try await PinProbe.pins(of: endpoint, configuration: configuration)
        } catch let error as CollabClientError {
            throw error
        } catch {
            throw CollabClientError(code: .transport, status: nil, message: "TLS handshake with \(endpoint.key) failed: \(error)")
        }
        let matched = pins.isEmpty || pins.contains { pin in
            switch pin {
            case .certificateSHA256(let hash): Self.bare(hash) == presented.certificateSHA256
            case .publicKeySHA256(let hash): Self.bare(hash) == presented.publicKeySHA256
            }
        }
        guard matched else {
            throw CollabClientError(
                code: .pinMismatch, status: nil,
                message: "the server at \(endpoint.key) presented a certificate matching no pin (certificate sha256/\(presented.certificateSHA256), "
                    + "public key sha256/\(presented.publicKeySHA256)); no request was sent"
            )
        }
        verified.insert(endpoint.key)
    }

    private static func bare(_ pin: String) -> String { pin.hasPrefix("sha256/") ? String(pin.dropFirst(7)) : pin }
}

/// Endpoints whose pins were checked.
final class VerifiedEndpoints: Sendable {
    private let keys = Mutex<Set<String>>([])
    func contains(_ key: String) -> Bool { keys.withLock { $0.contains(key) } }
    func insert(_ key: String) { _ = keys.withLock { $0.insert(key) } }
}
