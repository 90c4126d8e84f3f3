import CollabClient
import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import CollabServer

/// Two accounts that share files: `fileSeed`'s "files" and "files-b".
let twoFileTenantsSeed = Seed(accounts: [
    fileSeed.accounts[0],
    .init(
        name: "files-b", configuration: [FileRestrictions.allowedMimeTypesKey: "image/*"], apiKeys: [.init(key: "files-b-key")],
        namedAreas: [.init(siteId: "area-b1", name: "Area B1")], users: [.init(username: "admin-b", password: "pw", role: .admin)]
    ),
])

/// Every shared budget is per account: one tenant at its limit slows or refuses only itself (issue 25,
/// items 3 and 5). Router mode: none of it needs a socket.
@Suite("Budgets per account")
struct AccountBudgetTests {
    /// A started visitor of the account `apiKey` names, with a conversation: its bearer header and the conversation.
    static func visitorConversation(_ server: InProcessServer, apiKey: String, area: String, device: String) async throws -> (String, String) {
        let start = try await server.call(
            .post, "/mobile/v1/clients", body: ClientStartRequest(apiKey: apiKey, deviceId: device, device: .init(os: "iOS"), namedArea: area)
        ).decode(ClientStartResponse.self)
        let bearer = "Bearer " + start.token
        let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: bearer, body: StartConversationRequest(topic: "t"))
            .decode(ConversationView.self)
        return (bearer, conversation.id)
    }

    /// Uploads `size` bytes of PNG as `bearer`.
    static func upload(
        _ server: InProcessServer, _ bearer: String, conversation: String, size: Int, seed: UInt8
    ) async throws -> InProcessServer.Answer {
        let response = try await server.client.execute(
            uri: "/mobile/v1/conversations/\(conversation)/files?name=p\(seed).png", method: .post, headers: [.authorization: bearer],
            body: ByteBuffer(bytes: pngBytes(size, seed: seed))
        )
        return InProcessServer.Answer(status: response.status, body: response.body, headers: response.headers)
    }

    @Test("one account filling its file quota gets 507 at its share; another account's upload still fits (the server-wide quota stays)")
    func fileQuotaPerAccount() async throws {
        // 8,000 bytes for the server: each account may hold a quarter, 2,000.
        try await InProcessServer.with(seed: twoFileTenantsSeed, configure: { $0.files = FileSettings(quota: 8_000) }) { server in
            let (greedy, greedyConversation) = try await Self.visitorConversation(server, apiKey: "files-key", area: "area-a", device: "greedy")
            var refusal: APIErrorBody?
            for seed in UInt8(1)...4 {
                let answer = try await Self.upload(server, greedy, conversation: greedyConversation, size: 1_900, seed: seed)
                if answer.status.code == 507 {
                    refusal = try answer.decode(APIErrorBody.self)
                    break
                }
                #expect(answer.status == .created, "\(answer.text)")
            }
            let refused = try #require(refusal, "the account's share is 2,000 bytes: its second 1,900-byte file is refused")
            #expect(refused.type == "FILE_QUOTA_EXCEEDED")
            #expect(refused.message.contains("account"), "\(refused.message)")
            #expect(server.server.fileBytesStored == 1_900)

            let (quiet, quietConversation) = try await Self.visitorConversation(server, apiKey: "files-b-key", area: "area-b1", device: "quiet")
            let answer = try await Self.upload(server, quiet, conversation: quietConversation, size: 67, seed: 9)
            #expect(answer.status == .created, "another tenant's 67-byte upload is stored: \(answer.text)")
        }
    }

    @Test("an admin's fault rules count against their account's cap; other accounts, super admins and the control token keep theirs")
    func faultRulesPerAccount() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            func post(_ caller: String, _ path: String) async throws -> HTTPResponse.Status {
                try await server.call(
                    .post, "/_mock/v1/faults", authorization: caller, body: FaultRule(match: FaultMatch(path: path), action: .error(status: 503))
                ).status
            }
            var accepted = 0
            while accepted < 300, try await post(FaultRuleTests.alphaAdmin, "/alpha/\(accepted)") == .created { accepted += 1 }
            #expect(accepted == 64, "an account holds at most 64 rules by default")
            let refused = try await server.call(
                .post, "/_mock/v1/faults", authorization: FaultRuleTests.alphaAdmin,
                body: FaultRule(match: FaultMatch(path: "/one-more"), action: .error(status: 503))
            )
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.decode(WebAPIError.self).errorMessage?.contains("this account") == true, "\(refused.text)")
            #expect(try await post(FaultRuleTests.betaAdmin, "/beta") == .created, "another tenant's admin still adds a rule")
            #expect(try await post("Bearer test-control-token", "/control") == .created, "the control token has a budget of its own")
            #expect(try await post(FaultRuleTests.root, "/root") == .created, "so have super admins")

            // Removing one of alpha's rules makes room for exactly one more.
            let alphaRules = try await server.call(.get, "/_mock/v1/faults", authorization: FaultRuleTests.alphaAdmin)
                .decode(FaultRuleList.self).rules
            #expect(alphaRules.count == 64)
            let first = try #require(alphaRules.first?.id)
            #expect(try await server.call(.delete, "/_mock/v1/faults/\(first)", authorization: FaultRuleTests.alphaAdmin).status == .noContent)
            #expect(try await post(FaultRuleTests.alphaAdmin, "/again") == .created)
            #expect(try await post(FaultRuleTests.alphaAdmin, "/over") == .tooManyRequests)
        }
    }
}
