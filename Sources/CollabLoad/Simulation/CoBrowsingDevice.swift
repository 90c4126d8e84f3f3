import CollabClient
import CollabWire
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOFoundationCompat
import NIOWebSocket

/// A device sharing its screen: one WebSocket carries its live events in and its frames out, as
/// the SDK does. It starts a conversation, waits for an agent, starts co-browsing, then sends a
/// changed frame every `1/fps` seconds on a fixed schedule and times each acknowledgement.
struct CoBrowsingDevice: Sendable {
    let index: Int
    let context: LoadContext

    /// What arrives on the device's socket; an acknowledgement carries when it arrived, so the device
    /// can read it later without losing its latency.
    enum Inbound: Sendable {
        case event(LiveEvent)
        case ack(FrameAck, at: ContinuousClock.Instant)
    }

    func run() async {
        let configuration = context.configuration
        let client = VisitorClient(
            configuration: ClientConfiguration(
                baseURL: configuration.url, apiKey: configuration.apiKey, deviceId: "load-\(configuration.seed)-\(LoadRunIdentity.nonce)-\(index)",
                tls: context.tls),
            client: context.http
        )
        guard await context.timed(.clientStart, { try await client.start(liveEvents: false) }) != nil, let url = client.liveEventsURL else { return }
        context.metrics.count(.visitorsStarted)
        context.metrics.adjustActive(visitors: 1)
        defer { context.metrics.adjustActive(visitors: -1) }
        var logger = Logger(label: "mock-collab.load")
        logger.logLevel = .critical
        do {
            let tls = try await context.tls?.webSocketSettings(url: url)
            var webSocket = WebSocketClientConfiguration(maxFrameSize: 1 << 21)
            webSocket.sniHostname = tls?.sniHostname
            _ = try await WebSocketClient.connect(
                url: url, configuration: webSocket, tlsConfiguration: tls?.configuration, logger: logger
            ) { inbound, outbound, _ in
                let inbox = context.inbox(of: Inbound.self)
                await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        defer { inbox.finish() }
                        for try await message in inbound.messages(maxSize: 1 << 21) {
                            guard case .text(let text) = message else { continue }
                            if text.contains("\"frame."), let ack = FrameAck.decode(text: text) {
                                inbox.push(.ack(ack, at: .now))
                            } else if let event = try? JSONDecoder().decode(LiveEvent.self, from: Data(text.utf8)) {
                                inbox.push(.event(event))
                            }
                        }
                    }
                    await session(client, inbox: inbox, outbound: outbound)
                    try? await outbound.close(.normalClosure, reason: nil)
                    group.cancelAll()
                }
            }
        } catch {
            context.fail(.coBrowsingStart, error)
        }
        await context.timed(.clientStop) { try await client.stop() }
    }

    /// Conversation, co-browsing session and frames, until the stop signal.
    private func session(_ client: VisitorClient, inbox: Inbox<Inbound>, outbound: WebSocketOutboundWriter) async {
        let configuration = context.configuration
        let area = configuration.namedAreas[index % configuration.namedAreas.count]
        guard
            let conversation = await context.timed(.conversationStart, {
                try await client.startConversation(topic: VisitorRole.cobrowse.topic, namedArea: area)
            })
        else { return }
        context.metrics.count(.conversationsStarted)
        let queued = ContinuousClock.now
        var active = false
        let deadline = ContinuousClock.now + context.eventTimeout
        while !active, !context.visitorsStop.isStopped, deadline > .now {
            guard let item = await inbox.next(timeout: deadline - .now) else {
                if inbox.isFinished { break }
                continue
            }
            if case .event(let event) = item, event.type == "conversation.active", event.conversation?.id == conversation.id { active = true }
        }
        if active {
            context.metrics.record(.queueWait, .now - queued, at: .now)
            if let coBrowsing = await context.timed(.coBrowsingStart, { try await client.startCoBrowsing(in: conversation.id) }) {
                await stream(sessionId: coBrowsing.id, inbox: inbox, outbound: outbound)
            }
        } else if !context.visitorsStop.isStopped {
            context.timeout(.queueWait, "conversation.active for \(conversation.id)")
        }
        if await context.timed(.conversationEnd, { try await client.endConversation(conversation.id) }) != nil {
            context.metrics.count(.conversationsEnded)
        }
    }

    /// Sends frames on a fixed schedule until the stop signal; a frame is sent only once the one
    /// before it was acknowledged.
    ///
    /// The device does not wait for an acknowledgement right after sending: it sleeps until its next
    /// frame is due and then takes the acknowledgement, which has nearly always arrived meanwhile (its
    /// latency is taken from when it arrived). Waiting at once would wake the device for every
    /// acknowledgement as well as for every frame.
    private func stream(sessionId: String, inbox: Inbox<Inbound>, outbound: WebSocketOutboundWriter) async {
        let configuration = context.configuration
        let interval = Duration.milliseconds(1_000) / configuration.fps
        // Devices spread over one interval so frames do not arrive in bursts.
        var next = ContinuousClock.now + interval * Double(index % 997) / 997
        var image = Self.image(bytes: configuration.frameBytes, device: index)
        var sequence: UInt32 = 0
        var unacknowledged: ContinuousClock.Instant?
        let limit = configuration.framesPerDevice ?? .max
        while sequence < limit, await context.visitorsStop.sleep(until: next) {
            if let sent = unacknowledged {
                guard await acknowledgement(of: sequence, sentAt: sent, inbox: inbox) else { return }
                unacknowledged = nil
                // A device whose acknowledgement came late skips the frames it missed rather than
                // bursting to catch up.
                let now = ContinuousClock.now
                while now - next >= interval { next += interval }
            }
            next += interval
            sequence &+= 1
            withUnsafeBytes(of: sequence.bigEndian) { image.replaceSubrange(4..<8, with: $0) }
            let header = FrameHeader(sessionId: sessionId, sequence: sequence, captureTime: 0, width: 390, height: 844)
            let sent = ContinuousClock.now
            do {
                try await outbound.write(.binary(ByteBuffer(data: header.encode(image: image))))
            } catch {
                context.fail(.frameAck, error)
                return
            }
            unacknowledged = sent
        }
        if let sent = unacknowledged { _ = await acknowledgement(of: sequence, sentAt: sent, inbox: inbox) }
    }

    /// Takes the acknowledgement of frame `sequence` (waiting for it if it has not arrived) and records
    /// it with the frame's `frames.sent` count; `false` when it did not come or the session ended.
    private func acknowledgement(of sequence: UInt32, sentAt sent: ContinuousClock.Instant, inbox: Inbox<Inbound>) async -> Bool {
        while true {
            guard let item = await inbox.next(timeout: context.eventTimeout) else {
                context.metrics.count(.framesSent)
                if inbox.isDrained {
                    // The server closed the socket: a message over its limit closes it with 1009 (docs/limits.md).
                    context.metrics.fail(
                        .frameAck, type: "socket closed",
                        message: "the live socket closed before the acknowledgement of frame \(sequence)"
                            + " (a frame over the server's message limit closes it)",
                        at: .now)
                } else {
                    context.timeout(.frameAck, "the acknowledgement of frame \(sequence)")
                }
                return false
            }
            switch item {
            case .ack(let ack, let arrived) where ack.sequence == sequence:
                let outcome: LoadCounter = switch ack.type {
                case "frame.accepted": .framesAccepted
                case "frame.throttled": .framesThrottled
                case "frame.duplicate": .framesDuplicate
                default: .framesRejected
                }
                context.metrics.record(.frameAck, arrived - sent, at: arrived, counting: [.framesSent, outcome])
                return true
            case .event(let event) where event.type == "conversation.ended" || event.type == "cobrowsing.ended":
                context.metrics.count(.framesSent)
                return false
            default:
                continue
            }
        }
    }

    /// A JPEG-signed payload of `bytes` bytes; bytes 4..<8 carry the frame number so each differs.
    static func image(bytes: Int, device: Int) -> Data {
        var image = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0, 0])
        image.append(Data(repeating: UInt8(truncatingIfNeeded: device), count: max(0, bytes - image.count)))
        return image
    }
}
