import CollabClient
import CollabCore
import CollabTestSupport
import CollabWire
import HTTPTypes
import Testing

@testable import CollabServer

/// What a deleted account leaves behind: nothing. The commit that deletes it tells every part that keeps
/// something per account (``AccountScopedPart``) through the committed stream, so a server whose tenants
/// come and go (a CI suite making an account per test) does not grow with the ones that went.
@Suite("Deleting an account")
struct AccountDeletionTests: TwoAccountLogins {
    /// Gives beta something in every per-account part: a verified credential and an encoded answer, a
    /// fault rule, live events (a started client's conversation) and a wrong invitation token.
    static func useBeta(_ server: InProcessServer) async throws -> String {
        let account = try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: betaAdmin).decode(WebAccount.self)
        let rule = FaultRule(match: FaultMatch(path: "/never"), action: .error(status: 503))
        #expect(try await server.call(.post, "/_mock/v1/faults", authorization: betaAdmin, body: rule).status == .created)
        let visitor = try await server.visitorBearer(key: "beta-key", device: "beta-phone")
        let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
        #expect(conversation.status.kind == .successful)
        let guess = try await server.call(
            .post, "/mobile/v1/invitations/redeem", authorization: visitor, body: RedeemInvitationRequest(token: "no-such-token"))
        #expect(guess.status == .notFound)
        return try #require(account.id)
    }

    @Test("every part lets go of a deleted account; the other account keeps what it has")
    func deletionReleasesEveryPart() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let beta = try await Self.useBeta(server)
            let alpha = try #require(
                try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.alphaAdmin).decode(WebAccount.self).id)
            let env = server.server.environment
            for id in [alpha, beta] {
                #expect(env.credentials.holdsPart(of: id))
                #expect(env.encodedBodies.count(accountId: id) == 1)
            }
            #expect(env.events.holdsPart(of: beta))
            #expect(env.redemptions.holdsPart(of: beta))
            #expect(env.faults.list(accountId: beta).count == 1)

            #expect(try await server.call(.delete, "/app/rest/v4/accounts/\(beta)/delete", authorization: Self.root).status == .noContent)
            // The answer came after the commit, and the commit told every part: nothing to wait for.
            #expect(!env.credentials.holdsPart(of: beta))
            #expect(env.encodedBodies.count(accountId: beta) == 0)
            #expect(!env.events.holdsPart(of: beta))
            #expect(!env.redemptions.holdsPart(of: beta))
            #expect(env.faults.list(accountId: beta).isEmpty)
            #expect(try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.betaAdmin).status == .unauthorized)

            #expect(env.credentials.holdsPart(of: alpha))
            #expect(env.encodedBodies.count(accountId: alpha) == 1)
            #expect(try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.alphaAdmin).status == .ok)
        }
    }

    @Test("resetting an account is no deletion: the account stays, and so do its parts")
    func resetKeepsParts() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let beta = try await Self.useBeta(server)
            let env = server.server.environment
            try await server.control.reset(account: "beta")
            #expect(env.events.holdsPart(of: beta))
            #expect(env.credentials.holdsPart(of: beta))
            #expect(try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.betaAdmin).status == .ok)
        }
    }

    @Test("restoring a server snapshot replaces every account but deletes none: the parts stay")
    func restoreKeepsParts() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let beta = try await Self.useBeta(server)
            let env = server.server.environment
            let control = "Bearer test-control-token"
            let snapshot = try await server.call(.get, "/_mock/v1/snapshot", authorization: control)
            #expect(snapshot.status == .ok)
            let restored = try await server.call(.post, "/_mock/v1/snapshot", authorization: control, body: snapshot.text)
            #expect(restored.status == .ok, "\(restored.text)")
            #expect(env.events.holdsPart(of: beta))
            #expect(env.credentials.holdsPart(of: beta))
            #expect(try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.betaAdmin).status == .ok)
        }
    }
}
