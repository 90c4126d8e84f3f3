import CollabCore
import CollabStore
import CollabPush
import CollabSeed
import CollabWire
import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// The control API for tests and tools, under `/_mock/v1`: reset, seed, request journal, test
/// access tokens, virtual clock, stats and the configuration cascade. Open to super admins and to the
/// control token; admins read their own account's journal, stats, clock and configuration (see
/// `InspectorScope.swift`).
struct ControlRoutes {
    let environment: CollabEnvironment
    let webhooks: WebhookDispatcher

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment

        group.operation(.post, "reset", role: .superAdmin) { request, context in
            let account = try Self.resetAccount(request, body: try await env.collectBody(request))
            let (result, accountId) = try await env.reset(account: account)
            // What was recorded goes with what it recorded (the journal, the outbox, the deliveries).
            webhooks.forget(accountId: accountId)
            return JSONBody.response(result)
        }
        group.operation(.post, "seed", role: .superAdmin) { request, context in
            let buffer = try await env.collectBody(request)
            let seed = try SeedLoader.parse(String(decoding: buffer.readableBytesView, as: UTF8.self))
            let report = try await env.apply(seed: seed)
            return JSONBody.response(SeedResult(created: report.created, updated: report.updated, unchanged: report.unchanged))
        }
        group.get("journal") { request, context in
            try request.refuseUnknownQuery(["method", "path", "status", "since", "until", "account", "accountId", "limit", "after", "scope"])
            var filter = try JournalFilter(request)
            // `account` (id or name) like the other inspector routes; `accountId` as before.
            filter.accountId = try env.inspectedAccountId(
                request.query("account") ?? filter.accountId, confinedTo: try context.inspectorConfinement())
            let (entries, truncated, evicted) = env.journal.entries(matching: filter)
            // A read for one account tells that account's figures and bounds, never the server's.
            let held = env.journal.held(accountId: filter.accountId)
            let page = JournalPage(
                entries: entries, size: held.count, capacity: held.capacity, bytes: held.bytes, maxBytes: held.maxBytes, truncated: truncated,
                evicted: evicted)
            guard try ClusterReads.wanted(request) else { return JSONBody.response(page) }
            return JSONBody.response(
                try await ClusterReads(repository: env.repository).journal(request, own: page, limit: max(0, filter.limit ?? 1000)))
        }
        group.operation(.delete, "journal", role: .superAdmin) { _, _ in
            env.journal.clear()
            return noContent
        }
        group.operation(.post, "accounts/:account/tokens", role: .superAdmin) { request, context in
            let accountRef = try context.pathParameter("account")
            let body = try await env.decodeStrictly(TestTokenRequest.self, from: request, what: "token request")
            guard !body.subject.isEmpty, Limits.fits(body.subject, Limits.nameLength) else {
                throw CollabError.badRequest("subject must be 1 to \(Limits.nameLength) characters")
            }
            let lifetimeSeconds = body.lifetimeSeconds ?? 3600
            guard lifetimeSeconds > 0, lifetimeSeconds <= 366 * 24 * 3600 else {
                throw CollabError.badRequest("lifetimeSeconds must be between 1 and one year")
            }
            let accountId = try env.resolveAccount(accountRef).id
            let settings = try env.read(account: accountId) { state throws(CollabError) in
                guard let settings = state.jwtValidation(accountId: accountId) else { throw .unknownAccount(accountRef) }
                return settings
            }
            let issued = try await env.tokens.issueTestToken(
                subject: body.subject, settings: settings, lifetime: lifetimeSeconds * 1000, email: body.email, firstName: body.firstName,
                lastName: body.lastName
            )
            return JSONBody.response(TestTokenResponse(token: issued.token, expiresAt: issued.expiresAt))
        }
        group.operation(.post, "accounts/:account/tokens/revoke", role: .superAdmin) { request, context in
            let accountRef = try context.pathParameter("account")
            let body = try await env.decodeStrictly(TokenRevocationRequest.self, from: request, what: "token revocation")
            let accountId = try env.resolveAccount(accountRef).id
            guard let settings = try env.read(account: accountId, { $0.jwtValidation(accountId: accountId) }) else {
                throw CollabError.unknownAccount(accountRef)
            }
            let expiresAt: Timestamp
            do {
                expiresAt = try await env.tokens.validate(body.token, settings: settings, allowingRevoked: true).expiresAt
            } catch let error as CollabError {
                // The caller is authorized; the token is what is wrong.
                throw CollabError.badRequest("token: \(error.message)")
            }
            let stamp = AccessTokenStamp(token: body.token, expiresAt: expiresAt)
            let ended = try await env.write(account: accountId) { state, changes, op throws(CollabError) in
                try state.revokeAccessToken(stamp, context: op, changes: &changes)
            }
            for token in ended.clients + ended.sessions { env.events.disconnect(sessionKey: token) }
            return JSONBody.response(
                TokenRevocationResponse(endedClients: ended.clients.count, endedSessions: ended.sessions.count, revokedUntil: expiresAt))
        }
        group.get("clock") { _, _ in
            JSONBody.response(env.clockState)
        }
        group.operation(.post, "clock", role: .superAdmin) { request, context in
            let change = try await env.decodeStrictly(ClockChange.self, from: request, what: "clock change")
            // Checked before anything changes: a refused change leaves the clock as it was.
            if let millis = change.advanceMillis {
                // A range check, not abs(): abs(Int64.min) traps.
                let limit: Int64 = 10 * 366 * 24 * 3600 * 1000
                guard (-limit...limit).contains(millis) else { throw CollabError.badRequest("advanceMillis is out of range") }
            }
            // Stored first (a restart keeps it; the other replicas of a cluster take the same time), then applied.
            let next = try env.clock.proposed(frozen: change.frozen, advancedBy: change.advanceMillis)
            try await env.repository.storeClock(next)
            env.clock.apply(next)
            // What fell due at the new time (missed calls, key rotation) happens before the answer.
            await env.clockTasks.runNow()
            return JSONBody.response(env.clockState)
        }
        let log = webhooks.log
        group.get("webhooks/deliveries") { request, context in
            try request.refuseUnknownQuery(["account", "registrationId", "eventType", "state", "limit"])
            let filter = try WebhookDeliveryLog.Filter(request, environment: env, confinedTo: try context.inspectorConfinement())
            let limit = try request.integerQuery("limit", atLeast: 1).map { min($0, log.capacity) } ?? log.capacity
            return JSONBody.response(WebhookDeliveryPage(deliveries: log.deliveries(matching: filter, limit: limit)))
        }
        group.get("webhooks/deliveries/wait") { request, context in
            try request.refuseUnknownQuery(["account", "registrationId", "eventType", "state", "timeoutMs"])
            let filter = try WebhookDeliveryLog.Filter(request, environment: env, confinedTo: try context.inspectorConfinement())
            let timeout = try request.waitTimeoutMillis()
            // As pushes/wait: the oldest delivery that matches, already logged or yet to come; a graceful
            // shutdown ends the wait at once.
            let outcome = await untilGracefulShutdown { await log.wait(for: filter, timeout: .milliseconds(timeout)) }
            guard case .finished(let found) = outcome else { throw CollabError(.unavailable, "the server is shutting down") }
            guard let delivery = found else {
                throw CollabError(.notFound, "no webhook delivery matching the filter was logged within \(timeout) ms")
            }
            return JSONBody.response(delivery)
        }
        group.operation(.delete, "webhooks/deliveries", role: .superAdmin) { _, _ in
            webhooks.forget(accountId: nil)
            return noContent
        }
        group.get("stats") { request, context in
            let accountId = try env.inspectedAccountId(request.query("account"), confinedTo: try context.inspectorConfinement())
            let journalCount = env.journal.held(accountId: accountId).count
            var stats = try env.stats(accountId: accountId, journalEntries: journalCount)
            stats.pushesEmitted = env.pushes.outbox.recordedCount(accountId: accountId)
            stats.pushOutcomes = env.pushes.outbox.outcomes(accountId: accountId)
            stats.frames = env.frames.counts(accountId: accountId)
            stats.framesHeld = env.frames.held(accountId: accountId)
            guard try ClusterReads.wanted(request) else { return JSONBody.response(stats) }
            return JSONBody.response(try await ClusterReads(repository: env.repository).stats(request, own: stats))
        }
        group.get("configuration") { request, context in
            let confinement = try context.inspectorConfinement()
            guard let accountId = try env.inspectedAccountId(request.query("account"), confinedTo: confinement) ?? context.principal.accountId else {
                throw CollabError.badRequest("the query parameter 'account' is required")
            }
            let view = try env.read(account: accountId) { state throws(CollabError) in
                try state.configurationView(accountId: accountId, namedArea: request.query("namedArea"), apiKey: request.query("apiKey"))
            }
            return JSONBody.response(view)
        }
    }
}

