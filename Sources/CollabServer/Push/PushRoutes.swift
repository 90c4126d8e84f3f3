import CollabCore
import CollabStore
import CollabPush
import CollabWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Device registration and calls on the mobile API, calls on the agent API, and the push side of the
/// control API (outbox, wait, stream, devices, key rotation, push settings).
struct PushRoutes {
    let environment: CollabEnvironment

    /// The visitor's calls (answer, decline, end, read, and the outgoing call: see
    /// `PushRoutes+OutgoingCalls.swift`), by a started app or with a call's device credential.
    func registerMobile(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        registerOutgoingCall(on: group)
        group.get("calls/:id") { _, context in
            let id = try callId(context)
            let party = try env.visitorCallParty(context, call: id)
            let call = try env.read(account: party.accountId) { state throws(CollabError) in try state.participantCall(id, party) }
            try party.check(call)
            return JSONBody.response(CallView(call, viewer: party.personId))
        }
        // A visitor's calls are their own: another's answers 404, like an unknown one.
        registerCallActions(on: group, participantsOnly: true) { context, id throws(CollabError) in try env.visitorCallParty(context, call: id) }
    }

    /// The agent's calls: start, read, end, and answering a visitor's outgoing call — at the desk, from
    /// an agent's app, or with a call's device credential.
    func registerAgent(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        registerCallActions(on: group, participantsOnly: false) { context, id throws(CollabError) in try env.agentCallParty(context, call: id) }
        group.post("conversations/:id/calls") { request, context in
            let agent = try env.agent(context)
            return try await env.startCall(request, context: context, personId: agent.personId, accountId: agent.accountId)
        }
        group.get("calls/:id") { _, context in
            let id = try callId(context)
            let party = try env.agentCallParty(context, call: id)
            let call = try env.read(account: party.accountId) { state throws(CollabError) in try state.call(id, accountId: party.accountId) }
            try party.check(call)
            return JSONBody.response(CallView(call, viewer: party.personId))
        }
    }

    /// What a call action does to the state, for a party.
    private typealias CallAction = @Sendable (inout AccountState, String, CallParty, OperationContext, inout ChangeSet) throws(CollabError) -> Call

    /// Answer and decline (an app's names its device: the call's other devices get a revoke), and end.
    private static let callActions: [(name: String, perform: CallAction)] = [
        ("answer", { state, id, party, op, changes throws(CollabError) in
            try state.answerCall(id, personId: party.personId, deviceId: party.deviceId, accountId: party.accountId, context: op, changes: &changes)
        }),
        ("decline", { state, id, party, op, changes throws(CollabError) in
            try state.declineCall(
                id, personId: party.personId, deviceId: party.deviceId, accountId: party.accountId, context: op, changes: &changes)
        }),
        ("end", { state, id, party, op, changes throws(CollabError) in
            try state.endCall(id, personId: party.personId, accountId: party.accountId, context: op, changes: &changes)
        }),
    ]

    /// The call actions, for the party `resolve` finds.
    /// - Parameter participantsOnly: Whether a call the party is not in answers 404 (else the state's own
    ///   check answers: 403 for a call not meant for the caller).
    private func registerCallActions(
        on group: RouterGroup<CollabRequestContext>, participantsOnly: Bool,
        _ resolve: @escaping @Sendable (CollabRequestContext, String) throws(CollabError) -> CallParty
    ) {
        let env = environment
        for action in Self.callActions {
            group.post(RouterPath("calls/:id/\(action.name)")) { _, context in
                let id = try callId(context)
                let party = try resolve(context, id)
                let call = try await env.write(account: party.accountId) { state, changes, op throws(CollabError) in
                    if participantsOnly { _ = try state.participantCall(id, party) }
                    if party.credentialDevice != nil { try party.check(try state.call(id, accountId: party.accountId)) }
                    return try action.perform(&state, id, party, op, &changes)
                }
                return JSONBody.response(CallView(call, viewer: party.personId))
            }
        }
    }

