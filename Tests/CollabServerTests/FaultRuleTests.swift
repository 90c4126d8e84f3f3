import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// Fault rules (`/_mock/v1/faults`) in process: errors with the surface's body that change nothing,
/// latency, matching, limits, expiry on the server clock, seeded determinism, isolation between
/// accounts and bad input.
@Suite("Fault rules")
struct FaultRuleTests: TwoAccountLogins {
    /// A started alpha visitor with a conversation: its bearer header and the conversation's id.
    static func visitor(_ server: InProcessServer, key: String = "alpha-key", device: String = "phone") async throws -> (String, String) {
        let start = try await server.call(
            .post, "/mobile/v1/clients", body: ClientStartRequest(apiKey: key, deviceId: device, device: .init(os: "iOS"))
        ).decode(ClientStartResponse.self)
        let bearer = "Bearer " + start.token
        let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: bearer, body: StartConversationRequest())
            .decode(ConversationView.self)
        return (bearer, conversation.id)
    }

    static func add(_ server: InProcessServer, _ rule: FaultRule, as caller: String = root) async throws -> FaultRule {
        let answer = try await server.call(.post, "/_mock/v1/faults", authorization: caller, body: rule)
        #expect(answer.status == .created, "\(answer.text)")
        return try answer.decode(FaultRule.self)
    }

    @Test("an error rule answers with the surface's typed body, changes nothing, is journaled, and stops at its limit")
    func errorRule() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let (visitor, conversation) = try await Self.visitor(server)
            let rule = try await Self.add(
                server,
                FaultRule(
                    match: FaultMatch(surface: "MOBILE", method: "POST", path: "/mobile/v1/conversations/*/messages"),
                    action: .error(status: 503, message: "the network is down"), limit: 2
                )
            )
            let before = try server.stats(account: nil)
            for _ in 0..<2 {
                let refused = try await server.call(
                    .post, "/mobile/v1/conversations/\(conversation)/messages", authorization: visitor, body: SendMessageRequest(text: "hi"))
                #expect(refused.status == .serviceUnavailable)
                #expect(try refused.decode(APIErrorBody.self) == APIErrorBody(type: "UNAVAILABLE", message: "the network is down", status: 503))
            }
            #expect(try server.stats(account: nil) == before, "an injected error changes nothing")
            let journal = try await server.call(.get, "/_mock/v1/journal?path=/mobile/v1/conversations", authorization: Self.root)
                .decode(JournalPage.self)
            #expect(journal.entries.filter { $0.faultRuleId == rule.id }.count == 2)
            // The limit is spent: the next request goes through and the rule is gone.
            let sent = try await server.call(
                .post, "/mobile/v1/conversations/\(conversation)/messages", authorization: visitor, body: SendMessageRequest(text: "hi"))
            #expect(sent.status == .ok || sent.status == .created, "\(sent.text)")
            #expect(try await server.call(.get, "/_mock/v1/faults", authorization: Self.root).decode(FaultRuleList.self).rules.isEmpty)

            // The Web API answers with its Error body; the control API is never hit.
            _ = try await Self.add(server, FaultRule(match: FaultMatch(path: "/**"), action: .error(status: 502)))
            let web = try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.alphaAdmin)
            #expect(web.status == .badGateway)
            let webError = try web.decode(WebAPIError.self)
            #expect(webError.errorMessage == "injected fault")
            #expect(webError.statusDescription == "Bad Gateway", "the standard reason phrase, as the real server's body has")
            #expect(try await server.call(.get, "/_mock/v1/faults", authorization: Self.root).status == .ok)
            #expect(try await server.call(.get, "/healthz").status == .ok)
        }
    }

    @Test("latency delays the answer by at least the drawn time and is journaled")
    func latency() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let rule = try await Self.add(server, FaultRule(match: FaultMatch(surface: "WEB_API"), action: .latency(millis: 50)))
            let answer = try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.alphaAdmin)
            #expect(answer.status == .ok)
            let journal = try await server.call(.get, "/_mock/v1/journal?path=/app/rest/v4/accounts", authorization: Self.root)
                .decode(JournalPage.self)
            let entry = try #require(journal.entries.last)
            #expect(entry.faultRuleId == rule.id)
            #expect(entry.durationMicros >= 50_000, "a sleep is never shorter than asked")
        }
    }

    @Test("draws repeat with the same seed: two servers, the same rules, the same requests, the same hits")
    func determinism() async throws {
        func hits(seed: UInt64) async throws -> [Bool] {
            try await InProcessServer.with(seed: twoAccountSeed) { server in
                _ = try await Self.add(
                    server, FaultRule(match: FaultMatch(surface: "WEB_API"), action: .error(status: 500), probability: 0.5, seed: seed)
                )
                var hits: [Bool] = []
                for _ in 0..<40 {
                    hits.append(
                        try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.alphaAdmin).status
                            == .internalServerError)
                }
                return hits
            }
        }
        let first = try await hits(seed: 42)
        #expect(try await hits(seed: 42) == first)
        #expect(first.contains(true) && first.contains(false), "a probability of 0.5 hits some and spares some")
        #expect(try await hits(seed: 7) != first)
    }

    @Test("rules expire on the server clock; device and client matchers pick one visitor")
    func expiryAndDevices() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let (first, _) = try await Self.visitor(server, device: "slow-phone")
            let (second, _) = try await Self.visitor(server, device: "fast-phone")
            _ = try await Self.add(
                server, FaultRule(match: FaultMatch(deviceId: "slow-phone"), action: .error(status: 429), expiresInMillis: 60_000)
            )
            #expect(try await server.call(.get, "/mobile/v1/conversations", authorization: first).status == .tooManyRequests)
            #expect(try await server.call(.get, "/mobile/v1/conversations", authorization: second).status == .ok)
            server.server.environment.clock.advance(by: 60_001)
            #expect(try await server.call(.get, "/mobile/v1/conversations", authorization: first).status == .ok, "expired on the virtual clock")
            #expect(try await server.call(.get, "/_mock/v1/faults", authorization: Self.root).decode(FaultRuleList.self).rules.isEmpty)
        }
    }

    @Test("an account admin's rules stay in its account; other admins neither see nor remove them")
    func isolation() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let rule = try await Self.add(server, FaultRule(match: FaultMatch(surface: "WEB_API"), action: .error(status: 503)), as: Self.alphaAdmin)
            #expect(rule.accountId != nil)
            #expect(
                try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.alphaAdmin).status == .serviceUnavailable)
            #expect(try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.betaAdmin).status == .ok)
            #expect(try await server.call(.get, "/_mock/v1/faults", authorization: Self.betaAdmin).decode(FaultRuleList.self).rules.isEmpty)
            #expect(try await server.call(.delete, "/_mock/v1/faults/\(rule.id ?? "")", authorization: Self.betaAdmin).status == .notFound)
            let aimed = try await server.call(
                .post, "/_mock/v1/faults", authorization: Self.alphaAdmin,
                body: FaultRule(match: FaultMatch(account: "beta"), action: .error(status: 503))
            )
            #expect(aimed.status == .notFound, "an admin cannot aim a rule at another account")
            let agent = try await server.call(.get, "/_mock/v1/faults", authorization: InProcessServer.basic("alpha-agent", "pw-a"))
            #expect(agent.status == .forbidden)
            #expect(try await server.call(.delete, "/_mock/v1/faults", authorization: Self.betaAdmin).status == .noContent)
            #expect(try await server.call(.get, "/_mock/v1/faults", authorization: Self.alphaAdmin).decode(FaultRuleList.self).rules.count == 1)
            #expect(try await server.call(.delete, "/_mock/v1/faults/\(rule.id ?? "")", authorization: Self.alphaAdmin).status == .noContent)
        }
    }

    @Test("a posted rule keeps its id, as a seed's does; the id is taken in its account until the rule goes; seeds fit in 53 bits")
    func chosenIdsAndSeeds() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let rule = FaultRule(id: "flaky-send", match: FaultMatch(method: "POST"), action: .error(status: 503), seed: (1 << 53) - 1)
            let added = try await Self.add(server, rule, as: Self.alphaAdmin)
            #expect(added.id == "flaky-send")
            #expect(added.seed == (1 << 53) - 1)
            #expect(try await server.call(.post, "/_mock/v1/faults", authorization: Self.alphaAdmin, body: rule).status == .conflict)
            // Ids are per account: another account's admin may use the same one, and learns nothing of alpha's.
            let again = try await server.call(.post, "/_mock/v1/faults", authorization: Self.betaAdmin, body: rule)
            #expect(again.status == .created, "\(again.text)")
            #expect(try await server.call(.get, "/_mock/v1/faults", authorization: Self.root).decode(FaultRuleList.self).rules.count == 2)
            // The operator names the account when an id is held in several.
            let ambiguous = try await server.call(.delete, "/_mock/v1/faults/flaky-send", authorization: Self.root)
            #expect(ambiguous.status == .conflict && ambiguous.text.contains("?account="), "\(ambiguous.text)")
            #expect(try await server.call(.delete, "/_mock/v1/faults/flaky-send?account=beta", authorization: Self.root).status == .noContent)
            #expect(try await server.call(.delete, "/_mock/v1/faults/flaky-send", authorization: Self.alphaAdmin).status == .noContent)
            #expect(try await Self.add(server, rule, as: Self.betaAdmin).id == "flaky-send")
            // Without an id or a seed, the server picks both; the seed stays exact in any JSON reader.
            let picked = try await Self.add(server, FaultRule(match: FaultMatch(method: "GET"), action: .error(status: 503)))
            #expect(picked.id != nil && picked.id != "flaky-send")
            #expect(try #require(picked.seed) <= (1 << 53) - 1)
        }
    }

    @Test("bad rules get a 400 naming the field and add nothing", .serialized, arguments: [
        (#"{"match":{},"action":{"type":"EXPLODE"}}"#, "action.type"),
        (#"{"match":{},"action":{"type":"ERROR","status":600}}"#, "action.status"),
        (#"{"match":{},"action":{"type":"LATENCY","millis":60001}}"#, "action.millis"),
        (#"{"match":{},"action":{"type":"LATENCY","distribution":"UNIFORM","minMillis":9,"maxMillis":3}}"#, "minMillis"),
        (#"{"match":{},"action":{"type":"LATENCY","distribution":"GAUSS"}}"#, "action.distribution"),
        (#"{"match":{},"action":{"type":"ERROR"},"probability":2}"#, "probability"),
        (#"{"match":{},"action":{"type":"ERROR"},"limit":0}"#, "limit"),
        (#"{"match":{"surface":"CONTROL"},"action":{"type":"ERROR"}}"#, "match.surface"),
        (#"{"match":{"path":"no-slash"},"action":{"type":"ERROR"}}"#, "match.path"),
        (#"{"match":{},"action":{"type":"ERROR"},"expiresInMillis":0}"#, "expiresInMillis"),
        (#"{"action":{"type":"ERROR"}}"#, "match"),
        (#"{"match":{},"action":{"type":"ERROR"},"seed":9007199254740992}"#, "seed"),
        (#"{"id":"no spaces","match":{},"action":{"type":"ERROR"}}"#, "id"),
        (#"{"id":"","match":{},"action":{"type":"ERROR"}}"#, "id"),
        // A misspelt key is refused, not ignored: ignored, it would leave the rule matching every request.
        (#"{"match":{"surface":"MOBILE","pathh":"/x"},"action":{"type":"ERROR"}}"#, "unknown field 'match.pathh'"),
        (#"{"match":{},"action":{"type":"LATENCY","milis":5}}"#, "unknown field 'action.milis'"),
        (#"{"match":{},"action":{"type":"ERROR"},"limt":1}"#, "unknown field 'limt'"),
    ])
    func badRules(body: String, field: String) async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let answer = try await server.call(.post, "/_mock/v1/faults", authorization: Self.root, body: body)
            #expect(answer.status == .badRequest, "\(body): \(answer.text)")
            #expect(answer.text.contains(field), "\(body): \(answer.text)")
            #expect(try await server.call(.get, "/_mock/v1/faults", authorization: Self.root).decode(FaultRuleList.self).rules.isEmpty)
        }
    }

    @Test("APNs says the token is unregistered: a PUSH_FAILURE rule answers for the device, and its token is removed")
    func pushFailure() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let start = try await server.call(
                .post, "/mobile/v1/clients", body: ClientStartRequest(apiKey: "alpha-key", deviceId: "gone-phone", device: .init(os: "iOS"))
            ).decode(ClientStartResponse.self)
            let visitor = "Bearer " + start.token
            _ = try await server.call(
                .put, "/mobile/v1/clients/current/push", authorization: visitor,
                body: PushRegistrationRequest(apnsToken: String(repeating: "ab", count: 32), version: "NOT_ENCRYPTED")
            )
            _ = try await server.call(
                .put, "/mobile/v1/clients/current/app-state", authorization: visitor, body: AppStateRequest(appState: "BACKGROUND"))
            let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
                .decode(ConversationView.self)
            let agent = "Bearer "
                + (try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "alpha-agent", password: "pw-a"))
                    .decode(AgentLoginResponse.self).token)
            _ = try await server.call(.post, "/agent/v1/conversations/\(conversation.id)/accept", authorization: agent)
            let rule = try await Self.add(
                server, FaultRule(match: FaultMatch(deviceId: "gone-phone"), action: .pushFailure(reason: "Unregistered")), as: Self.alphaAdmin
            )
            #expect(rule.action.status == 410)
            _ = try await server.call(
                .post, "/agent/v1/conversations/\(conversation.id)/messages", authorization: agent, body: SendMessageRequest(text: "are you there?"))
            #expect(try await server.call(.get, "/_mock/v1/pushes/settle", authorization: Self.root).status == .noContent)
            let pushes = try await server.call(.get, "/_mock/v1/pushes?deviceId=gone-phone", authorization: Self.root).decode(PushPage.self).pushes
            let push = try #require(pushes.last)
            #expect(push.state == .unregistered)
            #expect(push.attempts.last?.sink == "fault" && push.attempts.last?.reason == "Unregistered" && push.attempts.last?.status == 410)
            let devices = try await server.call(.get, "/_mock/v1/devices", authorization: Self.root).decode([DeviceView].self)
            #expect(devices.first { $0.deviceId == "gone-phone" }?.apnsToken == nil, "the token is removed as a real 410 would remove it")
            // The stats count each push's final state once it is settled: every push emitted has one.
            let stats = try await server.call(.get, "/_mock/v1/stats?account=alpha", authorization: Self.root).decode(StateStats.self)
            let all = try await server.call(.get, "/_mock/v1/pushes?account=alpha", authorization: Self.root).decode(PushPage.self).pushes
            #expect(stats.pushOutcomes.unregistered == all.filter { $0.state == .unregistered }.count && stats.pushOutcomes.unregistered >= 1)
            let outcomes = stats.pushOutcomes
            #expect(outcomes.delivered + outcomes.failed + outcomes.unregistered + outcomes.suppressed + outcomes.recorded == stats.pushesEmitted)
            let beta = try await server.call(.get, "/_mock/v1/stats?account=beta", authorization: Self.root).decode(StateStats.self)
            #expect(beta.pushOutcomes == StateStats.PushOutcomes(), "another account's outcomes are its own")
            let journal = try await server.call(.get, "/_mock/v1/journal", authorization: Self.root).decode(JournalPage.self)
            let entry = try #require(journal.entries.first { $0.faultRuleId == rule.id })
            #expect(entry.method == "PUSH" && entry.fault == "PUSH_FAILURE" && entry.status == 410 && entry.path == "/pushes/\(push.pushId)")
            // HTTP requests of that device are not hit by a push rule.
            #expect(try await server.call(.get, "/mobile/v1/conversations", authorization: visitor).status == .ok)
            let bad = try await server.call(
                .post, "/_mock/v1/faults", authorization: Self.root, body: #"{"match":{},"action":{"type":"PUSH_FAILURE","reason":"Nope"}}"#
            )
            #expect(bad.status == .badRequest && bad.text.contains("action.reason"))
        }
    }

    @Test("latency draws: uniform stays in its bounds, log-normal has its median and a tail, both repeat with the seed")
    func distributions() {
        var generator = SeededRandom(seed: 1)
        let uniform = FaultAction(type: "LATENCY", distribution: "UNIFORM", minMillis: 200, maxMillis: 1_500)
        let draws = (0..<1_000).map { _ in FaultRules.latency(uniform, generator: &generator) }
        #expect(draws.allSatisfy { (200...1_500).contains($0) })
        #expect(Set(draws).count > 100, "spread over the range")
        var again = SeededRandom(seed: 1)
        #expect((0..<1_000).map { _ in FaultRules.latency(uniform, generator: &again) } == draws)

        var tail = SeededRandom(seed: 2)
        let logNormal = FaultAction(type: "LATENCY", distribution: "LOGNORMAL", medianMillis: 100, sigma: 1)
        let sorted = (0..<2_001).map { _ in FaultRules.latency(logNormal, generator: &tail) }.sorted()
        #expect((80...125).contains(sorted[1_000]), "the median is near 100 ms: \(sorted[1_000])")
        #expect(sorted[1_980] > 500, "a long tail: the 99th percentile is several times the median")
        #expect(sorted.last! <= FaultRules.maxLatencyMillis)
    }

    @Test("path patterns: * is one segment, a trailing ** any rest")
    func patterns() {
        #expect(PathPattern.matches("/mobile/v1/conversations/*/messages", "/mobile/v1/conversations/abc/messages"))
        #expect(!PathPattern.matches("/mobile/v1/conversations/*/messages", "/mobile/v1/conversations/abc/messages/x"))
        #expect(!PathPattern.matches("/mobile/v1/conversations/*", "/mobile/v1/conversations"))
        #expect(PathPattern.matches("/agent/v1/**", "/agent/v1/conversations/x/accept"))
        #expect(PathPattern.matches("/**", "/app/rest/v4/accounts/getCurrentAccount"))
        #expect(!PathPattern.matches("/agent/v1/**", "/mobile/v1/clients"))
    }
}
