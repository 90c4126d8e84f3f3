import CollabCore
import CollabWire
import Crypto
import Foundation
import HTTPTypes
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@testable import CollabServer

/// Secrets never reach a caller who may not see them: not in an answer's body or headers, not in a
/// snapshot export, not in the logs. Every route the server registers is called by every kind of caller
/// against a state in which every secret-bearing field holds a known value (docs/secrets.md has the
/// inventory), in process through HummingbirdTesting's router mode.
@Suite("Secrets: who may see what")
struct SecretExposureTests {
    /// Everyone who calls in the table.
    enum Caller: String, CaseIterable, Sendable {
        case anonymous, alphaVisitor, alphaAgent, alphaAdmin, root, betaVisitor, betaAgent, betaAdmin, control

        var account: String? {
            switch self {
            case .alphaVisitor, .alphaAgent, .alphaAdmin, .root: "alpha"
            case .betaVisitor, .betaAgent, .betaAdmin: "beta"
            case .anonymous, .control: nil
            }
        }

        var isVisitor: Bool { self == .alphaVisitor || self == .betaVisitor }
        var isAdmin: Bool { self == .alphaAdmin || self == .betaAdmin || self == .root }
    }

    /// Who may see a secret.
    enum Visibility: Sendable {
        /// The caller it belongs to (its own session, client token, device secret or keys).
        case owner(Caller)
        /// Nobody but the control token (which gets full exports): password hashes, signing secrets,
        /// push credentials, bot secrets, the control token itself.
        case operatorOnly
        /// Admins of the account (who read it through the Web API) and super admins.
        case accountAdmins(String)
        /// Agents and admins of the account and super admins.
        case accountStaff(String)
        /// Everyone of the account, visitors included (an API key is in every app build), and super admins.
        case accountMembers(String)
        /// Super admins only (what belongs to the whole server: global interceptors).
        case superAdmins

        func allows(_ caller: Caller) -> Bool {
            if caller == .control { return true }
            switch self {
            case .owner(let owner): return caller == owner
            case .operatorOnly: return false
            case .accountAdmins(let account): return caller == .root || (caller.account == account && caller.isAdmin)
            case .accountStaff(let account): return caller == .root || (caller.account == account && !caller.isVisitor)
            case .accountMembers(let account): return caller == .root || caller.account == account
            case .superAdmins: return caller == .root
            }
        }
    }

    struct Secret: Sendable {
        var label: String
        var value: String
        var visibility: Visibility

        /// Whether `text` holds the secret, as it is or JSON-escaped (`/` as `\/`).
        func isIn(_ text: String) -> Bool {
            Self.occurs(value, in: text)
                || (value.utf8.contains(UInt8(ascii: "/")) && Self.occurs(value.replacingOccurrences(of: "/", with: "\\/"), in: text))
        }

        /// A byte search of UTF-8 text (`memchr` for the first byte, `memcmp` for the rest): the table
        /// searches every answer for every secret, and Foundation's `contains` goes through `NSString` on
        /// Linux, which made it the table's main cost.
        static func occurs(_ needle: String, in haystack: String) -> Bool {
            var needle = needle
            var haystack = haystack
            return haystack.withUTF8 { text in
                needle.withUTF8 { part in
                    guard let first = part.first, let base = text.baseAddress, let partBase = part.baseAddress else { return part.isEmpty }
                    let last = text.count - part.count
                    var offset = 0
                    while offset <= last, let hit = memchr(base + offset, Int32(first), last - offset + 1) {
                        let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                        if memcmp(base + at, partBase, part.count) == 0 { return true }
                        offset = at + 1
                    }
                    return false
                }
            }
        }
    }

    /// The planted state: every caller's credentials, every secret and the ids routes take.
    struct Planted: Sendable {
        var authorization: [Caller: String]
        var secrets: [Secret]
        /// Ids by the path segment that names their kind (`conversations`, `users`, …), alpha's first.
        var ids: [String: [String]]
    }

    static let seed: Seed = {
        var seed = twoAccountSeed
        for index in seed.accounts.indices {
            let name = seed.accounts[index].name
            seed.accounts[index].apiKeys = [.init(key: "ak-\(name)-7f3e9c1d2b5a")]
            seed.accounts[index].jwt = .init(
                keys: [.init(kid: "shared", hs256Secret: "hs256-\(name)-0123456789abcdef0123456789abcdef")],
                testTokenSecret: "tts-\(name)-0123456789abcdef0123456789abcdef"
            )
        }
        return seed
    }()

