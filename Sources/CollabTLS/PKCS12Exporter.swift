import Foundation

/// Writes password-protected PKCS#12 files with the `openssl` command.
///
/// Neither swift-certificates nor swift-nio-ssl writes PKCS#12 (NIOSSL only reads it). iOS reads only
/// the legacy PKCS#12 encryption — keys and certificates under PBE-SHA1-3DES with a SHA-1 MAC — while
/// OpenSSL 3 defaults to AES-256/PBKDF2 and SHA-256, which `SecPKCS12Import` rejects; so the algorithms
/// are named explicitly (the same as OpenSSL 3's `-legacy`, without needing its legacy provider for
/// RC2). OpenSSL 1.1 accepts the same options.
public enum PKCS12Exporter {
    /// The `openssl` executable: `$MOCK_COLLAB_OPENSSL`, else the first on `PATH`.
    static var openssl: String? {
        if let configured = ProcessInfo.processInfo.environment["MOCK_COLLAB_OPENSSL"] { return configured }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/openssl"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Writes `outputPath` from PEM files.
    /// - Parameters:
    ///   - certificatePath: The client certificate.
    ///   - keyPath: Its private key.
    ///   - authorityPath: The CA certificate, included so the bundle carries the chain.
    ///   - password: The file's password (passed to openssl through its environment, never argv).
    ///   - friendlyName: The name shown for the identity.
    ///   - outputPath: Where the `.p12` goes (owner-readable only).
    public static func export(
        certificatePath: String, keyPath: String, authorityPath: String, password: String, friendlyName: String, outputPath: String
    ) throws {
        #if os(macOS) || os(Linux) || os(Windows)
        guard let openssl else {
            throw TLSSetupError("writing a .p12 needs the openssl command (apt-get install openssl); the PEM files were written")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = [
            "pkcs12", "-export", "-out", outputPath, "-inkey", keyPath, "-in", certificatePath, "-certfile", authorityPath,
            "-name", friendlyName, "-passout", "env:MOCK_COLLAB_P12_PASSWORD",
            "-certpbe", "PBE-SHA1-3DES", "-keypbe", "PBE-SHA1-3DES", "-macalg", "sha1", "-iter", "2048",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["MOCK_COLLAB_P12_PASSWORD"] = password
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw TLSSetupError("cannot run \(openssl): \(error.localizedDescription)")
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TLSSetupError("openssl pkcs12 failed: \(String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: outputPath)
        #else
        // iOS and the other Apple device platforms cannot start processes; CollabClient (which links
        // CollabTLS there) only reads .p12 files.
        throw TLSSetupError("writing a .p12 needs the openssl command, which this platform cannot run")
        #endif
    }
}