extension JournalFilter {
    init(_ request: Request) throws(CollabError) {
        func int(_ name: String) throws(CollabError) -> Int64? {
            guard let text = request.query(name) else { return nil }
            guard let value = Int64(text) else { throw .badRequest("\(name) must be an integer") }
            return value
        }
        self.init(
            method: request.query("method"), path: request.query("path"), status: try int("status").map { Int($0) },
            since: try int("since"), until: try int("until"), accountId: request.query("accountId"),
            limit: try int("limit").map(Int.init), after: try int("after")
        )
        if let limit, !(1...100_000).contains(limit) { throw .badRequest("limit must be 1 to 100000") }
    }
}

extension AccountState {
    /// The account's entity counts.
    func stats(journalEntries: Int) -> StateStats {
        var stats = StateStats(
            accounts: 1, apiKeys: apiKeys.count, namedAreas: namedAreas.count, users: users.count, persons: persons.count,
            sessions: sessions.count, journalEntries: journalEntries, conversations: conversations.count,
            messages: storedMessageCount, calls: calls.count, devices: devices.count
        )
        let declared = self.declared.counts
        stats.declared = declared.isEmpty ? nil : declared
        return stats
    }
}

extension CollabEnvironment {
    /// An account by id or by name.
    func resolveAccount(_ reference: String) throws(CollabError) -> Account {
        let directory = repository.directory
        if let account = directory.account(reference) ?? directory.account(named: reference) { return account }
        throw .unknownAccount(reference)
    }

