import CollabCore
import CollabWire
import Foundation
import Hummingbird
import Logging
import HummingbirdWebSocket
import NIOCore
import NIOFoundationCompat
import NIOWebSocket
import HTTPTypes

/// Co-browsing on the agent, mobile and control APIs.
struct CoBrowsingRoutes {
    let environment: CollabEnvironment

    /// The agent's side: request, read, stop, the latest frame, and the live frame viewer.
    func registerAgent(on agent: RouterGroup<CollabRequestContext>) {
        let env = environment
        agent.post("conversations/:id/cobrowsing") { _, context in
            let identity = try env.agent(context)
            let id = try context.pathParameter("id")
            let session = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.requestCoBrowsing(
                    conversationId: id, agentPersonId: identity.personId, accountId: identity.accountId, context: op, changes: &changes)
            }
            return JSONBody.response(try env.view(session), status: .created)
        }
        agent.get("conversations/:id/cobrowsing") { _, context in
            guard let session = try env.openCoBrowsingSession(context, caller: .agent(try env.agent(context))) else { return noContent }
            return JSONBody.response(try env.view(session))
        }
        agent.get("cobrowsing/:id") { _, context in
            let identity = try env.agent(context)
            let session = try env.read(context.principal) { state throws(CollabError) in
                try state.coBrowsingSession(try context.pathParameter("id"), accountId: identity.accountId)
            }
            return JSONBody.response(try env.view(session))
        }
        agent.post("cobrowsing/:id/stop") { _, context in
            let identity = try env.agent(context)
            let session = try await env.stopCoBrowsing(context, personId: identity.personId, accountId: identity.accountId)
            return JSONBody.response(try env.view(session))
        }
        agent.get("cobrowsing/:id/frame") { _, context in
            let identity = try env.agent(context)
            let id = try context.pathParameter("id")
            _ = try env.read(context.principal) { state throws(CollabError) in try state.coBrowsingSession(id, accountId: identity.accountId) }
            guard let frame = env.frames.latest(sessionId: id, accountId: identity.accountId) else { throw CollabError(.notFound, "no frame yet") }
            return Response(
                status: .ok,
                headers: [
                    .contentType: frame.format.rawValue, .cacheControl: "no-store", .init("x-frame-sequence")!: String(frame.header.sequence),
                    .init("x-frame-capture-time")!: String(frame.header.captureTime), .init("x-frame-width")!: String(frame.header.width),
                    .init("x-frame-height")!: String(frame.header.height),
                ],
                body: .init(byteBuffer: ByteBuffer(data: frame.image))
            )
        }
        agent.ws("cobrowsing/:id/frames") { request, context in
            _ = try env.viewerSession(context: context)
            try request.requireWebSocketUpgrade()
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, wsContext in
            let session: CoBrowsingSession
            do {
                session = try env.viewerSession(context: wsContext.requestContext)
            } catch {
                wsContext.logger.error("viewer refused", metadata: ["error": "\(error)", "path": "\(RedactedURL.string(wsContext.request.uri))"])
                throw error
            }
            guard session.state != .ended else {
                try await outbound.close(.normalClosure, reason: "session ended")
                return
            }
            let (viewer, frames) = env.frames.view(sessionId: session.id, accountId: session.accountId)
            defer { env.frames.stopViewing(sessionId: session.id, accountId: session.accountId, viewer: viewer) }
            // In a cluster the device may upload to another replica: start from the frame it stored.
            env.frameRelay?.requestFetch(sessionId: session.id)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await frame in frames {
                        try await outbound.write(.binary(frame.wire))
                    }
                    // Cancelled: the reader ended first and its outcome (a 1009 for an oversized message) decides the close.
                    try Task.checkCancellation()
                    try await outbound.close(.normalClosure, reason: "session ended")
                }
                group.addTask { for try await _ in inbound.messages(maxSize: 4096) {} }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// The visitor's side: start, read, accept, stop, and frame uploads over HTTP.
    func registerMobile(on mobile: RouterGroup<CollabRequestContext>) {
        let env = environment
        mobile.post("conversations/:id/cobrowsing") { _, context in
            let client = try env.client(context)
            let id = try context.pathParameter("id")
            let session = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.startCoBrowsing(
                    conversationId: id, visitorPersonId: client.personId, accountId: client.accountId, context: op, changes: &changes)
            }
            return JSONBody.response(try env.view(session, client: client), status: .created)
        }
        mobile.get("conversations/:id/cobrowsing") { _, context in
            let client = try env.client(context)
            guard let session = try env.openCoBrowsingSession(context, caller: .visitor(client)) else { return noContent }
            return JSONBody.response(try env.view(session, client: client))
        }
        mobile.get("cobrowsing/:id") { _, context in
            let client = try env.client(context)
            let session = try env.visitorSession(try context.pathParameter("id"), client: client)
            return JSONBody.response(try env.view(session, client: client))
        }
        mobile.post("cobrowsing/:id/accept") { _, context in
            let client = try env.client(context)
            let id = try context.pathParameter("id")
            let session = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.acceptCoBrowsing(id, visitorPersonId: client.personId, accountId: client.accountId, context: op, changes: &changes)
            }
            return JSONBody.response(try env.view(session, client: client))
        }
        mobile.post("cobrowsing/:id/stop") { _, context in
            let client = try env.client(context)
            let session = try await env.stopCoBrowsing(context, personId: client.personId, accountId: client.accountId)
            return JSONBody.response(try env.view(session, client: client))
        }
        mobile.post("cobrowsing/:id/frames") { request, context in
            let client = try env.client(context)
            let id = try context.pathParameter("id")
            let body = try await env.collectBody(request, limit: env.configuration.maxFrameBytes)
            func header(_ name: String) -> String? { request.headers[HTTPField.Name(name)!] }
            var areas: [PrivateArea] = []
            if let text = header("x-private-areas") {
                areas = try JSONBody.decode([PrivateArea].self, from: Data(text.utf8))
                guard areas.count <= FrameHeader.maximumPrivateAreas else {
                    throw CollabError.badRequest("at most \(FrameHeader.maximumPrivateAreas) private areas")
                }
            }
            func number<T: FixedWidthInteger>(_ name: String, _ type: T.Type) throws(CollabError) -> T? {
                guard let text = header(name) else { return nil }
                guard let value = T(text) else { throw .badRequest("\(name) must be an integer from \(T.min) to \(T.max)") }
                return value
            }
            let image = Data(buffer: body)
            // Width and height are optional: absent, they are read from the image's own header.
            let declared = FrameImageFormat.dimensions(of: image)
            let frameHeader = FrameHeader(
                sessionId: id, sequence: try number("x-frame-sequence", UInt32.self) ?? 0,
                captureTime: try number("x-frame-capture-time", Int64.self) ?? env.clock.now(),
                width: try number("x-frame-width", Int32.self).map(Int.init) ?? declared?.width ?? 0,
                height: try number("x-frame-height", Int32.self).map(Int.init) ?? declared?.height ?? 0, privateAreas: areas
            )
            let ack = try env.ingest(frameHeader, image: image, client: client)
            switch ack.type {
            case "frame.throttled":
                let seconds = max(1, ((ack.retryAfterMs ?? 0) + 999) / 1000)
                return JSONBody.response(ack, status: .tooManyRequests, headers: [.retryAfter: String(seconds)])
            case "frame.rejected" where ack.retryAfterMs != nil:
                // The account's frame memory is spent: it frees as sessions end.
                let seconds = Int(max(1, ((ack.retryAfterMs ?? 0) + 999) / 1000))
                throw CollabError.tooManyRequests(ack.reason ?? "frame rejected", retryAfterSeconds: seconds)
            case "frame.rejected":
                throw CollabError.badRequest(ack.reason ?? "frame rejected")
            default:
                return JSONBody.response(ack, status: .accepted)
            }
        }
    }

    /// A session's frame statistics on the control API.
    func registerControl(on control: RouterGroup<CollabRequestContext>) {
        let env = environment
        control.get("cobrowsing/:id/stats") { request, context in
            let id = try context.pathParameter("id")
            let scope = try env.inspectedAccountId(request.query("account"), confinedTo: try context.inspectorConfinement())
            let accountId = try env.account(holding: { $0.coBrowsingSessions[id] != nil }, in: scope, entity: "CoBrowsingSession", id: id)
            var stats = env.frames.stats(sessionId: id, accountId: accountId)
            // A session that has not ended reports the rate limit it resolves to now, frames or not;
            // an ended one the limit its last frame saw.
            let session = try env.read(account: accountId) { state throws(CollabError) in try state.coBrowsingSession(id, accountId: accountId) }
            if session.endedAt == nil { stats.maxFps = try env.view(session).maxFps }
            return JSONBody.response(stats)
        }
    }
}

