public import CollabCore
import Foundation
import JWTKit
import NIOSSL

/// Opens every credential push settings hold the way the sinks will, when the settings are given (a
/// `PUT …/push-settings`, a seed's `push:`): a key that does not parse, a `.p12` that does not open or
/// a simulator directory that cannot be written is a 400 then, not a failure of every push later.
public enum PushCredentialCheck {
    /// - Throws: `badRequest` naming the field and what it must be; never the library's own error text
    ///   (it can carry build paths).
    public static func check(_ settings: PushSettings) throws(CollabError) {
        if let pem = settings.apns?.privateKeyPEM, (try? ES256PrivateKey(pem: pem)) == nil {
            throw .badRequest("apns.privateKeyPEM is not a P-256 private key in PEM (the text of the .p8 file Apple gives)")
        }
        if let certificate = settings.apns?.certificate {
            guard let data = Data(base64Encoded: certificate.pkcs12) else { throw .badRequest("apns.certificate.pkcs12 is not base64") }
            guard (try? NIOSSLPKCS12Bundle(buffer: Array(data), passphrase: Array(certificate.password.utf8))) != nil else {
                throw .badRequest("apns.certificate does not open: pkcs12 is not a PKCS#12 (.p12) file, or password is not its password")
            }
        }
        if let fcm = settings.fcm, (try? Insecure.RSA.PrivateKey(pem: fcm.privateKeyPEM)) == nil {
            throw .badRequest("fcm.privateKeyPEM is not an RSA private key in PEM (the service account file's private_key)")
        }
        if let directory = settings.simulatorDirectory { try checkWritable(directory) }
    }

    /// The simulator sink's directory: an absolute path to a directory this process can write to (made
    /// when it is missing, as the sink would).
    private static func checkWritable(_ directory: String) throws(CollabError) {
        guard directory.hasPrefix("/") else {
            throw .badRequest("simulatorDirectory must be an absolute path (the server's working directory is not the simulator's)")
        }
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if !files.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard (try? files.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil else {
                throw .badRequest("simulatorDirectory '\(directory)' does not exist and cannot be made")
            }
            isDirectory = true
        }
        guard isDirectory.boolValue, files.isWritableFile(atPath: directory) else {
            throw .badRequest("simulatorDirectory '\(directory)' is not a directory this server can write to")
        }
    }
}