    // MARK: the escalation of issue 25, item 1

    @Test("an admin's export carries no session, password hash or signing secret: the super admin's token cannot be lifted from it")
    func adminExportIsRedacted() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let root = try await Self.login(server, "root", "root")
            let admin = try await Self.login(server, "alpha-admin", "pw-a")
            let export = try await server.call(.get, "/_mock/v1/snapshot", authorization: admin)
            #expect(export.status == .ok, "\(export.text)")
            #expect(!export.text.contains(root.dropFirst("Bearer ".count)), "the super admin's session is in the admin's export")
            #expect(!export.text.contains(admin.dropFirst("Bearer ".count)), "the admin's own session is in the export")
            for user in ["root", "alpha-admin", "alpha-agent"] {
                let hash = try #require(server.server.environment.passwordHash(ofLoginName: user))
                #expect(!Secret(label: "", value: hash, visibility: .operatorOnly).isIn(export.text), "\(user)'s password hash is in the export")
            }
            #expect(!export.text.contains("hs256-alpha") && !export.text.contains("tts-alpha"), "a signing secret is in the export")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(export.text.utf8)) as? [String: Any])
            #expect(document["secrets"] as? String == "redacted")
            // The rest of the account is there.
            #expect(export.text.contains("alpha-agent") && export.text.contains("ak-alpha-7f3e9c1d2b5a"))
        }
    }

    @Test("secrets=included is for the control token and super admins; the control token gets them by default")
    func exportPolicy() async throws {
        try await InProcessServer.with(seed: Self.seed) { server in
            let root = try await Self.login(server, "root", "root")
            let admin = try await Self.login(server, "alpha-admin", "pw-a")
            let control = "Bearer test-control-token"
            let hash = try #require(server.server.environment.passwordHash(ofLoginName: "alpha-agent"))
            let rows: [(caller: String, query: String, status: HTTPResponse.Status, secrets: String?)] = [
                (admin, "", .ok, "redacted"),
                (admin, "?secrets=redacted", .ok, "redacted"),
                (admin, "?secrets=included", .forbidden, nil),
                (admin, "?secrets=everything", .badRequest, nil),
                (root, "", .ok, "redacted"),
                (root, "?secrets=included", .ok, "included"),
                (control, "", .ok, "included"),
                (control, "?secrets=redacted", .ok, "redacted"),
                (control, "?account=alpha&secrets=redacted", .ok, "redacted"),
            ]
            for row in rows {
                let answer = try await server.call(.get, "/_mock/v1/snapshot\(row.query)", authorization: row.caller)
                #expect(answer.status == row.status, "\(row.query): \(answer.text.prefix(200))")
                guard let secrets = row.secrets else {
                    #expect(answer.text.contains("\"statusCode\":\(row.status.code)"), "a typed error: \(answer.text)")
                    continue
                }
                let document = try #require(try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any])
                #expect(document["secrets"] as? String == secrets)
                #expect(Secret(label: "", value: hash, visibility: .operatorOnly).isIn(answer.text) == (secrets == "included"))
            }
        }
    }

    @Test("a redacted snapshot restores a working account: sessions gone, passwords unset, keys and signing secrets issued anew")
    func redactedRestore() async throws {
        let receiver = try await WebhookReceiver()
        try await InProcessServer.with(seed: Self.seed, configure: Self.noRetries) { server in
            let planted = try await Self.plant(server, endpoint: receiver.url)
            let control = "Bearer test-control-token"
            let before = try server.server.environment.read(account: try Self.accountId(server, "alpha")) { state in
                (state.devices.values.compactMap { $0.keys?.current.id }, state.jwtSettings.values.first?.testTokenSecret, state.bots.count)
            }
            let export = try await server.call(.get, "/_mock/v1/snapshot?account=alpha&secrets=redacted", authorization: control)
            #expect(export.status == .ok)
            let restored = try await server.call(.post, "/_mock/v1/snapshot", authorization: control, body: export.text)
            #expect(restored.status == .ok, "\(restored.text)")

            // Sessions and client tokens are gone; passwords are unset until a seed or setPassword sets them.
            for caller in [Caller.alphaAdmin, .alphaAgent, .root, .alphaVisitor] {
                let me = try await server.call(.get, "/_mock/v1/clock", authorization: planted.authorization[caller])
                #expect(me.status == .unauthorized, "\(caller)'s old credential still works")
            }
            let login = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "alpha-agent", password: "pw-a"))
            #expect(login.status == .unauthorized)
            // The other account is untouched.
            #expect(try await server.call(.get, "/_mock/v1/clock", authorization: planted.authorization[.betaAdmin]).status == .ok)

            let after = try server.server.environment.read(account: try Self.accountId(server, "alpha")) { state in
                (state.devices.values.compactMap { $0.keys?.current.id }, state.jwtSettings.values.first?.testTokenSecret, state.bots.count)
            }
            #expect(after.0.count == before.0.count && Set(after.0).isDisjoint(with: before.0), "encrypted devices get new keys")
            #expect(after.1 != nil && after.1 != "" && after.1 != before.1, "a new test-token secret")
            #expect(after.2 == before.2 && after.2 > 0, "bots are in snapshots")
            let token = try await server.call(
                .post, "/_mock/v1/accounts/alpha/tokens", authorization: control, body: TestTokenRequest(subject: "someone"))
            #expect(token.status == .ok, "test tokens are issued with the new secret: \(token.text)")
        }
    }

    // MARK: the table

    @Test("no route answers any caller with a secret that caller may not see, and no secret is logged")
    func everyRouteEveryCaller() async throws {
        let logs = CapturedLogs()
        // Webhooks, interceptors, bots and the APNs sink all post to a real endpoint that answers at once.
        let receiver = try await WebhookReceiver()
        // The GET routes share one planted server; every other route gets a fresh one, so one route's
        // change (a reset, a logout, a deletion) cannot hide another's leak.
        let routes = try await InProcessServer.with(seed: Self.seed) { server in try server.routes() }
        let tested = routes.filter { Self.skipped[$0.path] == nil && !$0.path.hasPrefix("/unblu/") }
        #expect(tested.count > 150, "the router lists its routes (\(tested.count))")
        let getRoutes = tested.filter { $0.method == .get }
        var (findings, checked, seen, labels) = try await InProcessServer.with(
            seed: Self.seed, logger: logs.logger(), configure: Self.noRetries
        ) { server in
            let planted = try await Self.plant(server, endpoint: receiver.url)
            var findings: [String] = []
            var checked = 0
            var seen: Set<String> = []
            for route in getRoutes {
                let probed = try await Self.probe(route, server: server, planted: planted)
                findings += probed.findings
                checked += probed.checked
                seen.formUnion(probed.seen)
            }
            findings += Self.leaks(in: logs.all.joined(separator: "\n"), what: "the logs", caller: nil, planted: planted)
            return (
                findings, checked, seen,
                planted.secrets.filter { !$0.label.hasSuffix("device secret") && $0.label != "the control token" }.map(\.label)
            )
        }
        // The servers of the other routes are independent of each other: a few run at once, so the
        // table's time is not the sum of several hundred servers' starts, plantings and stops.
        let endpoint = receiver.url
        var others = tested.filter { $0.method != .get }.makeIterator()
        try await withThrowingTaskGroup(of: (findings: [String], checked: Int, seen: Set<String>).self) { group in
            func next() {
                guard let route = others.next() else { return }
                group.addTask { try await Self.probeOnItsOwnServer(route, endpoint: endpoint) }
            }
            for _ in 0..<4 { next() }
            while let probed = try await group.next() {
                findings += probed.findings
                checked += probed.checked
                seen.formUnion(probed.seen)
                next()
            }
        }
        // The markers are real: each secret shows up somewhere (for the operator's full export at least),
        // so an absent leak is not an absent marker. A device secret is stored only as its hash.
        #expect(Set(labels).subtracting(seen).isEmpty, "secrets no answer showed: \(Set(labels).subtracting(seen).sorted())")
        #expect(findings.isEmpty, "\(findings.count) leaks:\n\(findings.prefix(40).joined(separator: "\n"))")
        #expect(checked > 3000, "answers checked: \(checked)")
    }

    /// Probes `route` on a server of its own, planted afresh, and checks that server's logs too.
    static func probeOnItsOwnServer(
        _ route: (method: HTTPRequest.Method, path: String), endpoint: String
    ) async throws -> (findings: [String], checked: Int, seen: Set<String>) {
        let routeLogs = CapturedLogs()
        return try await InProcessServer.with(seed: Self.seed, logger: routeLogs.logger(), configure: Self.noRetries) { server in
            let planted = try await Self.plant(server, endpoint: endpoint)
            var probed = try await Self.probe(route, server: server, planted: planted)
            let logged = routeLogs.all.joined(separator: "\n")
            probed.findings += Self.leaks(in: logged, what: "the logs of \(route.method) \(route.path)", caller: nil, planted: planted)
            return probed
        }
    }

    /// Deliveries to the planted endpoints (nothing listens there) fail once and are not retried, so a
    /// server's shutdown does not wait for backoffs.
    static func noRetries(_ configuration: inout ServerConfiguration) {
        configuration.pushMaxAttempts = 1
        configuration.webhookMaxAttempts = 1
    }

    /// Routes the table cannot call in router mode, and why they are covered anyway.
    static let skipped: [String: String] = [
        // A server-sent-event stream that never ends: it streams the same outbox entries `GET /_mock/v1/pushes` answers.
        "/_mock/v1/pushes/stream": "endless stream",
    ]

    /// Calls `route` as every caller with every id that fits its parameters and returns the leaks found,
    /// how many answers were checked and which secrets some answer showed (to a caller who may see them).
    static func probe(
        _ route: (method: HTTPRequest.Method, path: String), server: InProcessServer, planted: Planted
    ) async throws -> (findings: [String], checked: Int, seen: Set<String>) {
        var findings: [String] = []
        var checked = 0
        var seen: Set<String> = []
        for path in concretePaths(route.path, ids: planted.ids) {
            let separator = path.contains("?") ? "&" : "?"
            let target = path + separator + "timeoutMs=1"
            for caller in Caller.allCases {
                let bodies: [String?] = route.method == .get || route.method == .delete ? [nil] : ["{}"]
                for body in bodies {
                    let answer = try await server.call(route.method, target, authorization: planted.authorization[caller], body: body)
                    let headers = answer.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
                    let text = answer.text + "\n" + headers
                    findings += leaks(in: text, what: "\(route.method) \(path)", caller: caller, planted: planted)
                    seen.formUnion(planted.secrets.filter { $0.isIn(text) }.map(\.label))
                    checked += 1
                }
            }
        }
        return (findings, checked, seen)
    }

    /// The secrets `text` shows to `caller` (`nil`: nobody may see any, as in the logs).
    static func leaks(in text: String, what: String, caller: Caller?, planted: Planted) -> [String] {
        planted.secrets.filter { secret in
            if let caller, secret.visibility.allows(caller) { return false }
            return secret.isIn(text)
        }.map { "\(what) as \(caller?.rawValue ?? "-"): \($0.label)" }
    }

    /// `/a/{id}/b` with the planted ids of the kind the segment before each parameter names (alpha's and
    /// beta's), or every planted id where the segment names no kind.
    static func concretePaths(_ pattern: String, ids: [String: [String]]) -> [String] {
        var paths = [""]
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for (index, segment) in segments.enumerated() {
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else {
                paths = paths.map { $0 + "/" + segment }
                continue
            }
            let kind = index > 0 ? segments[index - 1] : ""
            let name = String(segment.dropFirst().dropLast())
            let candidates = ids[name] ?? ids[kind] ?? ids.values.flatMap { $0 }
            paths = paths.flatMap { path in candidates.map { path + "/" + $0 } }
        }
        return paths
    }

    // MARK: planting

    static func login(_ server: InProcessServer, _ username: String, _ password: String) async throws -> String {
        let answer = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: username, password: password))
        #expect(answer.status == .ok, "\(username): \(answer.text)")
        return "Bearer " + (try answer.decode(AgentLoginResponse.self)).token
    }

    static func accountId(_ server: InProcessServer, _ name: String) throws -> String {
        try #require(server.server.environment.accountId(for: .accountName(name)))
    }

    /// Fills both accounts with one of everything that bears a secret, and returns the callers, the
    /// secrets and the ids.
    static func plant(_ server: InProcessServer, endpoint: String) async throws -> Planted {
        var authorization: [Caller: String] = [.control: "Bearer test-control-token"]
        var secrets: [Secret] = [.init(label: "the control token", value: "test-control-token", visibility: .operatorOnly)]
        var ids: [String: [String]] = [:]
        func add(_ kind: String, _ id: String) { ids[kind, default: []].append(id) }
        let control = "Bearer test-control-token"
        for (name, password) in [("alpha", "pw-a"), ("beta", "pw-b")] {
            let accountId = try accountId(server, name)
            add("accounts", accountId)
            add("account", name)
            let visitorCaller: Caller = name == "alpha" ? .alphaVisitor : .betaVisitor
            let agentCaller: Caller = name == "alpha" ? .alphaAgent : .betaAgent
            let adminCaller: Caller = name == "alpha" ? .alphaAdmin : .betaAdmin
            let apiKey = "ak-\(name)-7f3e9c1d2b5a"
            secrets.append(.init(label: "\(name)'s API key", value: apiKey, visibility: .accountMembers(name)))
            secrets.append(.init(label: "\(name)'s HS256 secret", value: "hs256-\(name)-0123456789abcdef", visibility: .operatorOnly))
            secrets.append(.init(label: "\(name)'s test-token secret", value: "tts-\(name)-0123456789abcdef", visibility: .operatorOnly))
            let accountSecret = try #require(try server.server.environment.read(account: accountId) { $0.account.secret?.secretKey })
            secrets.append(.init(label: "\(name)'s account secret", value: accountSecret, visibility: .accountAdmins(name)))

            // A visitor: client token, device secret, notification key, a conversation, a file.
            let start = try await server.call(
                .post, "/mobile/v1/clients",
                body: ClientStartRequest(apiKey: apiKey, deviceId: "\(name)-phone", device: .init(os: "iOS", appId: "com.example.app"))
            ).decode(ClientStartResponse.self)
            let visitor = "Bearer " + start.token
            authorization[visitorCaller] = visitor
            secrets.append(.init(label: "\(name)'s client token", value: start.token, visibility: .owner(visitorCaller)))
            if let deviceSecret = start.deviceSecret {
                secrets.append(.init(label: "\(name)'s device secret", value: deviceSecret, visibility: .owner(visitorCaller)))
            }
            let registered = try await server.call(
                .put, "/mobile/v1/clients/current/push", authorization: visitor,
                body: PushRegistrationRequest(apnsToken: String(repeating: name == "alpha" ? "a1" : "b2", count: 32), version: "ENCRYPTED")
            ).decode(PushRegistrationResponse.self)
            for key in registered.keys {
                secrets.append(.init(label: "\(name)'s notification key", value: key.key, visibility: .owner(visitorCaller)))
            }
            add("devices", registered.device.id)
            let conversation = try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
                .decode(ConversationView.self)
            add("conversations", conversation.id)
            add("conversationhistory", conversation.id)
            _ = try await server.call(
                .post, "/mobile/v1/conversations/\(conversation.id)/messages", authorization: visitor, body: SendMessageRequest(text: "hello"))
            let file = try await server.call(
                .post, "/mobile/v1/conversations/\(conversation.id)/files?name=note.txt", authorization: visitor, body: "a note")
            if let fileId = (try? JSONSerialization.jsonObject(with: Data(file.text.utf8)) as? [String: Any])?["fileId"] as? String
                ?? ((try? JSONSerialization.jsonObject(with: Data(file.text.utf8)) as? [String: Any])?["file"] as? [String: Any])?["id"] as? String
            {
                add("fileId", fileId)
            }

            // Staff: sessions (the super admin's too), an accepted conversation, a call, co-browsing.
            let agent = try await login(server, "\(name)-agent", password)
            let admin = try await login(server, "\(name)-admin", password)
            authorization[agentCaller] = agent
            authorization[adminCaller] = admin
            secrets.append(.init(label: "\(name)-agent's session", value: String(agent.dropFirst(7)), visibility: .owner(agentCaller)))
            secrets.append(.init(label: "\(name)-admin's session", value: String(admin.dropFirst(7)), visibility: .owner(adminCaller)))
            if name == "alpha" {
                let root = try await login(server, "root", "root")
                authorization[.root] = root
                secrets.append(.init(label: "root's session", value: String(root.dropFirst(7)), visibility: .owner(.root)))
            }
            for user in ["\(name)-admin", "\(name)-agent"] + (name == "alpha" ? ["root"] : []) {
                let hash = try #require(server.server.environment.passwordHash(ofLoginName: user))
                secrets.append(.init(label: "\(user)'s password hash", value: hash, visibility: .operatorOnly))
            }
            _ = try await server.call(.put, "/agent/v1/presence", authorization: agent, body: PresenceRequest(presence: "ONLINE"))
            _ = try await server.call(.post, "/agent/v1/conversations/\(conversation.id)/accept", authorization: agent)
            if let call = try? await server.call(
                .post, "/agent/v1/conversations/\(conversation.id)/calls", authorization: agent, body: StartCallRequest(callType: "AUDIO")
            ).decode(CallView.self) {
                add("calls", call.id)
            }
            if let session = try? await server.call(.post, "/mobile/v1/conversations/\(conversation.id)/cobrowsing", authorization: visitor)
                .decode(CoBrowsingSessionView.self)
            {
                add("cobrowsing", session.id)
            }

            // What admins configure: a webhook, interceptors, a bot, an invitation, a fault rule.
            let webhookSecret = "whsec-\(name)-5b1c2d3e4f"
            secrets.append(.init(label: "\(name)'s webhook secret", value: webhookSecret, visibility: .accountAdmins(name)))
            let webhook = try await server.call(
                .post, "/app/rest/v4/webhookregistrations/create", authorization: admin,
                body: #"{"name":"hooks","endpoint":"\#(endpoint)","events":["webhook.ping"],"secret":"\#(webhookSecret)"}"#
            )
            add("webhookregistrations", try Self.id(of: webhook))
            let fileSecret = "fisec-\(name)-6c2d3e4f5a"
            secrets.append(.init(label: "\(name)'s file interceptor secret", value: fileSecret, visibility: .accountAdmins(name)))
            let fileInterceptor = try await server.call(
                .post, "/app/rest/v4/fileuploadinterceptors/create", authorization: admin,
                body: #"{"name":"scanner","order":1,"mimeTypeRegex":"image/.*","webhookEndpoint":"\#(endpoint)","webhookSecret":"\#(fileSecret)"}"#
            )
            add("fileuploadinterceptors", try Self.id(of: fileInterceptor))
            let messageSecret = "misec-\(name)-7d3e4f5a6b"
            secrets.append(.init(label: "\(name)'s message interceptor secret", value: messageSecret, visibility: .accountAdmins(name)))
            let moderation = #"{"name":"moderation","messageFilter":"AGENT","timeoutBehavior":"CONTINUE","#
                + #""webhookEndpoint":"\#(endpoint)","webhookSecret":"\#(messageSecret)"}"#
            let messageInterceptor = try await server.call(
                .post, "/app/rest/v4/messageinterceptors/create", authorization: admin, body: moderation
            )
            add("messageinterceptors", try Self.id(of: messageInterceptor))
            let botSecret = "botsec-\(name)-8e4f5a6b7c"
            secrets.append(.init(label: "\(name)'s bot secret", value: botSecret, visibility: .operatorOnly))
            let helper = #"{"$_type":"DialogBotData","name":"Helper","webhookEndpoint":"\#(endpoint)","webhookSecret":"\#(botSecret)","#
                + #""onboardingFilter":"NONE","offboardingFilter":"NONE"}"#
            let bot = try await server.call(.post, "/app/rest/v4/bots/create", authorization: admin, body: helper)
            add("bots", try Self.id(of: bot))
            let invitation = try await server.call(
                .post, "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithLink", authorization: admin,
                body: #"{"conversationId":"\#(conversation.id)","nickname":"Friend"}"#
            )
            add("invitations", try Self.id(of: invitation))
            if let token = (try JSONSerialization.jsonObject(with: Data(invitation.text.utf8)) as? [String: Any])?["token"] as? String {
                secrets.append(.init(label: "\(name)'s invitation token", value: token, visibility: .accountStaff(name)))
            }
            let fault = try await server.call(
                .post, "/_mock/v1/faults", authorization: admin,
                body: #"{"match":{"path":"/nowhere/\#(name)"},"action":{"type":"ERROR","status":503}}"#
            )
            add("faults", try Self.id(of: fault))

            // Entity-layer kinds with secrets: a channel's, which no API shows, and a suggestion source's,
            // which its account's admins read through the Web API (and the inspector's entity listing).
            let messengerSecret = "emsec-\(name)-9a8b7c6d5e"
            secrets.append(.init(label: "\(name)'s external messenger secret", value: messengerSecret, visibility: .operatorOnly))
            let messenger = try await server.call(
                .post, "/app/rest/v4/externalmessengers/create", authorization: admin,
                body: #"{"$_type":"CustomExternalMessengerChannel","type":"CUSTOM","name":"channel","webhookEndpoint":"\#(endpoint)","#
                    + #""webhookSecret":"\#(messengerSecret)"}"#
            )
            add("externalmessengers", try Self.id(of: messenger))
            let suggestionSecret = "sugsec-\(name)-8b7c6d5e4f"
            secrets.append(.init(label: "\(name)'s suggestion source secret", value: suggestionSecret, visibility: .accountAdmins(name)))
            let source = try await server.call(
                .post, "/app/rest/v4/suggestionsources/create", authorization: admin,
                body: #"{"name":"suggest","outboundEndpoint":"\#(endpoint)","outboundSecret":"\#(suggestionSecret)","outboundTimeoutMillis":5000}"#
            )
            add("suggestionsources", try Self.id(of: source))

            // What only the operator sets: an APNs sink with its private key.
            let pem = P256.Signing.PrivateKey().pemRepresentation
            // The second line of the base64 body: the first starts with the same ASN.1 header for every P-256 key.
            let keyLine = try #require(pem.split(separator: "\n").dropFirst(2).first.map(String.init))
            secrets.append(.init(label: "\(name)'s APNs private key", value: keyLine, visibility: .operatorOnly))
            let pushSettings = try await server.call(
                .put, "/_mock/v1/accounts/\(name)/push-settings", authorization: control,
                body: PushSettingsRequestBody(
                    apns: .init(
                        teamId: "TEAM\(name)1234".prefix(10).description, keyId: "KEY\(name)1234567".prefix(10).description, privateKeyPEM: pem,
                        environment: "custom", customURL: String(endpoint.dropLast("/hooks".count))))
            )
            #expect(pushSettings.status == .ok, "\(pushSettings.text)")

            // Ids of users, persons, API keys and areas, read from the state.
            let entityIds = try server.server.environment.read(account: accountId) { state in
                (Array(state.users.keys), Array(state.persons.keys), Array(state.apiKeys.rows.keys), Array(state.namedAreas.rows.keys))
            }
            for id in entityIds.0 { add("users", id) }
            for id in entityIds.1 { add("persons", id) }
            for id in entityIds.2 { add("apikeys", id) }
            for id in entityIds.3 { add("namedareas", id) }
        }
        // What super admins configure: a global file-upload interceptor, whose secret only they read.
        let globalSecret = "gfisec-9f5a6b7c8d1e"
        secrets.append(.init(label: "the global file interceptor secret", value: globalSecret, visibility: .superAdmins))
        let rootAuthorization = try #require(authorization[.root])
        let globalInterceptor = try await server.call(
            .post, "/app/rest/v4/fileuploadglobalinterceptors/create", authorization: rootAuthorization,
            body: #"{"name":"global","order":1,"webhookEndpoint":"\#(endpoint)","webhookSecret":"\#(globalSecret)"}"#
        )
        add("fileuploadglobalinterceptors", try Self.id(of: globalInterceptor))
        // The inspector's entity listing (`/_mock/v1/entities/{typeName}`), by the kinds that bear a secret.
        ids["typeName"] = ["ExternalMessengerChannel", "SuggestionSourceData", "ConversationInvitation", "FileUploadGlobalInterceptor"]
        #expect(secrets.count >= 35, "every secret is planted (\(secrets.count))")
        return Planted(authorization: authorization, secrets: secrets, ids: ids)
    }

    static func id(of answer: InProcessServer.Answer) throws -> String {
        #expect(answer.status == .ok || answer.status == .created, "\(answer.text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any])
        return try #require(object["id"] as? String, "\(answer.text)")
    }
}

/// The control API's push-settings body.
private struct PushSettingsRequestBody: Encodable, Sendable {
    var apns: PushSettings.APNs?
}