    /// The outbox (read, wait, settle, stream, clear), devices, key rotation and push settings.
    func registerControl(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.get("pushes") { request, context in
            try request.refuseUnknownQuery(OutboxFilter.parameters.union(["limit"]))
            let filter = try OutboxFilter(request, environment: env, confinedTo: try context.inspectorConfinement())
            let limit = try request.integerQuery("limit", atLeast: 1) ?? 1_000
            return JSONBody.response(OutboxPage(pushes: env.pushes.outbox.entries(matching: filter, limit: limit)))
        }
        group.operation(.delete, "pushes", role: .superAdmin) { _, _ in
            // As a reset does: the outbox, and every push still queued or between two attempts, so none
            // of them reaches a push service after the clear.
            env.pushes.forget(accountId: nil)
            return noContent
        }
        group.get("pushes/wait") { request, context in
            try request.refuseUnknownQuery(OutboxFilter.parameters.union(["timeoutMs"]))
            let filter = try OutboxFilter(request, environment: env, confinedTo: try context.inspectorConfinement())
            let timeout = try request.waitTimeoutMillis()
            // A graceful shutdown ends the wait at once (503) rather than holding the process for up to a minute.
            let outcome = await untilGracefulShutdown { await env.pushes.outbox.wait(for: filter, timeout: .milliseconds(timeout)) }
            guard case .finished(let found) = outcome else { throw CollabError(.unavailable, "the server is shutting down") }
            guard let entry = found else {
                throw CollabError(.notFound, "no push matching the filter arrived within \(timeout) ms")
            }
            return JSONBody.response(entry)
        }
        group.get("pushes/settle") { request, context in
            try request.refuseUnknownQuery(["account", "timeoutMs"])
            let accountId = try env.inspectedAccountId(request.query("account"), confinedTo: try context.inspectorConfinement())
            let timeout = try request.waitTimeoutMillis()
            // Pushes are composed after the request that caused them has answered: this waits until
            // every push queued before this request is in the outbox, so "no push was made" can be
            // checked without sleeping. An admin waits for their own account's pushes only, as does
            // whoever names an account: another account's backlog holds up only that account.
            let outcome = await untilGracefulShutdown { await env.pushes.settle(accountId: accountId, timeout: .milliseconds(timeout)) }
            guard case .finished(true) = outcome else {
                throw CollabError(.unavailable, "the push pipeline did not settle within \(timeout) ms (or the server is shutting down)")
            }
            return noContent
        }
        group.get("pushes/stream") { request, context in
            try request.refuseUnknownQuery(OutboxFilter.parameters)
            let filter = try OutboxFilter(request, environment: env, confinedTo: try context.inspectorConfinement())
            let (id, stream) = try env.pushes.outbox.subscribe(accountId: filter.accountId)
            let encoder = JSONEncoder()
            let body = ResponseBody { writer in
                // Server-sent events: one `push` event per new or updated outbox entry. The stream ends
                // when the server shuts down, so a listening client never holds up a graceful shutdown.
                // A write that throws (the client went away) still ends the subscription.
                defer { env.pushes.outbox.unsubscribe(id) }
                try await withGracefulShutdownHandler {
                    try await writer.write(ByteBuffer(string: ": mock-collab push outbox\n\n"))
                    for await entry in stream where filter.matches(entry) {
                        let json = String(decoding: try encoder.encode(entry), as: UTF8.self)
                        try await writer.write(ByteBuffer(string: "id: \(entry.id)\nevent: push\ndata: \(json)\n\n"))
                    }
                } onGracefulShutdown: {
                    env.pushes.outbox.unsubscribe(id)
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
        group.get("devices") { request, context in
            let accountId = try env.inspectedAccountId(request.query("account"), confinedTo: try context.inspectorConfinement())
            let personId = request.query("personId")
            let page = try DevicePage(request)
            // One more than the page, to know whether another follows.
            func list(_ state: borrowing AccountState) -> [Device] {
                guard let personId else { return state.devices(after: page.after, limit: page.limit + 1) }
                let ofPerson = state.devices(ofPerson: personId).filter { device in page.after.map { device.id > $0 } ?? true }
                return Array(ofPerson.sorted { $0.id < $1.id }.prefix(page.limit + 1))
            }
            let found = try accountId.map { id throws(CollabError) in try env.read(account: id) { list($0) } }
                ?? env.repository.readEach { list($0) }.flatMap { $0 }.sorted { $0.id < $1.id }
            let devices = found.prefix(page.limit).map(DeviceView.init)
            var response = JSONBody.response(devices)
            if found.count > page.limit, let last = devices.last {
                response.headers[.link] = page.next(after: last.id, request: request)
            }
            return response
        }
        group.operation(.post, "devices/:id/rotate-key", role: .superAdmin) { request, context in
            let id = try context.pathParameter("id")
            let overlap = env.configuration.keyOverlap
            let scope = try env.inspectedAccountId(request.query("account"), confinedTo: nil)
            let accountId = try env.account(holding: { $0.devices[id] != nil }, in: scope, entity: "Device", id: id)
            let device = try await env.write(account: accountId) { state, changes, op throws(CollabError) in
                try state.rotateKey(deviceRecordId: id, overlap: overlap, context: op, changes: &changes)
            }
            return JSONBody.response(DeviceView(device))
        }
        group.operation(.put, "accounts/:account/push-settings", role: .superAdmin) { request, context in
            let reference = try context.pathParameter("account")
            let body = try await env.decode(PushSettingsBody.self, from: request)
            let account = try env.resolveAccount(reference)
            let given = PushSettings(id: account.id, apns: body.apns, fcm: body.fcm, simulatorDirectory: body.simulatorDirectory)
            try PushCredentialCheck.check(given)
            let settings = try await env.write(account: account.id) { state, changes, _ throws(CollabError) in
                try state.setPushSettings(given, changes: &changes)
                return given
            }
            return JSONBody.response(PushSettingsBody(settings, redacted: true))
        }
        group.operation(.get, "accounts/:account/push-settings", role: .superAdmin) { _, context in
            let reference = try context.pathParameter("account")
            let account = try env.resolveAccount(reference)
            let settings = try env.read(account: account.id) { state throws(CollabError) in
                state.pushSettings[account.id] ?? PushSettings(id: account.id)
            }
            return JSONBody.response(PushSettingsBody(settings, redacted: true))
        }
    }
}

/// Push settings as the control API takes and shows them; the APNs private key is never shown.
struct PushSettingsBody: Codable, Sendable {
    var apns: PushSettings.APNs?
    var fcm: PushSettings.FCM?
    var simulatorDirectory: String?

    init(_ settings: PushSettings, redacted: Bool) {
        var apns = settings.apns
        var fcm = settings.fcm
        if redacted {
            if apns?.privateKeyPEM != nil { apns?.privateKeyPEM = "REDACTED" }
            if apns?.certificate != nil { apns?.certificate = .init(pkcs12: "REDACTED", password: "REDACTED") }
            fcm?.privateKeyPEM = "REDACTED"
        }
        self.apns = apns
        self.fcm = fcm
        self.simulatorDirectory = settings.simulatorDirectory
    }
}

extension OutboxFilter {
    /// The query parameters a filter reads.
    static let parameters: Set<String> = ["account", "personId", "deviceId", "conversationId", "kind", "transport", "state", "after"]

    /// A filter from the query; a caller confined to one account sees only that account's pushes.
    init(_ request: Request, environment: CollabEnvironment, confinedTo confinement: String?) throws(CollabError) {
        let accountId = try environment.inspectedAccountId(request.query("account"), confinedTo: confinement)
        let kind = try PushKind.parseIfPresent(request.query("kind"), field: "kind")
        var transport: PushTransport?
        if let text = request.query("transport") {
            guard let value = PushTransport(rawValue: text) else { throw .badRequest("transport must be APNS, APNS_VOIP or FCM") }
            transport = value
        }
        var state: OutboxEntry.State?
        if let text = request.query("state") {
            guard let value = OutboxEntry.State(rawValue: text) else { throw .badRequest("unknown state '\(text)'") }
            state = value
        }
        let after = try request.query("after").map { text throws(CollabError) in
            guard let value = Int64(text) else { throw .badRequest("after must be an integer") }
            return value
        }
        self.init(
            accountId: accountId, personId: request.query("personId"), deviceId: request.query("deviceId"),
            conversationId: request.query("conversationId"), kind: kind, transport: transport, state: state, after: after
        )
    }
}

/// A page of the outbox.
struct OutboxPage: Encodable {
    var pushes: [OutboxEntry]
}

extension AccountState {
    /// A call `party` takes part in (another's answers 404, like an unknown one).
    func participantCall(_ id: String, _ party: CallParty) throws(CollabError) -> Call {
        guard let call = calls[id], call.accountId == party.accountId, call.participations.contains(where: { $0.personId == party.personId }) else {
            throw .notFound("Call", id)
        }
        return call
    }
}

/// The page `GET /_mock/v1/devices` answers: `limit` (1 to 10,000, default 1,000) devices by record id,
/// after the record id `after`. When more follow, the answer's `Link` header names the next page
/// (`rel="next"`), with the request's other parameters.
private struct DevicePage {
    static let defaultLimit = 1_000
    static let maximumLimit = 10_000

    var limit: Int
    var after: String?

    init(_ request: Request) throws(CollabError) {
        limit = try request.integerQuery("limit", atLeast: 1) ?? Self.defaultLimit
        guard limit <= Self.maximumLimit else { throw .badRequest("limit must be 1 to \(Self.maximumLimit)") }
        after = request.query("after")
        if let after { try Limits.check(after, field: "after", max: Limits.nameLength) }
    }

    /// The `Link` header value of the page after `last`.
    func next(after last: String, request: Request) -> String {
        var components = URLComponents()
        components.path = request.uri.path
        let kept = request.uri.queryParameters.filter { $0.key != "after" && $0.key != "limit" }
            .map { URLQueryItem(name: String($0.key), value: String($0.value)) }.sorted { $0.name < $1.name }
        components.queryItems = kept + [URLQueryItem(name: "after", value: last), URLQueryItem(name: "limit", value: String(limit))]
        return "<\(components.string ?? request.uri.path)>; rel=\"next\""
    }
}

extension HTTPField.Name {
    /// `Link` (RFC 8288): where a paged listing goes on.
    fileprivate static let link = Self("Link")!
}
