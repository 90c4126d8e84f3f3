import CollabClient
import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

/// Path parameters are percent-decoded before they are used: an account named with a space is reached
/// as `Acme%20Corp`, and an error names an id as it was meant, not as it was encoded.
@Suite("Path parameters")
struct PathParameterTests {
    static let seed = Seed(accounts: [.init(name: "Acme Corp", apiKeys: [.init(key: "acme-corp-key")])])

    @Test("an encoded account name is the account; an unknown id is named decoded; bad percent-encoding is a 400")
    func decoded() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            // The client encodes the segment, the server decodes it.
            let token = try await server.control.issueToken(account: "Acme Corp", TestTokenRequest(subject: "alice"))
            #expect(!token.token.isEmpty)
            let control = "Bearer test-control-token"
            let direct = try await server.call(
                .post, "/_mock/v1/accounts/Acme%20Corp/tokens", authorization: control, body: TestTokenRequest(subject: "bob"))
            #expect(direct.status == .ok, "\(direct.text)")

            let unknown = try await server.call(.get, "/_mock/v1/cobrowsing/nope%3Cb%3E/stats", authorization: control)
            #expect(unknown.status == .notFound)
            #expect(unknown.text.contains("'nope<b>'") && !unknown.text.contains("%3C"), "\(unknown.text)")

            let bad = try await server.call(.get, "/_mock/v1/cobrowsing/50%ZZ/stats", authorization: control)
            #expect(bad.status == .badRequest && bad.text.contains("percent-encoding"), "\(bad.text)")
        }
    }
}
