public import Foundation
import X509

/// The TLS material MockCollab keeps in its data directory: the development CA (made on first use, so
/// a device trusts it once), the server certificate it signs, and client certificates it issued.
///
/// ```
/// <data>/tls/ca.pem  ca.der  ca-key.pem        the development CA (trust ca.pem or ca.der)
/// <data>/tls/server.pem  server-key.pem        the server certificate for --tls-names
/// <data>/tls/clients/NAME.pem NAME-key.pem NAME.p12
/// ```
/// Private keys are written owner-readable only.
public struct TLSDirectory: Sendable {
    /// The directory holding the files.
    public let path: String

    /// The TLS directory inside a data directory.
    public init(dataDirectory: String) {
        self.path = (dataDirectory as NSString).appendingPathComponent("tls")
    }

    /// The data directory for a storage setting: the SQLite file's directory, `./.mock-collab` otherwise.
    /// - Parameter sqlitePath: The SQLite file, or `nil` for in-memory storage.
    public static func dataDirectory(sqlitePath: String?) -> String {
        guard let sqlitePath else { return "./.mock-collab" }
        let directory = (sqlitePath as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    public var authorityCertificatePath: String { file("ca.pem") }
    public var authorityDERPath: String { file("ca.der") }
    public var authorityKeyPath: String { file("ca-key.pem") }
    public var serverCertificatePath: String { file("server.pem") }
    public var serverKeyPath: String { file("server-key.pem") }
    /// Where client certificates go.
    public var clientsPath: String { file("clients") }

    private func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The development CA: read from the directory, or made and written there on first use.
    public func authority(now: Date = Date()) throws -> TLSIdentity {
        if FileManager.default.fileExists(atPath: authorityCertificatePath) {
            return try TLSIdentity(certificatePEM: try read(authorityCertificatePath), privateKeyPEM: try read(authorityKeyPath))
        }
        let host = ProcessInfo.processInfo.hostName
        let authority = try CertificateIssuer.makeAuthority(commonName: "MockCollab Development CA (\(host))", now: now)
        try write(authority.privateKeyPEM, to: authorityKeyPath, secret: true)
        try write(Data(try authority.certificateDER), to: authorityDERPath)
        try write(authority.certificatePEM, to: authorityCertificatePath)
        return authority
    }

    /// The server certificate for `names`: the one on disk when it is signed by the CA, covers every
    /// name and has more than 30 days left; otherwise a new one (written to the directory).
    /// - Returns: The identity, and whether it was just issued.
    public func serverIdentity(names: ServerNames, now: Date = Date()) throws -> (identity: TLSIdentity, issued: Bool) {
        if let existing = try currentServerIdentity(now: now), ServerNames.covered(by: existing.certificate)?.covers(names) == true {
            return (existing, false)
        }
        return (try rotateServer(names: names, now: now), true)
    }

    /// The server certificate on disk when it is signed by the CA and has more than 30 days left,
    /// whatever names it covers; `nil` otherwise.
    public func currentServerIdentity(now: Date = Date()) throws -> TLSIdentity? {
        let authority = try authority(now: now)
        guard FileManager.default.fileExists(atPath: serverCertificatePath),
            let existing = try? TLSIdentity(certificatePEM: try read(serverCertificatePath), privateKeyPEM: try read(serverKeyPath)),
            CertificateIssuer.isCurrent(existing.certificate, issuedBy: authority.certificate, now: now)
        else { return nil }
        return existing
    }

    /// Replaces the server certificate with a new one (new key, new pins) for `names`.
    public func rotateServer(names: ServerNames, now: Date = Date()) throws -> TLSIdentity {
        let identity = try CertificateIssuer.makeServerCertificate(names: names, authority: try authority(now: now), now: now)
        try write(identity.privateKeyPEM, to: serverKeyPath, secret: true)
        try write(identity.certificatePEM, to: serverCertificatePath)
        return identity
    }

    /// Files of an issued client certificate.
    public struct ClientFiles: Sendable, Codable {
        public var certificate: String
        public var privateKey: String
        public var pkcs12: String?
    }

    /// Issues a client certificate named `name` and writes it (and, with a password, a legacy-encrypted
    /// `.p12` holding the key, the certificate and the CA) under `clients/`.
    public func issueClient(name: String, pkcs12Password: String?, now: Date = Date()) throws -> (identity: TLSIdentity, files: ClientFiles) {
        guard !name.isEmpty, name.count <= 64, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }),
            !name.hasPrefix(".")
        else {
            throw TLSSetupError("client name '\(name)' must be 1 to 64 letters, digits, '-', '_' or '.'")
        }
        let authority = try authority(now: now)
        let identity = try CertificateIssuer.makeClientCertificate(commonName: name, authority: authority, now: now)
        let base = (clientsPath as NSString).appendingPathComponent(name)
        var files = ClientFiles(certificate: base + ".pem", privateKey: base + "-key.pem")
        try write(identity.privateKeyPEM, to: files.privateKey, secret: true)
        try write(identity.certificatePEM, to: files.certificate)
        if let pkcs12Password {
            let out = base + ".p12"
            try PKCS12Exporter.export(
                certificatePath: files.certificate, keyPath: files.privateKey, authorityPath: authorityCertificatePath, password: pkcs12Password,
                friendlyName: name, outputPath: out
            )
            files.pkcs12 = out
        }
        return (identity, files)
    }

    private func read(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw TLSSetupError("cannot read \(path): \(error.localizedDescription)")
        }
    }

    private func write(_ text: String, to path: String, secret: Bool = false) throws {
        try write(Data(text.utf8), to: path, secret: secret)
    }

    private func write(_ data: Data, to path: String, secret: Bool = false) throws {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Written whole under a temporary name and renamed: a reader never sees half a key.
            let temporary = path + ".tmp-\(UUID().uuidString.prefix(8))"
            guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: secret ? 0o600 : 0o644]) else {
                throw TLSSetupError("cannot write \(temporary)")
            }
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch let error as TLSSetupError {
            throw error
        } catch {
            throw TLSSetupError("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
