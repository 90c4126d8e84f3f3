import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import NIOCore
import Testing

@testable import CollabServer

/// Guessing at invitation PINs (issue 25, item 9): wrong tokens are limited per address and per
/// account, answered 429 with `Retry-After` and the mobile API's typed body; the windows run on the
/// server's clock, so the virtual clock lifts them. In process (router mode).
@Suite("PIN guessing")
struct PinGuessingTests {
    static let seed = Seed(accounts: [
        .init(name: "one", apiKeys: [.init(key: "one-key")], users: [.init(username: "admin-one", password: "pw", role: .admin)]),
        .init(name: "two", apiKeys: [.init(key: "two-key")], users: [.init(username: "admin-two", password: "pw", role: .admin)]),
    ])

    /// A started visitor of the account with `apiKey`, and a PIN to a conversation of it.
    static func visitorAndPin(_ server: InProcessServer, apiKey: String, admin: String) async throws -> (visitor: String, pin: String) {
        let start = try await server.call(
            .post, "/mobile/v1/clients", body: ClientStartRequest(apiKey: apiKey, deviceId: "phone-\(apiKey)", device: .init(os: "iOS"))
        ).decode(ClientStartResponse.self)
        let visitor = "Bearer " + start.token
        let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
            .decode(ConversationView.self)
        let invitation = try await server.call(
            .post, "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithPin", authorization: InProcessServer.basic(admin, "pw"),
            body: #"{"conversationId":"\#(conversation.id)"}"#
        )
        let fields = try JSONSerialization.jsonObject(with: Data(invitation.body.readableBytesView)) as? [String: Any]
        let pin = try #require(fields?["token"] as? String)
        return (visitor, pin)
    }

    /// A six-digit token that is not `pin`.
    static func wrong(_ pin: String, _ n: Int) -> String {
        let guess = String(format: "%06d", n)
        return guess == pin ? String(format: "%06d", n + 1) : guess
    }

    /// Runs `body` against a server with these redemption limits (60 s windows), its clock frozen so
    /// only the virtual clock moves the windows.
    static func with(perAddress: Int, perAccount: Int, _ body: @escaping @Sendable (InProcessServer) async throws -> Void) async throws {
        try await InProcessServer.with(seed: Self.seed, configure: { configuration in
            configuration.redemptionLimits = RedemptionLimits(perAddress: perAddress, perAccount: perAccount, perInvitation: 1_000, window: 60_000)
        }) { server in
            server.server.clock.setFrozen(true)
            try await body(server)
        }
    }

    /// Redeems `token` as `visitor`.
    static func redeem(_ server: InProcessServer, _ visitor: String, _ token: String) async throws -> InProcessServer.Answer {
        try await server.call(.post, "/mobile/v1/invitations/redeem", authorization: visitor, body: RedeemInvitationRequest(token: token))
    }

    @Test(
        "beyond the per-address limit: 429 RATE_LIMITED with Retry-After, the right PIN too; other tenants unaffected; the virtual clock lifts it"
    )
    func perAddressLimit() async throws {
        try await Self.with(perAddress: 5, perAccount: 1_000) { server in
            let (visitor, pin) = try await Self.visitorAndPin(server, apiKey: "one-key", admin: "admin-one")
            for n in 0..<5 {
                let answer = try await Self.redeem(server, visitor, Self.wrong(pin, n))
                #expect(answer.status == .notFound)
            }
            for token in [Self.wrong(pin, 5), pin] {
                let refused = try await Self.redeem(server, visitor, token)
                #expect(refused.status == .tooManyRequests)
                #expect(refused.headers[.retryAfter] == "12", "one attempt frees up every 60 s / 5")
                let body = try refused.decode(APIErrorBody.self)
                #expect(body.type == "RATE_LIMITED" && body.status == 429)
            }
            // The same address at another tenant still redeems.
            let (other, otherPin) = try await Self.visitorAndPin(server, apiKey: "two-key", admin: "admin-two")
            #expect(try await Self.redeem(server, other, otherPin).status == .ok)
            // The virtual clock moves the window.
            _ = try await server.call(.post, "/_mock/v1/clock", authorization: "Bearer test-control-token", body: ClockChange(advanceMillis: 12_000))
            #expect(try await Self.redeem(server, visitor, pin).status == .ok)
        }
    }

    @Test("the per-account limit answers 429 for every address of that account only")
    func perAccountLimit() async throws {
        try await Self.with(perAddress: 1_000, perAccount: 3) { server in
            let (visitor, pin) = try await Self.visitorAndPin(server, apiKey: "one-key", admin: "admin-one")
            for n in 0..<3 {
                #expect(try await Self.redeem(server, visitor, Self.wrong(pin, n)).status == .notFound)
            }
            let refused = try await Self.redeem(server, visitor, pin)
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "20")
            let (other, otherPin) = try await Self.visitorAndPin(server, apiKey: "two-key", admin: "admin-two")
            #expect(try await Self.redeem(server, other, otherPin).status == .ok)
        }
    }
}
