import CollabCore
import CollabWire
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import CollabStore
import NIOCore
import NIOWebSocket

/// The live event WebSockets: `/mobile/v1/events` for started clients, `/agent/v1/events` for agents.
///
/// Authenticate with `Authorization: Bearer TOKEN` or `?token=TOKEN` (the surfaces take a WebSocket
/// upgrade's token from the query); resume with `?lastEventId=N`; agents filter the queue events with
/// `?namedAreas=id-or-siteId,…`. The server pings every heartbeat interval and closes connections that
/// stop answering.
struct LiveRoutes {
    let environment: CollabEnvironment

    /// `events` on the mobile API: a started client's socket, which also takes its co-browsing frames.
    func registerMobile(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.ws("events") { request, context in
            _ = try request.lastEventId()
            try request.requireWebSocketUpgrade()
            try env.admitLive(try env.audience(for: request, context: context, agent: false))
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, wsContext in
            let context = wsContext.requestContext
            let audience = try env.audience(for: wsContext.request, context: context, agent: false)
            try await env.stream(
                audience, request: wsContext.request, inbound: inbound, outbound: outbound, logger: wsContext.logger, frameClient: context.client,
                frameBandwidth: context.bandwidthCap
            )
        }
    }

    /// `events` on the agent API.
    func registerAgent(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.ws("events") { request, context in
            _ = try request.lastEventId()
            try request.requireWebSocketUpgrade()
            try env.admitLive(try env.audience(for: request, context: context, agent: true))
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, wsContext in
            let audience = try env.audience(for: wsContext.request, context: wsContext.requestContext, agent: true)
            try await env.stream(audience, request: wsContext.request, inbound: inbound, outbound: outbound, logger: wsContext.logger)
        }
    }
}

extension Request {
    /// Refuses a plain request to a live socket's route (Hummingbird would answer it with an empty 200).
    func requireWebSocketUpgrade() throws(CollabError) {
        guard headers[.upgrade]?.lowercased() != "websocket" else { return }
        throw .badRequest("this is a WebSocket endpoint: open it with a WebSocket upgrade (Upgrade: websocket)")
    }

    /// The `lastEventId` a live socket resumes after, `nil` when absent.
    /// - Throws: `badRequest` for anything but a non-negative integer, answered before the upgrade: a
    ///   resume the server cannot read must not silently start over without replay.
    func lastEventId() throws(CollabError) -> Int64? {
        try query("lastEventId").map { text throws(CollabError) in
            guard let id = Int64(text), id >= 0 else {
                throw .badRequest("lastEventId must be a non-negative integer: the id of the last event received")
            }
            return id
        }
    }
}

extension CollabEnvironment {
    /// The audience of a live connection: the caller the surface authenticated.
    func audience(for request: Request, context: CollabRequestContext, agent: Bool) throws(CollabError) -> EventAudience {
        let principal = context.principal
        guard let accountId = principal.accountId, let personId = principal.personId else { throw .unauthorized("authentication required") }
        if agent {
            try principal.require(.registeredUser)
            let filter = request.queryList("namedAreas")
            let (areaIds, teamIds) = try read(account: accountId) { state throws(CollabError) in
                (filter.isEmpty ? nil : try state.namedAreaIds(filter, accountId: accountId), state.queueTeams(ofAgent: personId))
            }
            // The socket ends with the session it was opened with (logout, expiry) and with its user
            // (a changed role, deletion): see EventHub.disconnect.
            // An agent's app: its client's token and id, like a visitor's app.
            return EventAudience(
                accountId: accountId, personId: personId, isAgent: true, namedAreaIds: areaIds, teamIds: teamIds,
                sessionKey: context.clientToken ?? context.sessionToken,
                userId: principal.userId, clientId: context.client?.clientId
            )
        }
        guard principal.method == .client, let clientToken = context.clientToken else {
            throw .unauthorized("start a client first (POST /mobile/v1/clients)")
        }
        return EventAudience(
            accountId: accountId, personId: personId, isAgent: false, namedAreaIds: nil, sessionKey: clientToken, clientId: context.client?.clientId
        )
    }

    /// Refuses, before the upgrade, a live socket its client or account has no room for (a typed 429
    /// instead of the 101).
    func admitLive(_ audience: EventAudience) throws(CollabError) {
        if let refusal = events.refusal(for: audience) { throw refusal }
    }

