import Crypto
import Foundation
import SwiftASN1
public import X509

/// SHA-256 pins of a certificate, base64 — the two forms pinning code compares: the hash of the whole
/// certificate (DER) and the hash of its public key (SubjectPublicKeyInfo, DER; the form HPKP,
/// OkHttp's `CertificatePinner` and Chromium's `--ignore-certificate-errors-spki-list` use).
public struct CertificatePins: Sendable, Equatable, Codable {
    /// SHA-256 of the certificate's DER encoding, base64.
    public var certificateSHA256: String
    /// SHA-256 of the certificate's SubjectPublicKeyInfo DER, base64.
    public var publicKeySHA256: String

    /// Computes the pins of a certificate.
    public init(certificate: Certificate) throws {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let der = serializer.serializedBytes
        var spki = DER.Serializer()
        try spki.serialize(certificate.publicKey)
        self.certificateSHA256 = Data(SHA256.hash(data: der)).base64EncodedString()
        self.publicKeySHA256 = Data(SHA256.hash(data: spki.serializedBytes)).base64EncodedString()
    }

    /// Computes the pins of a DER-encoded certificate.
    public init(certificateDER: [UInt8]) throws {
        try self.init(certificate: Certificate(derEncoded: certificateDER))
    }

    /// Whether a pin (either form, with or without a `sha256/` prefix) names this certificate.
    public func matches(_ pin: String) -> Bool {
        let bare = pin.hasPrefix("sha256/") ? String(pin.dropFirst("sha256/".count)) : pin
        return bare == certificateSHA256 || bare == publicKeySHA256
    }
}

extension Certificate {
    /// The subject of a DER-encoded certificate, e.g. `OU=clients,O=MockCollab,CN=device-1`; `nil` if it does not parse.
    public static func subject(ofDER der: [UInt8]) -> String? {
        (try? Certificate(derEncoded: der))?.subject.description
    }
}
