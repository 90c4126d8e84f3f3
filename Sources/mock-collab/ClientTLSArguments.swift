import ArgumentParser
import CollabClient

/// TLS options of the client commands (`load`, `visitor`): trust, pins and a client certificate.
struct ClientTLSArguments: ParsableArguments {
    @Option(name: .customLong("ca"), help: "Trust this CA certificate (PEM), e.g. .mock-collab/tls/ca.pem; repeatable.")
    var caFiles: [String] = []

    @Option(help: "Pin the server certificate's SHA-256 (base64, as `mock-collab certs` prints it); repeatable.")
    var pinCertificate: [String] = []

    @Option(help: "Pin the server's public key: SHA-256 of its SPKI (base64); repeatable.")
    var pinPublicKey: [String] = []

    @Option(help: "Client certificate (PEM) for mutual TLS; needs --client-key.")
    var clientCert: String?

    @Option(help: "The private key (PEM) of --client-cert.")
    var clientKey: String?

    @Option(help: "Client certificate and key as a PKCS#12 file (.p12) for mutual TLS; needs --p12-password.")
    var clientP12: String?

    @Option(help: "The password of --client-p12.")
    var p12Password: String?

    func validate() throws {
        guard (clientCert == nil) == (clientKey == nil) else { throw ValidationError("--client-cert and --client-key go together") }
        guard clientP12 == nil || clientCert == nil else { throw ValidationError("give --client-cert/--client-key or --client-p12, not both") }
        guard (clientP12 == nil) == (p12Password == nil) else { throw ValidationError("--client-p12 and --p12-password go together") }
    }

    /// The client's TLS options; `nil` when none was given.
    func options() throws -> TLSOptions? {
        var identity: TLSOptions.ClientIdentity?
        if let clientCert, let clientKey { identity = .pem(certificateFile: clientCert, keyFile: clientKey) }
        if let clientP12, let p12Password { identity = .pkcs12(file: clientP12, password: p12Password) }
        let pins = pinCertificate.map(TLSOptions.Pin.certificateSHA256) + pinPublicKey.map(TLSOptions.Pin.publicKeySHA256)
        guard !caFiles.isEmpty || !pins.isEmpty || identity != nil else { return nil }
        do {
            return try TLSOptions(trustedCAFiles: caFiles, pins: pins, clientIdentity: identity)
        } catch {
            throw ValidationError(error.message)
        }
    }
}
