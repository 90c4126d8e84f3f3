import CollabClient
import CollabWire
import Synchronization

/// An agent at its desk: logs in, goes online, watches its queue live, accepts its share of new
/// conversations, replies to every visitor message, and rings push visitors once per conversation.
///
/// Agents split new conversations by a hash of the conversation id (so they do not all race for
/// each one); a conversation left waiting longer than a few seconds is taken by whoever polls first.
struct SimulatedAgent: Sendable {
    let index: Int
    let context: LoadContext

    private final class Desk: Sendable {
        struct Conversation {
            var role: VisitorRole?
            var called = false
            var replies = 0
        }

        let conversations = Mutex<[String: Conversation]>([:])
        let personId: String

        init(personId: String) { self.personId = personId }
    }

    /// Logs in and returns the account id, or `nil` when login failed (recorded).
    func login(_ agent: AgentClient) async -> String? {
        let configuration = context.configuration
        let response = await context.timed(.agentLogin) {
            try await agent.login(username: configuration.agentUsername, password: configuration.agentPassword)
        }
        return response?.accountId
    }

    /// Works until the agents' stop signal.
    func run(_ agent: AgentClient) async {
        guard let session = agent.session else { return }
        context.metrics.count(.agentsStarted)
        context.metrics.adjustActive(agents: 1)
        defer { context.metrics.adjustActive(agents: -1) }
        try? await agent.setPresence("ONLINE")
        let events: LiveEventStream
        do {
            events = try await agent.connectEvents(namedAreas: context.configuration.namedAreas)
        } catch {
            context.fail(.agentLogin, error)
            return
        }
        let liveFailures = context.noteLiveFailures(of: events)
        let desk = Desk(personId: session.person.id)
        await withDiscardingTaskGroup { group in
            group.addTask {
                await context.agentsStop.wait()
                events.close()
            }
            group.addTask { await pollQueue(agent, desk: desk) }
            for await event in events.events {
                handle(event, agent: agent, desk: desk, group: &group)
            }
        }
        context.noteLiveFailures(of: events, counted: liveFailures)
        try? await agent.setPresence("OFFLINE")
    }

    private func isMine(_ conversationId: String) -> Bool {
        let agents = max(1, context.configuration.agents)
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in conversationId.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return Int(hash % UInt64(agents)) == index
    }

    private func handle(_ event: LiveEvent, agent: AgentClient, desk: Desk, group: inout DiscardingTaskGroup) {
        switch event.type {
        case "conversation.queued":
            guard let conversation = event.conversation, isMine(conversation.id) else { return }
            group.addTask { await accept(conversation, agent: agent, desk: desk) }
        case "conversation.new_message":
            guard let message = event.message, message.senderPersonId != desk.personId, !message.internal else { return }
            let known = desk.conversations.withLock { $0[message.conversationId] != nil }
            guard known else { return }
            if let clientMessageId = message.clientMessageId, let sent = context.messages.finish(clientMessageId) {
                context.metrics.record(.messageDeliver, .now - sent, at: .now)
            }
            group.addTask { await reply(to: message, agent: agent, desk: desk) }
        case "conversation.call.answered":
            guard let callId = event.detail?["callId"], let conversationId = event.conversation?.id,
                desk.conversations.withLock({ $0[conversationId] != nil })
            else { return }
            group.addTask {
                // Talk for a moment, then hang up.
                _ = await context.agentsStop.sleep(until: .now + .milliseconds(500))
                let start = ContinuousClock.now
                do throws(CollabClientError) {
                    try await agent.endCall(callId)
                    context.metrics.record(.callEnd, .now - start, at: .now)
                } catch where error.code == .conflict {
                    // The visitor ended the conversation (and with it the call) first: expected.
                } catch {
                    context.fail(.callEnd, error)
                }
            }
        case "conversation.ended":
            if let id = event.conversation?.id { _ = desk.conversations.withLock { $0.removeValue(forKey: id) } }
        default:
            break
        }
    }

    private func accept(_ conversation: ConversationView, agent: AgentClient, desk: Desk) async {
        let claimed = desk.conversations.withLock { conversations in
            guard conversations[conversation.id] == nil else { return false }
            conversations[conversation.id] = Desk.Conversation(role: VisitorRole(topic: conversation.topic))
            return true
        }
        guard claimed else { return }
        let start = ContinuousClock.now
        do throws(CollabClientError) {
            _ = try await agent.accept(conversation.id)
            context.metrics.record(.conversationAccept, .now - start, at: .now)
            context.metrics.count(.conversationsAccepted)
        } catch {
            _ = desk.conversations.withLock { $0.removeValue(forKey: conversation.id) }
            if error.code == .conflict {
                // Another agent (or another session of this one) was first: expected, not an error.
                context.metrics.count(.acceptConflicts)
            } else {
                context.fail(.conversationAccept, error)
            }
        }
    }

    /// Takes conversations nobody accepted for a while (an agent that missed the event, a share
    /// whose agent is busy), as a real desk's queue view would.
    private func pollQueue(_ agent: AgentClient, desk: Desk) async {
        let areas = context.configuration.namedAreas
        while await context.agentsStop.sleep(until: .now + .seconds(2)) {
            guard let entries = try? await agent.queue(namedAreas: areas) else { continue }
            let serverNow = entries.map(\.conversation.queuedAt).compactMap { $0 }.max() ?? 0
            for entry in entries where !context.agentsStop.isStopped {
                let waited = serverNow - (entry.conversation.queuedAt ?? serverNow)
                if isMine(entry.conversation.id) || waited > 3_000 {
                    await accept(entry.conversation, agent: agent, desk: desk)
                }
            }
        }
    }

    private func reply(to message: MessageView, agent: AgentClient, desk: Desk) async {
        let (number, role, call) = desk.conversations.withLock { conversations -> (Int, VisitorRole?, Bool) in
            guard var conversation = conversations[message.conversationId] else { return (0, nil, false) }
            conversation.replies += 1
            let call = conversation.role == .push && !conversation.called
            conversation.called = conversation.called || call
            conversations[message.conversationId] = conversation
            return (conversation.replies, conversation.role, call)
        }
        guard number > 0 else { return }
        // Ring first: the visitor is still waiting for this reply, so it sees the call before it can end.
        if call {
            context.rings.start(message.conversationId, at: .now)
            let started = await context.timed(.callStart) { try await agent.startCall(in: message.conversationId, callType: "AUDIO") }
            if started == nil {
                context.rings.cancel(message.conversationId)
            } else {
                context.metrics.count(.callsStarted)
            }
        }
        let clientMessageId = "a\(index)-\(message.conversationId)-\(number)"
        context.messages.start(clientMessageId, at: .now)
        let sent = await context.timed(.replySend) {
            try await agent.send(
                "Re: \(message.text.prefix(40)) (\(role?.rawValue ?? "chat"))", in: message.conversationId, clientMessageId: clientMessageId)
        }
        if sent == nil {
            context.messages.cancel(clientMessageId)
        } else {
            context.metrics.count(.repliesSent)
        }
    }
}
