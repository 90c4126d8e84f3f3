import CollabCore
@testable import CollabPush
import Crypto
import Foundation
import Testing
import _CryptoExtras

/// Push credentials are opened when they are given, so a wrong one is a 400 then, not a failed push later.
@Suite("Push credential check")
struct PushCredentialCheckTests {
    static func message(_ settings: PushSettings) -> String? {
        do throws(CollabError) {
            try PushCredentialCheck.check(settings)
            return nil
        } catch {
            #expect(error.kind == .badRequest)
            return error.message
        }
    }

    static func apns(pem: String? = nil, certificate: PushSettings.APNs.Certificate? = nil) -> PushSettings.APNs {
        var apns = PushSettings.APNs(environment: "sandbox")
        apns.privateKeyPEM = pem
        apns.certificate = certificate
        return apns
    }

    @Test("keys that parse pass; a key that does not, or a .p12 that does not open, is refused naming the field and no library text")
    func keys() throws {
        let p8 = P256.Signing.PrivateKey().pemRepresentation
        #expect(Self.message(PushSettings(id: "a", apns: Self.apns(pem: p8))) == nil)
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        let fcm = PushSettings.FCM(projectId: "p", clientEmail: "s@p.iam.gserviceaccount.com", privateKeyPEM: rsa)
        #expect(Self.message(PushSettings(id: "a", fcm: fcm)) == nil)

        let broken = "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----"
        #expect(Self.message(PushSettings(id: "a", apns: Self.apns(pem: broken)))?.hasPrefix("apns.privateKeyPEM is not a P-256 private key") == true)
        #expect(Self.message(PushSettings(id: "a", apns: Self.apns(pem: rsa)))?.hasPrefix("apns.privateKeyPEM") == true, "an RSA key is not a .p8")
        var wrongFCM = fcm
        wrongFCM.privateKeyPEM = p8
        #expect(Self.message(PushSettings(id: "a", fcm: wrongFCM))?.hasPrefix("fcm.privateKeyPEM is not an RSA private key") == true)
        let garbage = PushSettings.APNs.Certificate(pkcs12: Data("not a p12".utf8).base64EncodedString(), password: "x")
        let refused = try #require(Self.message(PushSettings(id: "a", apns: Self.apns(certificate: garbage))))
        #expect(refused.hasPrefix("apns.certificate does not open"))
        #expect(!refused.contains("/") && !refused.contains("BAD_PKCS12"), "no library error text: \(refused)")
    }

    @Test("the simulator directory: absolute, made when missing, writable")
    func simulatorDirectory() throws {
        let made = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString)/apns").path
        defer { try? FileManager.default.removeItem(atPath: (made as NSString).deletingLastPathComponent) }
        #expect(Self.message(PushSettings(id: "a", simulatorDirectory: made)) == nil)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: made, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(Self.message(PushSettings(id: "a", simulatorDirectory: "relative/dir"))?.contains("absolute path") == true)
        #expect(Self.message(PushSettings(id: "a", simulatorDirectory: "/proc/nope"))?.contains("cannot be made") == true)
        let file = made + "/a-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(Self.message(PushSettings(id: "a", simulatorDirectory: file))?.contains("not a directory") == true)
    }
}
