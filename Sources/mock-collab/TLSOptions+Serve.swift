import ArgumentParser
import CollabServer
import CollabTLS
import Foundation

/// Where MockCollab keeps its TLS material and which names its server certificate covers; shared by
/// `serve` and `certs` so both find the same development CA.
struct TLSLocationOptions: ParsableArguments {

    @Option(
        help: """
            Directory for the development CA and certificates (under tls/); \
            default: the SQLite file's directory, else ./.mock-collab (MOCK_COLLAB_DATA_DIR).
            """
    )
    var dataDir: String?

    @Option(
        help: """
            Comma-separated DNS names and IP addresses for the server certificate; \
            default: localhost, 127.0.0.1, ::1 and the host name (MOCK_COLLAB_TLS_NAMES).
            """
    )
    var tlsNames: String?

    /// The data directory for a storage setting.
    func dataDirectory(storage: String) -> String {
        if let directory = dataDir ?? EnvironmentDefaults.string("MOCK_COLLAB_DATA_DIR") { return directory }
        if storage.hasPrefix("sqlite:") { return TLSDirectory.dataDirectory(sqlitePath: String(storage.dropFirst("sqlite:".count))) }
        return TLSDirectory.dataDirectory(sqlitePath: nil)
    }

    /// Whether names were given (`--tls-names` or `MOCK_COLLAB_TLS_NAMES`) rather than defaulted.
    var namesGiven: Bool { tlsNames != nil || EnvironmentDefaults.string("MOCK_COLLAB_TLS_NAMES") != nil }

    /// The names the server certificate is for.
    var names: [String] {
        guard let list = tlsNames ?? EnvironmentDefaults.string("MOCK_COLLAB_TLS_NAMES") else { return ServerNames.defaults }
        return list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The names the server certificate is for, parsed.
    /// - Throws: A `ValidationError` naming `--tls-names` for an empty list or a malformed name.
    func serverNames() throws -> ServerNames {
        do {
            return try ServerNames(names)
        } catch {
            throw ValidationError("--tls-names: \(error.message)")
        }
    }
}

/// `serve`'s TLS options.
struct ServeTLSOptions: ParsableArguments {

    @Flag(help: "Serve HTTPS (HTTP/2 and HTTP/1.1 by ALPN, WebSockets) with a development CA made on first use (MOCK_COLLAB_TLS=1).")
    var tls: Bool = EnvironmentDefaults.flag("MOCK_COLLAB_TLS")

    @Option(help: "Your own server certificate chain, PEM, instead of the development one; needs --tls-key, implies --tls (MOCK_COLLAB_TLS_CERT).")
    var tlsCert: String?

    @Option(help: "The private key for --tls-cert, PEM (MOCK_COLLAB_TLS_KEY).")
    var tlsKey: String?

    @Option(
        help: """
            Mutual TLS: none, optional (the device API answers 401 without a certificate) \
            or required (the handshake fails without one) (MOCK_COLLAB_CLIENT_AUTH).
            """
    )
    var clientAuth: String = EnvironmentDefaults.string("MOCK_COLLAB_CLIENT_AUTH") ?? "none"

    @Option(help: "CA certificate (PEM) client certificates must chain to; default: the development CA (MOCK_COLLAB_CLIENT_CA).")
    var clientCa: String?

    @Option(help: "Also serve plain HTTP on this port beside HTTPS; 0 picks a free one (MOCK_COLLAB_HTTP_PORT).")
    var httpPort: Int?

    @OptionGroup var location: TLSLocationOptions

    var certificateFile: String? { tlsCert ?? EnvironmentDefaults.string("MOCK_COLLAB_TLS_CERT") }
    var keyFile: String? { tlsKey ?? EnvironmentDefaults.string("MOCK_COLLAB_TLS_KEY") }
    var clientCAFile: String? { clientCa ?? EnvironmentDefaults.string("MOCK_COLLAB_CLIENT_CA") }
    var plainPort: Int? { httpPort ?? EnvironmentDefaults.optional("MOCK_COLLAB_HTTP_PORT") }

    /// Whether TLS is on: asked for, or implied by a certificate or client authentication.
    var enabled: Bool { tls || certificateFile != nil }

    func validate() throws {
        guard TLSSettings.ClientAuthentication(rawValue: clientAuth) != nil else {
            throw ValidationError("--client-auth must be none, optional or required")
        }
        guard (certificateFile == nil) == (keyFile == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        if !enabled, clientAuth != "none" || clientCAFile != nil || plainPort != nil {
            throw ValidationError("--client-auth, --client-ca and --http-port need --tls")
        }
        if let plainPort, !(0...65535).contains(plainPort) { throw ValidationError("--http-port must be between 0 and 65535") }
        for file in [certificateFile, keyFile, clientCAFile].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("cannot read \(file)")
        }
        _ = try location.serverNames()
    }

    /// The server's TLS settings; `nil` without TLS.
    func settings(storage: String) -> TLSSettings? {
        guard enabled else { return nil }
        let certificate: TLSSettings.ServerCertificate
        if let certificateFile, let keyFile {
            certificate = .files(certificate: certificateFile, key: keyFile)
        } else {
            certificate = .development(names: location.names)
        }
        return TLSSettings(
            certificate: certificate, dataDirectory: location.dataDirectory(storage: storage),
            clientAuthentication: TLSSettings.ClientAuthentication(rawValue: clientAuth) ?? .none, clientCAFile: clientCAFile,
            plainHTTPPort: plainPort
        )
    }
}
