import APNsSimulator
import AsyncHTTPClient
import Crypto
import Foundation
import JWTKit
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL
import Testing

/// The APNs simulator refuses what Apple refuses, with Apple's reasons, so a misconfigured sender fails
/// here rather than in production: a provider token under a key id it does not know, an `apns-id`
/// that is no UUID or whose `iat` is not whole seconds, another method on the device path, any other
/// path, and a push sent over HTTP/1.1.
@Suite("APNs simulator refusals")
struct APNsSimulatorRefusalTests {
    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    static func providerToken(pem: String, keyId: String, fraction: Double = 0) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(pem: pem), kid: JWKIdentifier(string: keyId))
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + fraction)
        let claims = Claims(iss: IssuerClaim(value: APNsSimHarness.teamId), iat: IssuedAtClaim(value: now))
        return try await keys.sign(claims, kid: JWKIdentifier(string: keyId))
    }

    @Test("a wrong key id, a fractional iat, a bad apns-id, another method, another path and HTTP/1.1 each get a status and reason")
    func refusals() async throws {
        let sim = try await APNsSimHarness()
        var configuration = HTTPClient.Configuration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        configuration.tlsConfiguration = tls
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        configuration.httpVersion = .http1Only
        let http1 = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let device = "/3/device/" + String(repeating: "ab", count: 32)
            func send(
                _ method: HTTPMethod, _ path: String, token: String, apnsId: String? = nil, over client: HTTPClient = client
            ) async throws -> (status: UInt, reason: String?) {
                var request = HTTPClientRequest(url: sim.url + path)
                request.method = method
                request.headers.add(name: "authorization", value: "bearer \(token)")
                request.headers.add(name: "apns-push-type", value: "alert")
                request.headers.add(name: "apns-topic", value: "com.example.app")
                if let apnsId { request.headers.add(name: "apns-id", value: apnsId) }
                if method == .POST { request.body = .bytes(ByteBuffer(string: #"{"aps":{"alert":"hi"}}"#)) }
                let response = try await client.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 4096)
                let reason = (try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])?["reason"] as? String
                return (response.status.code, reason)
            }
            let good = try await Self.providerToken(pem: sim.providerKeyPEM, keyId: APNsSimHarness.keyId)
            #expect(try await send(.POST, device, token: good, apnsId: UUID().uuidString).status == 200, "the well-formed push is taken")
            let wrongKid = try await Self.providerToken(pem: sim.providerKeyPEM, keyId: "WRONGKEY99")
            #expect(try await send(.POST, device, token: wrongKid) == (403, "InvalidProviderToken"))
            let fractional = try await Self.providerToken(pem: sim.providerKeyPEM, keyId: APNsSimHarness.keyId, fraction: 0.5)
            #expect(try await send(.POST, device, token: fractional) == (403, "InvalidProviderToken"))
            #expect(try await send(.POST, device, token: good, over: http1) == (505, "HTTP2Required"))
            #expect(try await send(.POST, device, token: good, apnsId: "not-a-uuid") == (400, "BadMessageId"))
            #expect(try await send(.GET, device, token: good) == (405, "MethodNotAllowed"))
            #expect(try await send(.POST, "/3/elsewhere", token: good) == (404, "BadPath"))
            #expect(sim.simulator.pushes.count == 1, "only the well-formed push was accepted")
        } catch {
            try? await client.shutdown()
            try? await http1.shutdown()
            try? await sim.stop()
            throw error
        }
        try await client.shutdown()
        try await http1.shutdown()
        try await sim.stop()
    }
}