    /// Entity counts, for one account or summed over every account (one shard locked at a time).
    func stats(accountId: String?, journalEntries: Int) throws(CollabError) -> StateStats {
        if let accountId { return try read(account: accountId) { $0.stats(journalEntries: journalEntries) } }
        var total = StateStats(accounts: 0, apiKeys: 0, namedAreas: 0, users: 0, persons: 0, sessions: 0, journalEntries: journalEntries)
        for stats in try repository.readEach({ $0.stats(journalEntries: 0) }) {
            total.accounts += 1
            total.apiKeys += stats.apiKeys
            total.namedAreas += stats.namedAreas
            total.users += stats.users
            total.persons += stats.persons
            total.sessions += stats.sessions
            total.conversations += stats.conversations
            total.messages += stats.messages
            total.calls += stats.calls
            total.devices += stats.devices
            if let declared = stats.declared { total.declared = (total.declared ?? [:]).merging(declared, uniquingKeysWith: +) }
        }
        return total
    }

    var clockState: ClockState { ClockState(now: clock.now(), offset: clock.offset, frozen: clock.isFrozen) }

    /// Resets everything (then re-applies the startup seed), or one account: its data goes, then the
    /// startup seed's entry for it, if any, is applied again. What was recorded goes too: the journal's
    /// and the push outbox's entries (of the account, or all), and on a full reset the virtual clock's
    /// offset and freeze. The caller clears the webhook delivery log likewise.
    /// - Returns: What the seed did, and the account reset (`nil`: all).
    func reset(account reference: String?) async throws -> (SeedResult, accountId: String?) {
        let seed = startupSeed
        let op = operation
        if let reference {
            let account = try resolveAccount(reference)
            let accountSeed = Seed(accounts: seed.accounts.filter { $0.name == account.name })
            let allHashes = try await passwordHashesIgnoringStored(for: accountSeed)
            // Costs this account only: its shard is emptied (one delete statement) and re-seeded.
            let report = try await repository.writeAcross(accountNames: [account.name]) { shards, changes throws(CollabError) in
                shards.states[account.id]?.removeAccountData(keepAccount: true, changes: &changes)
                return try shards.apply(seed: accountSeed, passwordHashes: allHashes, context: op, changes: &changes)
            }
            frames.removeAll(accountId: account.id)
            faults.removeAll(accountId: account.id)
            try installSeedFaults(checkedSeedFaults(accountSeed))
            await files.removeAccount(account.id)
            journal.removeAll(accountId: account.id)
            pushes.forget(accountId: account.id)
            return (SeedResult(created: report.created, updated: report.updated, unchanged: report.unchanged), account.id)
        }
        let allHashes = try await passwordHashesIgnoringStored(for: seed)
        try await repository.removeAll()
        let report = try await repository.writeAcross(accountNames: seed.accounts.map(\.name)) { shards, changes throws(CollabError) in
            try shards.apply(seed: seed, passwordHashes: allHashes, context: op, changes: &changes)
        }
        frames.removeAll()
        faults.removeAll(accountId: nil)
        try installSeedFaults(checkedSeedFaults(seed))
        await files.removeAll()
        journal.clear()
        pushes.forget(accountId: nil)
        if clock.setting != .systemTime {
            try await repository.storeClock(.systemTime)
            clock.apply(.systemTime)
            await clockTasks.runNow()
        }
        return (SeedResult(created: report.created, updated: report.updated, unchanged: report.unchanged), nil)
    }

