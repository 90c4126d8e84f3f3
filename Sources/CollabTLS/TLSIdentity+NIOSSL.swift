public import NIOSSL

extension TLSIdentity {
    /// The certificate as NIOSSL's chain entry.
    public func certificateChain() throws -> [NIOSSLCertificateSource] {
        try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)).map { .certificate($0) }
    }

    /// The private key as NIOSSL's key source.
    public func privateKeySource() throws -> NIOSSLPrivateKeySource {
        .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem))
    }

    /// A TLS server configuration presenting this identity.
    public func serverConfiguration() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(certificateChain: try certificateChain(), privateKey: try privateKeySource())
    }
}
