import CollabClient
import CollabWire
import Foundation

/// A visitor app: starts its client, optionally registers push tokens and goes to the background,
/// then holds conversations back to back — start in a named area, wait for an agent, send messages
/// at the configured pace, end — answering or declining the calls that ring it.
struct SimulatedVisitor: Sendable {
    let index: Int
    let role: VisitorRole
    let context: LoadContext

    var deviceId: String { "load-\(context.configuration.seed)-\(LoadRunIdentity.nonce)-\(index)" }

    func run() async {
        var random = SeededRandom.stream(index, seed: context.configuration.seed)
        let configuration = context.configuration
        let client = VisitorClient(
            configuration: ClientConfiguration(baseURL: configuration.url, apiKey: configuration.apiKey, deviceId: deviceId, tls: context.tls),
            client: context.http
        )
        guard await context.timed(.clientStart, { try await client.start() }) != nil else {
            context.noteLiveFailures(of: client.liveConnection)
            return
        }
        let liveFailures = context.noteLiveFailures(of: client.liveConnection)
        context.metrics.count(.visitorsStarted)
        context.metrics.adjustActive(visitors: 1)
        defer { context.metrics.adjustActive(visitors: -1) }
        let inbox = context.inbox(of: LiveEvent.self)
        let notifications = NotificationAPI(client: client)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in client.events { inbox.push(event) }
                inbox.finish()
            }
            if role == .push {
                let apns = random.hex(bytes: 32)
                let voip = random.hex(bytes: 32)
                let registered = await context.timed(.pushRegister) {
                    try await notifications.register(apnsToken: apns, pushKitToken: voip, version: .encrypted)
                }
                if registered != nil {
                    context.metrics.count(.pushRegistrations)
                    _ = try? await client.setAppState(.background)
                }
            }
            var conversationNumber = 0
            let limit = context.configuration.conversationsPerVisitor ?? .max
            while !context.visitorsStop.isStopped, conversationNumber < limit {
                conversationNumber += 1
                guard await converse(client, notifications: notifications, inbox: inbox, random: &random) else {
                    // Back off a little after a failure rather than hammering.
                    _ = await context.visitorsStop.sleep(until: .now + .seconds(1))
                    continue
                }
            }
            context.noteLiveFailures(of: client.liveConnection, counted: liveFailures)
            await context.timed(.clientStop) { try await client.stop() }
        }
    }

    /// One conversation; `false` when it could not start.
    private func converse(
        _ client: VisitorClient, notifications: NotificationAPI, inbox: Inbox<LiveEvent>, random: inout SeededRandom
    ) async -> Bool {
        let configuration = context.configuration
        let area = configuration.namedAreas[Int(random.next() % UInt64(configuration.namedAreas.count))]
        guard
            let conversation = await context.timed(.conversationStart, {
                try await client.startConversation(topic: role.topic, namedArea: area)
            })
        else {
            return false
        }
        context.metrics.count(.conversationsStarted)
        let me = client.session?.person.id
        var replies = 0
        func counting(_ event: LiveEvent) {
            if event.type == "conversation.new_message",
                let message = event.message,
                message.conversationId == conversation.id,
                message.senderPersonId != me
            {
                replies += 1
            }
        }
        let queued = ContinuousClock.now
        let active = await handleEvents(
            until: .now + context.eventTimeout, client: client, notifications: notifications, inbox: inbox, random: &random
        ) { event in
            counting(event)
            return event.type == "conversation.active" && event.conversation?.id == conversation.id
        }
        if active {
            context.metrics.record(.queueWait, .now - queued, at: .now)
            var sent = 0
            var uploadTried = false
            while sent < configuration.messagesPerConversation, !context.visitorsStop.isStopped {
                let pause = Duration.milliseconds(Int64(random.jittered(configuration.messageIntervalSeconds) * 1_000))
                _ = await handleEvents(until: .now + pause, client: client, notifications: notifications, inbox: inbox, random: &random) { event in
                    counting(event)
                    return false
                }
                guard !context.visitorsStop.isStopped else { break }
                if role == .files, sent == 0, !uploadTried {
                    // Tried once: a refused upload (a full quota, too many at once) is one error, and the
                    // conversation goes on with text, rather than an error at every tick.
                    uploadTried = true
                    let picture = LoadFiles.picture(bytes: configuration.fileBytes, seed: index)
                    if await context.timed(.fileUpload, {
                        try await client.uploadFile(data: picture, named: "load-\(index).png", in: conversation.id)
                    }) != nil {
                        sent += 1
                        context.metrics.count(.messagesSent)
                    }
                    continue
                }
                let clientMessageId = "v\(index)-\(conversation.id)-\(sent + 1)"
                context.messages.start(clientMessageId, at: .now)
                let message = await context.timed(.messageSend) {
                    try await client.send("Hello from device \(index), message \(sent + 1)", in: conversation.id, clientMessageId: clientMessageId)
                }
                if message == nil {
                    context.messages.cancel(clientMessageId)
                } else {
                    sent += 1
                    context.metrics.count(.messagesSent)
                }
            }
            // End only when the agent answered every message (or gave up), as a person would; this
            // also keeps agents from replying into an ended conversation.
            if replies < sent {
                let answered = await handleEvents(
                    until: .now + context.eventTimeout, client: client, notifications: notifications, inbox: inbox, random: &random, stopAware: false
                ) { event in
                    counting(event)
                    return replies >= sent
                }
                if !answered { context.timeout(.replyDeliver, "the reply to message \(sent) in \(conversation.id)") }
            }
        } else if !context.visitorsStop.isStopped {
            context.timeout(.queueWait, "conversation.active for \(conversation.id)")
        }
        if await context.timed(.conversationEnd, { try await client.endConversation(conversation.id) }) != nil {
            context.metrics.count(.conversationsEnded)
        }
        return true
    }

    /// Handles incoming events until `deadline`, the stop signal (when `stopAware`), or an event
    /// `done` accepts; returns whether `done` accepted one.
    private func handleEvents(
        until deadline: ContinuousClock.Instant, client: VisitorClient, notifications: NotificationAPI, inbox: Inbox<LiveEvent>,
        random: inout SeededRandom, stopAware: Bool = true, done: (LiveEvent) -> Bool
    ) async -> Bool {
        while !(stopAware && context.visitorsStop.isStopped), !Task.isCancelled {
            let left = deadline - .now
            guard left > .zero else { return false }
            guard let event = await inbox.next(timeout: left) else {
                if inbox.isFinished { return false }
                continue
            }
            await handle(event, client: client, notifications: notifications, random: &random)
            if done(event) { return true }
        }
        return false
    }

    private func handle(_ event: LiveEvent, client: VisitorClient, notifications: NotificationAPI, random: inout SeededRandom) async {
        switch event.type {
        case "conversation.new_message":
            guard let message = event.message, message.senderPersonId != client.session?.person.id,
                let clientMessageId = message.clientMessageId, let sent = context.messages.finish(clientMessageId)
            else { return }
            context.metrics.record(.replyDeliver, .now - sent, at: .now)
        case "conversation.call.started":
            guard let callId = event.detail?["callId"], let conversationId = event.conversation?.id else { return }
            if let started = context.rings.finish(conversationId) {
                context.metrics.record(.callRing, .now - started, at: .now)
            }
            if random.next() % 10 < 7 {
                if await context.timed(.callAnswer, { try await notifications.answer(callId: callId) }) != nil {
                    context.metrics.count(.callsAnswered)
                }
            } else if await context.timed(.callDecline, { try await notifications.decline(callId: callId) }) != nil {
                context.metrics.count(.callsDeclined)
            }
        default:
            break
        }
    }
}
