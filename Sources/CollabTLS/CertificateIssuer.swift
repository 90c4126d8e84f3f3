import Crypto
public import Foundation
import SwiftASN1
public import X509

/// Makes the development CA and the certificates it signs, with the properties Apple's platforms
/// require of TLS certificates (SHA-256 ECDSA signatures, subject alternative names, an extended key
/// usage, and server certificates valid at most 825 days — we use 397, the public-CA limit).
public enum CertificateIssuer {
    /// How long the CA is valid.
    public static let authorityLifetime: TimeInterval = 10 * 365 * 86_400
    /// How long server and client certificates are valid.
    public static let leafLifetime: TimeInterval = 397 * 86_400

    /// A new self-signed certificate authority.
    /// - Parameters:
    ///   - commonName: The CA's name, shown in trust settings.
    ///   - now: The start of validity.
    public static func makeAuthority(commonName: String, now: Date) throws -> TLSIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName(commonName)
            OrganizationName("MockCollab")
        }
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey, notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(authorityLifetime), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: .init(key)
        )
        return try TLSIdentity(certificate: certificate, privateKey: key)
    }

    /// A server certificate for `names`, signed by `authority`.
    public static func makeServerCertificate(names: ServerNames, authority: TLSIdentity, now: Date) throws -> TLSIdentity {
        let subject = try DistinguishedName {
            CommonName(names.written[0])
            OrganizationName("MockCollab")
        }
        return try makeLeaf(subject: subject, authority: authority, now: now) {
            SubjectAlternativeNames(names.generalNames)
            try ExtendedKeyUsage([.serverAuth])
        }
    }

    /// A client certificate (for mutual TLS) named `commonName`, signed by `authority`.
    public static func makeClientCertificate(commonName: String, authority: TLSIdentity, now: Date) throws -> TLSIdentity {
        let subject = try DistinguishedName {
            CommonName(commonName)
            OrganizationName("MockCollab")
            OrganizationalUnitName("clients")
        }
        return try makeLeaf(subject: subject, authority: authority, now: now) {
            try ExtendedKeyUsage([.clientAuth])
        }
    }

    static func makeLeaf(
        subject: DistinguishedName, authority: TLSIdentity, now: Date,
        @ExtensionsBuilder usage: () throws -> Result<Certificate.Extensions, any Error>
    ) throws -> TLSIdentity {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let authorityKey = try authority.signingKey()
        var extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            SubjectKeyIdentifier(hash: publicKey)
            AuthorityKeyIdentifier(keyIdentifier: try authority.certificate.extensions.subjectKeyIdentifier?.keyIdentifier)
        }
        for extensionValue in try usage().get() { try extensions.append(extensionValue) }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey, notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(leafLifetime), issuer: authority.certificate.subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(authorityKey)
        )
        return try TLSIdentity(certificate: certificate, privateKey: key)
    }

    /// Whether `certificate` was signed by `authority` and is valid for at least `margin` after `now`.
    public static func isCurrent(_ certificate: Certificate, issuedBy authority: Certificate, now: Date, margin: TimeInterval = 30 * 86_400) -> Bool {
        certificate.issuer == authority.subject
            && authority.publicKey.isValidSignature(certificate.signature, for: certificate)
            && certificate.notValidBefore <= now && certificate.notValidAfter > now.addingTimeInterval(margin)
    }
}