extension CollabEnvironment {
    /// A session view with its effective rate limit.
    func view(_ session: CoBrowsingSession, client: ClientSession? = nil) throws(CollabError) -> CoBrowsingSessionView {
        let (ios, maxFps) = try read(account: session.accountId) { state -> (Bool, Int) in
            let client = client ?? state.clientSessions(ofPerson: session.visitorPersonId).last
            let ios = client?.device.isIOS ?? true
            return (ios, state.maxFps(for: session, ios: ios, clientToken: client?.id))
        }
        return CoBrowsingSessionView(
            id: session.id, conversationId: session.conversationId, visitorPersonId: session.visitorPersonId, state: session.state.rawValue,
            platform: ios ? "iOS" : "Android", maxFps: maxFps, requestedAt: session.requestedAt, startedAt: session.startedAt,
            endedAt: session.endedAt
        )
    }

    /// Stops the session the path names, for an agent or the visitor, and ends its frame stream.
    func stopCoBrowsing(_ context: CollabRequestContext, personId: String, accountId: String) async throws -> CoBrowsingSession {
        let id = try context.pathParameter("id")
        let session = try await write(context.principal) { state, changes, op throws(CollabError) in
            try state.stopCoBrowsing(id, personId: personId, accountId: accountId, context: op, changes: &changes)
        }
        frames.end(sessionId: session.id, accountId: session.accountId)
        return session
    }

