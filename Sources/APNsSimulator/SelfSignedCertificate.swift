public import Crypto
public import Foundation
import SwiftASN1
import X509

/// A self-signed TLS certificate for `localhost` and `127.0.0.1`, made at start.
public struct SelfSignedCertificate: Sendable {
    /// The certificate, PEM.
    public let certificatePEM: String
    /// Its private key (P-256), PEM.
    public let privateKeyPEM: String

    /// Makes a certificate valid for a year from `now`.
    public init(commonName: String = "mock-collab apns-sim", now: Date = Date()) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName(commonName)
            OrganizationName("MockCollab")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey), notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(365 * 86_400), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: .init(key)
        )
        self.certificatePEM = try certificate.serializeAsPEM().pemString
        self.privateKeyPEM = key.pemRepresentation
    }
}
