public import CollabTLS

/// How the server speaks TLS (`serve --tls`).
public struct TLSSettings: Sendable {
    /// Where the server certificate comes from.
    public enum ServerCertificate: Sendable {
        /// Issued by the development CA in `dataDirectory` for `names` (reused while it covers them).
        case development(names: [String])
        /// The user's own certificate chain and key, PEM files.
        case files(certificate: String, key: String)
    }

    /// Whether clients must present a certificate (mutual TLS).
    public enum ClientAuthentication: String, Sendable, CaseIterable {
        /// No client certificates are asked for.
        case none
        /// Clients may present one; the handshake checks it if presented. The device API
        /// (`/mobile/v1/…`) answers 401 `AUTHORIZATION` without one; every other route still works.
        case optional
        /// The handshake fails without a valid client certificate.
        case required
    }

    /// The server certificate.
    public var certificate: ServerCertificate
    /// The data directory holding the development CA (`tls/` inside it).
    public var dataDirectory: String
    /// Client certificates asked for.
    public var clientAuthentication: ClientAuthentication
    /// The CA (PEM file) client certificates must chain to; `nil` uses the development CA.
    public var clientCAFile: String?
    /// An extra plain-HTTP port serving the same application (`0` picks a free one); `nil` for none.
    public var plainHTTPPort: Int?

    /// Creates TLS settings.
    /// - Parameters:
    ///   - certificate: The server certificate; development certificates for the default names by default.
    ///   - dataDirectory: Where the development CA lives.
    ///   - clientAuthentication: Whether clients present certificates.
    ///   - clientCAFile: The CA client certificates chain to; the development CA when `nil`.
    ///   - plainHTTPPort: A second, plain-HTTP port.
    public init(
        certificate: ServerCertificate = .development(names: ServerNames.defaults), dataDirectory: String = "./.mock-collab",
        clientAuthentication: ClientAuthentication = .none, clientCAFile: String? = nil, plainHTTPPort: Int? = nil
    ) {
        self.certificate = certificate
        self.dataDirectory = dataDirectory
        self.clientAuthentication = clientAuthentication
        self.clientCAFile = clientCAFile
        self.plainHTTPPort = plainHTTPPort
    }
}
