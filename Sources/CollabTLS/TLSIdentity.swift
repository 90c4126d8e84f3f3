public import Crypto
public import Foundation
import SwiftASN1
public import X509

/// A certificate with its private key (P-256), as PEM text — what a TLS endpoint presents.
public struct TLSIdentity: Sendable {
    /// The certificate, PEM.
    public let certificatePEM: String
    /// The certificate's private key, PEM (PKCS#8).
    public let privateKeyPEM: String
    /// The parsed certificate.
    public let certificate: Certificate

    /// Wraps a certificate and its key.
    /// - Parameters:
    ///   - certificate: The certificate.
    ///   - privateKey: Its P-256 signing key.
    public init(certificate: Certificate, privateKey: P256.Signing.PrivateKey) throws {
        self.certificate = certificate
        self.certificatePEM = try certificate.serializeAsPEM().pemString
        self.privateKeyPEM = privateKey.pemRepresentation
    }

    /// Reads a certificate and key from PEM text.
    /// - Parameters:
    ///   - certificatePEM: The certificate (the first one in the text is the leaf).
    ///   - privateKeyPEM: Its private key.
    public init(certificatePEM: String, privateKeyPEM: String) throws {
        self.certificate = try Certificate(pemEncoded: certificatePEM)
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// The subject, e.g. `O=MockCollab,CN=localhost` (RFC 4514 order, most specific last).
    public var subject: String { certificate.subject.description }

    /// The end of validity.
    public var notValidAfter: Date { certificate.notValidAfter }

    /// The certificate, DER.
    public var certificateDER: [UInt8] {
        get throws { try certificate.serializeAsPEM().derBytes }
    }

    /// The SHA-256 pins of this certificate.
    public var pins: CertificatePins {
        get throws { try CertificatePins(certificate: certificate) }
    }

    /// The P-256 private key, for signing certificates.
    func signingKey() throws -> P256.Signing.PrivateKey {
        try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
    }

    /// A self-signed server certificate for `localhost` and `127.0.0.1`, valid a year from `now`
    /// (the APNs simulator's, which clients trust by file or skip verifying).
    /// - Parameters:
    ///   - commonName: The subject's common name.
    ///   - now: The start of validity.
    public static func selfSigned(commonName: String, now: Date = Date()) throws -> TLSIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName(commonName)
            OrganizationName("MockCollab")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey), notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(365 * 86_400), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames(try ServerNames(["localhost", "127.0.0.1"]).generalNames)
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: .init(key)
        )
        return try TLSIdentity(certificate: certificate, privateKey: key)
    }
}