    /// Streams events to one WebSocket until either side ends it.
    ///
    /// A message larger than the co-browsing frame bound (or a frame larger than the WebSocket frame
    /// bound) ends the socket with close code 1009 at once: the reader's error ends the stream, and the
    /// sender, cancelled by it, closes nothing of its own.
    func stream(
        _ audience: EventAudience, request: Request, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger,
        frameClient: ClientSession? = nil, frameBandwidth: Int? = nil
    ) async throws {
        let lastEventId = try request.lastEventId()
        // A cluster replica first takes in what the other replicas committed: the id may be one of theirs.
        if lastEventId != nil { try? await repository.catchUpBarrier() }
        let subscribed: (subscription: EventHub.Subscription, replay: [PublishedEvent], gap: Bool, position: Int64)
        do {
            subscribed = try events.subscribe(audience, after: lastEventId)
        } catch {
            // Parallel upgrades of one client can all pass the check before the upgrade; the hub counts
            // under its lock and this one came too late.
            try await outbound.close(WebSocketErrorCode(codeNumber: Int(LiveCloseCode.tooManySockets)), reason: "too many live sockets")
            return
        }
        let (subscription, replay, gap, position) = subscribed
        defer { events.unsubscribe(subscription) }
        let faults = LiveConnectionFaults(environment: self, audience: audience, path: request.uri.path, client: frameClient)
        if let close = faults.closeOnConnect() {
            try await outbound.close(WebSocketErrorCode(codeNumber: close.code), reason: close.reason)
            return
        }
        let encoder = JSONEncoder()
        func send(_ event: LiveEvent) async throws {
            try await outbound.write(.text(String(decoding: try encoder.encode(event), as: UTF8.self)))
        }
        try await send(
            LiveEvent(id: 0, type: LiveEvent.hello, timestamp: clock.now(), detail: ["position": String(position), "replayed": String(replay.count)]))
        if gap { try await send(LiveEvent(id: 0, type: LiveEvent.resync, timestamp: clock.now())) }
        for event in replay { try await outbound.write(.text(event.text(for: audience.viewAudience))) }

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await item in subscription.stream {
                    switch await faults.decide(item) {
                    case .send: break
                    case .drop: continue
                    case .close(let close):
                        try await outbound.close(WebSocketErrorCode(codeNumber: close.code), reason: close.reason)
                        return
                    }
                    // An event's text is encoded once per form, by the first connection that sends it.
                    try await outbound.write(.text(item.text(for: audience.viewAudience)))
                    // The client's access token expired or was revoked: it was told, its session is over.
                    if case .event(let published) = item, published.event.kind == .clientError, published.event.clientId == audience.clientId {
                        let code = WebSocketErrorCode(codeNumber: Int(LiveCloseCode.authorizationEnded))
                        try await outbound.close(code, reason: "authorization ended: start again with a new access token")
                        return
                    }
                    if let close = faults.closeDue(after: item) {
                        try await outbound.close(WebSocketErrorCode(codeNumber: close.code), reason: close.reason)
                        return
                    }
                }
                // Cancelled: the reader ended first (the peer closed, or sent too much), and its outcome
                // decides the close code.
                try Task.checkCancellation()
                if subscription.didOverflow {
                    logger.notice("closing a live connection that fell behind", metadata: ["person": "\(audience.personId)"])
                    try await outbound.close(
                        WebSocketErrorCode(codeNumber: Int(LiveCloseCode.slowConsumer)), reason: "slow consumer: reconnect with lastEventId")
                } else {
                    try await outbound.close(WebSocketErrorCode(codeNumber: Int(LiveCloseCode.sessionEnded)), reason: "session ended")
                }
            }
            group.addTask {
                // Visitors upload co-browsing frames as binary messages (MCF1 header + image); each gets
                // a text acknowledgement. Reading also keeps pings answered and notices a close.
                let maxMessage = self.configuration.maxFrameBytes + 4096
                for try await message in inbound.messages(maxSize: maxMessage) {
                    // The library bounds messages it reassembles from fragments; one frame up to the
                    // frame bound (1 MiB) passes it, so its size is checked here.
                    guard message.size <= maxMessage else {
                        try await outbound.close(.messageTooLarge, reason: "message larger than \(maxMessage) bytes")
                        return
                    }
                    if case .text(let text) = message {
                        // `{"type":"sync","id":"…"}`: answered with a `sync` event queued behind every
                        // event published so far (a barrier for clients and tests).
                        if let id = LiveSyncRequest.id(in: text) {
                            let answer = LiveEvent(id: 0, type: LiveEvent.sync, timestamp: self.clock.now(), detail: ["id": id])
                            subscription.deliverControl(String(decoding: try encoder.encode(answer), as: UTF8.self))
                        }
                        continue
                    }
                    guard case .binary(let buffer) = message, let client = frameClient else { continue }
                    // A BANDWIDTH fault rule: frames are taken no faster than the cap.
                    if let frameBandwidth { try await BandwidthPacing.wait(for: buffer.readableBytes, bytesPerSecond: frameBandwidth) }
                    let ack: FrameAck
                    do throws(FrameHeader.DecodingError) {
                        let (header, image) = try FrameHeader.decode(buffer.readableBytesView)
                        do throws(CollabError) {
                            ack = try self.ingest(header, image: image, client: client)
                        } catch {
                            // Counted by `ingest`; the ack names the frame the client sent, to match it with.
                            ack = FrameAck(type: "frame.rejected", sessionId: header.sessionId, sequence: header.sequence, reason: error.message)
                        }
                    } catch {
                        self.frames.countRejected(accountId: client.accountId)
                        ack = FrameAck(type: "frame.rejected", sessionId: nil, sequence: nil, reason: error.description)
                    }
                    try await outbound.write(.text(String(decoding: try encoder.encode(ack), as: UTF8.self)))
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }
}

extension WebSocketMessage {
    /// The message's size in bytes.
    fileprivate var size: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let buffer): buffer.readableBytes
        }
    }
}
