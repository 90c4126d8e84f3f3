public import Foundation
import SwiftASN1
import X509

/// Apple's certificates for certificate-based APNs authentication, as far as a provider and the APNs
/// simulator need them: which topics one may push to.
///
/// A certificate names its app in the subject — `UID` (user id) is the bundle id, the common name says
/// the kind, e.g. `VoIP Services: com.example.app`. A VoIP Services certificate pushes to
/// `<bundle>.voip` only; an Apple Push Services certificate to the bundle, `.voip` and `.complication`.
public enum APNsCertificateKind: String, Sendable, CaseIterable {
    case voipServices = "VoIP Services"
    case pushServices = "Apple Push Services"

    /// The topics a certificate of this kind for `bundleId` may push to.
    public func topics(bundleId: String) -> Set<String> {
        switch self {
        case .voipServices: [bundleId + ".voip"]
        case .pushServices: [bundleId, bundleId + ".voip", bundleId + ".complication"]
        }
    }
}

/// The `UID` attribute (OID 0.9.2342.19200300.100.1.1) Apple puts the bundle id in.
struct UserID: RelativeDistinguishedNameConvertible, Sendable {
    static let oid: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
    var value: String
    func makeRDN() throws -> RelativeDistinguishedName {
        RelativeDistinguishedName(.init(type: Self.oid, utf8String: value))
    }
}

public enum APNsCertificates {
    /// A certificate shaped like Apple's for `bundleId`, signed by `authority` (the APNs simulator's own
    /// stand-in for Apple's WWDR authority), for TLS client authentication.
    public static func make(bundleId: String, kind: APNsCertificateKind, teamId: String?, authority: TLSIdentity, now: Date) throws -> TLSIdentity {
        let subject = try DistinguishedName {
            UserID(value: bundleId)
            CommonName("\(kind.rawValue): \(bundleId)")
            if let teamId { OrganizationalUnitName(teamId) }
            OrganizationName("MockCollab")
            CountryName("US")
        }
        return try CertificateIssuer.makeLeaf(subject: subject, authority: authority, now: now) {
            try ExtendedKeyUsage([.clientAuth])
        }
    }

    /// The topics the certificate in `der` may push to, from its subject; `nil` when it is not an APNs
    /// certificate (no bundle id, or a common name of another kind).
    public static func topics(ofDER der: [UInt8]) -> Set<String>? {
        guard let certificate = try? Certificate(derEncoded: der) else { return nil }
        var bundleId: String?
        var commonName: String?
        for rdn in certificate.subject {
            for attribute in rdn {
                if attribute.type == UserID.oid { bundleId = String(attribute.value) }
                if attribute.type == .RDNAttributeType.commonName { commonName = String(attribute.value) }
            }
        }
        guard let bundleId, let commonName,
            let kind = APNsCertificateKind.allCases.first(where: { commonName == "\($0.rawValue): \(bundleId)" })
        else { return nil }
        return kind.topics(bundleId: bundleId)
    }
}
