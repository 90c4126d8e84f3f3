import CollabCore
import CollabSeed
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// Fault rules declared in seed files: installed when the seed is applied (at start and through the
/// control API), confined to their account, validated like the control API's with the place in the
/// file named, idempotent, and back after a reset.
@Suite("Fault rules in seed files")
struct SeedFaultTests: TwoAccountLogins {

    /// `twoAccountSeed` with a 418 on alpha's `getCurrentAccount` and a latency rule for alpha's mobile API.
    static var seedWithFaults: Seed {
        var seed = twoAccountSeed
        seed.accounts[0].faults = [
            FaultRule(
                match: FaultMatch(surface: "WEB_API", path: "/app/rest/v4/accounts/getCurrentAccount"),
                action: .error(status: 418, message: "seeded fault")),
            FaultRule(description: "slow phones", match: FaultMatch(surface: "MOBILE"), action: .latency(millis: 0)),
        ]
        return seed
    }

    static func rules(_ server: InProcessServer) async throws -> [FaultRule] {
        try await server.call(.get, "/_mock/v1/faults", authorization: root).decode(FaultRuleList.self).rules
    }

    @Test("a seed's rules are installed for its account only, hit that account only, survive a re-apply without doubling and come back after a reset")
    func installedAndConfined() async throws {
        try await InProcessServer.with(seed: Self.seedWithFaults) { server in
            let alphaId = try server.server.environment.resolveAccount("alpha").id
            let installed = try await Self.rules(server)
            #expect(installed.count == 2)
            #expect(installed.allSatisfy { $0.accountId == alphaId })
            #expect(installed.map(\.description) == [nil, "slow phones"])

            let alpha = try await server.call(
                .get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.alphaAdmin)
            #expect(alpha.status.code == 418)
            #expect(alpha.text.contains("seeded fault"))
            let beta = try await server.call(
                .get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.betaAdmin)
            #expect(beta.status == .ok, "another account's requests are never hit")
            let betaRules = try await server.call(.get, "/_mock/v1/faults", authorization: Self.betaAdmin)
                .decode(FaultRuleList.self)
            #expect(betaRules.rules.isEmpty, "another account's admin does not see the seed's rules")

            // Applying the same seed again replaces its rules (same ids, counters kept) instead of adding more.
            let json = String(decoding: try JSONEncoder().encode(Self.seedWithFaults), as: UTF8.self)
            #expect(try await server.call(.post, "/_mock/v1/seed", authorization: Self.root, body: json).status == .ok)
            let again = try await Self.rules(server)
            #expect(again.map(\.id) == installed.map(\.id))
            #expect(again.first?.injected == 1)

            // A reset removes the account's rules and re-applies the startup seed: they are back.
            #expect(try await server.call(.post, "/_mock/v1/reset", authorization: Self.root, body: ResetRequest(account: "alpha")).status == .ok)
            #expect(try await Self.rules(server).map(\.id) == installed.map(\.id))
            #expect(try await server.call(.post, "/_mock/v1/reset", authorization: Self.root).status == .ok)
            #expect(try await Self.rules(server).count == 2)
        }
    }

    @Test("a YAML seed's faults list is read like the control API's rule body")
    func yaml() async throws {
        let seed = try SeedLoader.parse(
            """
            accounts:
              - name: yaml-account
                users:
                  - {username: root, password: root, role: SUPER_ADMIN}
                faults:
                  - id: slow-messages
                    match: {surface: MOBILE, method: POST, path: /mobile/v1/conversations/*/messages}
                    action: {type: LATENCY, distribution: UNIFORM, minMillis: 10, maxMillis: 20}
                    probability: 0.5
                    seed: 42
                  - match: {surface: AGENT}
                    action: {type: ERROR, status: 503}
                    limit: 3
            """
        )
        try await InProcessServer.with(seed: seed) { server in
            let rules = try await Self.rules(server)
            #expect(rules.map(\.id).first == "slow-messages")
            #expect(rules.first?.seed == 42)
            #expect(rules.last?.limit == 3)
            #expect(rules.last?.id?.hasPrefix("seed-") == true)
        }
    }

    @Test("a bad rule refuses the whole seed with a 400 naming its place in the file, and nothing changes")
    func badRules() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let before = try server.stats()
            let cases: [(String, String)] = [
                (#"{"match": {}, "action": {"type": "ERROR", "status": 700}}"#, "accounts[1] ('gamma').faults[0]: action.status must be 400 to 599"),
                (
                    #"{"match": {"surface": "SMTP"}, "action": {"type": "LATENCY", "millis": 5}}"#,
                    "accounts[1] ('gamma').faults[0]: match.surface must be"
                ),
                (#"{"match": {"account": "alpha"}, "action": {"type": "LATENCY", "millis": 5}}"#, "accounts[1] ('gamma').faults[0].match.account"),
                (#"{"id": "../x", "match": {}, "action": {"type": "LATENCY", "millis": 5}}"#, "accounts[1] ('gamma').faults[0].id"),
                (#"{"match": {}, "action": {"type": "EXPLODE"}}"#, "action.type must be"),
            ]
            for (rule, message) in cases {
                let seed = #"{"accounts": [{"name": "alpha"}, {"name": "gamma", "#
                    + #""users": [{"username": "gamma-admin", "password": "pw", "role": "ADMIN"}], "faults": [\#(rule)]}]}"#
                let answer = try await server.call(.post, "/_mock/v1/seed", authorization: Self.root, body: seed)
                #expect(answer.status == .badRequest, "\(rule)")
                #expect(answer.text.contains(message), "\(rule): \(answer.text)")
            }
            #expect(try server.stats() == before, "no account, user or rule was made")
            #expect(try await Self.rules(server).isEmpty)
        }
    }
}