    /// The open session of the conversation the path names, if any, for a caller who may see the
    /// conversation (any other conversation is not found).
    func openCoBrowsingSession(_ context: CollabRequestContext, caller: ConversationCaller) throws(CollabError) -> CoBrowsingSession? {
        let id = try context.pathParameter("id")
        let session = try read(account: caller.accountId) { state throws(CollabError) in
            state.openCoBrowsingSession(ofConversation: try caller.conversation(id, in: state).id)
        }
        // A visitor sees only the sessions of their own screen (as `GET cobrowsing/{id}`).
        if let client = caller.client, session?.visitorPersonId != client.personId { return nil }
        return session
    }

    /// The session of the visitor behind `client`.

    func visitorSession(_ id: String, client: ClientSession) throws(CollabError) -> CoBrowsingSession {
        let session = try read(account: client.accountId) { state throws(CollabError) in
            try state.coBrowsingSession(id, accountId: client.accountId)
        }
        guard session.visitorPersonId == client.personId else { throw .notFound("CoBrowsingSession", id) }
        return session
    }

    /// Checks and takes one frame from a visitor's client: the session must be the visitor's and active;
    /// the rate limit resolves now, so a changed property applies to running sessions at once.
    func ingest(_ header: FrameHeader, image: Data, client: ClientSession) throws(CollabError) -> FrameAck {
        let session: CoBrowsingSession
        let maxFps: Int
        do throws(CollabError) {
            // One read of the shard per frame: the session and its rate limit together.
            (session, maxFps) = try read(account: client.accountId) { state throws(CollabError) -> (CoBrowsingSession, Int) in
                let session = try state.coBrowsingSession(header.sessionId, accountId: client.accountId)
                guard session.visitorPersonId == client.personId else { throw .notFound("CoBrowsingSession", header.sessionId) }
                return (session, state.maxFps(for: session, ios: client.device.isIOS, clientToken: client.id))
            }
            guard session.state == .active else {
                throw CollabError.conflict("the session is \(session.state.rawValue); frames go to active sessions")
            }
        } catch {
            frames.countRejected(accountId: client.accountId)
            throw error
        }
        return frames.ingest(sessionId: session.id, accountId: session.accountId, header: header, image: image, maxFps: maxFps, now: clock.now())
    }

    /// The session an agent's frame viewer asks for.
    func viewerSession(context: CollabRequestContext) throws(CollabError) -> CoBrowsingSession {
        let principal = context.principal
        try principal.require(.registeredUser)
        guard let accountId = principal.accountId else { throw .unauthorized("authentication required") }
        let id = try context.pathParameter("id")
        return try read(account: accountId) { state throws(CollabError) in try state.coBrowsingSession(id, accountId: accountId) }
    }
}