    /// Hashes for every password of a seed whose users are about to be recreated: the hashes taken
    /// when the startup seed was applied, so a reset costs no bcrypt work.
    private func passwordHashesIgnoringStored(for seed: Seed) async throws -> [String: String] {
        let known = startupPasswordHashes
        var hashes: [String: String] = [:]
        for (username, password) in seed.passwords {
            if let hash = known[username] {
                hashes[username] = hash
            } else {
                hashes[username] = try await hasher.hash(password)
            }
        }
        return hashes
    }
}

extension WebhookDeliveryLog.Filter {
    /// The filter of a deliveries request: `account` (id or name; an admin's own), `registrationId`,
    /// `eventType`, `state` (one of ``WebhookDeliveryLog/states``).
    init(_ request: Request, environment: CollabEnvironment, confinedTo confinement: String?) throws(CollabError) {
        let deliveryState = request.query("state")
        if let deliveryState, !WebhookDeliveryLog.states.contains(deliveryState) {
            throw .badRequest("state must be one of \(WebhookDeliveryLog.states.joined(separator: ", "))")
        }
        self.init(
            accountId: try environment.inspectedAccountId(request.query("account"), confinedTo: confinement),
            registrationId: request.query("registrationId"), eventType: request.query("eventType"), state: deliveryState
        )
    }
}

extension ControlRoutes {
    /// The account a reset names, `nil` for all: `{"account": "…"}` or `?account=`. The route is the most
    /// destructive one, so anything it does not understand is a 400 rather than a full reset — an
    /// unknown key (`{"acount": …}`), a null or empty account, a body and a query that disagree.
    static func resetAccount(_ request: Request, body: ByteBuffer) throws(CollabError) -> String? {
        var fromBody: String?
        if body.readableBytes > 0 {
            guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
                throw .badRequest("the reset body must be a JSON object: {} resets everything, {\"account\": \"name-or-id\"} one account")
            }
            if let unknown = object.keys.filter({ $0 != "account" }).sorted().first {
                throw .badRequest("\(unknown): not a reset field (the body takes only account; {} resets everything)")
            }
            if let value = object["account"] {
                guard let name = value as? String, !name.isEmpty else {
                    throw .badRequest("account must be an account's name or id; leave it out to reset everything")
                }
                fromBody = name
            }
        }
        try request.refuseUnknownQuery(["account"])
        let fromQuery = request.uri.queryParameters.get("account")
        if let fromQuery, fromQuery.isEmpty {
            throw .badRequest("account must be an account's name or id; leave it out to reset everything")
        }
        if let fromQuery, let fromBody, fromQuery != fromBody {
            throw .badRequest("the query names account '\(fromQuery)' and the body '\(fromBody)'")
        }
        return fromBody ?? fromQuery
    }
}
