import CollabCore
import CollabPush
import CollabStore
import Logging
import ServiceLifecycle

/// The one place the repository's committed stream goes: every batch, in commit order, is handed to
/// every part that acts on it — live connections, co-browsing frames, the push pipeline, the webhook
/// dispatcher, the dialog bots, the frame relay, file storage.
///
/// Hand-offs happen in ``committed(_:)``, on the commit path before the batch's writes answer, and never
/// wait: each consumer takes the batch into its own bounded queue (and runs as a service of its own).
/// So a client that got a 2xx has its events on every live connection, and `GET /_mock/v1/pushes/settle`
/// counts its pushes. What takes I/O here (a deleted conversation's files) runs on the fan-out's own
/// task, ``run()``. Effects come resolved: no consumer reads the state again. An account the batch
/// deleted is forgotten by every part that keeps something per account (``AccountScopedPart``).
final class CommitFanOut: CommitSink, Service {
    private struct Removal {
        var accountId: String
        var conversationId: String
    }

    private let events: EventHub
    private let frames: FrameIngest
    private let clock: AdjustableClock
    private let pushes: PushPipeline
    private let webhooks: WebhookDispatcher
    private let bots: BotDialogService
    private let relay: FrameRelay?
    private let files: FileStorage
    /// What keeps something per account, told when an account is deleted.
    private let accountParts: [any AccountScopedPart]
    private let removals: AsyncStream<Removal>
    private let removalInput: AsyncStream<Removal>.Continuation

    init(
        events: EventHub, frames: FrameIngest, clock: AdjustableClock, pushes: PushPipeline, webhooks: WebhookDispatcher, bots: BotDialogService,
        relay: FrameRelay?, files: FileStorage, accountParts: [any AccountScopedPart]
    ) {
        self.events = events
        self.frames = frames
        self.clock = clock
        self.pushes = pushes
        self.webhooks = webhooks
        self.bots = bots
        self.relay = relay
        self.files = files
        self.accountParts = accountParts
        (removals, removalInput) = AsyncStream.makeStream(of: Removal.self, bufferingPolicy: .bufferingOldest(10_000))
    }

    func opened(at position: CommitPosition) {
        events.start(at: position.nextEventId)
    }

    func committed(_ batch: CommittedBatch) {
        // Another replica's commit: its clock applies here too.
        if let setting = batch.clock { clock.apply(setting) }
        events.publish(batch.events)
        // The connections the commit ended close after its events are handed to them, so an app whose
        // authorization ended still gets the `client.error` that says why.
        for key in batch.endedConnections.endedSessionKeys { events.disconnect(sessionKey: key) }
        for id in batch.endedConnections.endedUserIds { events.disconnect(userId: id) }
        // A deleted account's connections close, and every part lets go of what it kept for it.
        for id in batch.endedConnections.removedAccountIds {
            for part in accountParts { part.accountDeleted(id) }
        }
        for committed in batch.events {
            let event = committed.event
            switch event.kind {
            case .coBrowsingEnded:
                // A session that ends (stopped by either side, or with its conversation) frees its frames.
                guard let id = event.detail["coBrowsingSessionId"] else { continue }
                frames.end(sessionId: id, accountId: event.accountId)
                if batch.isLocal { relay?.forget(sessionId: id) }
            case .conversationDeleted:
                if let conversation = event.conversation {
                    files.forgetConversation(accountId: event.accountId, conversationId: conversation.id)
                    removalInput.yield(Removal(accountId: event.accountId, conversationId: conversation.id))
                }
            default:
                continue
            }
        }
        guard !batch.effects.isEmpty else { return }
        pushes.enqueue(batch.effects.pushes)
        webhooks.enqueue(batch.effects.webhooks)
        bots.offer(batch.effects.botOffers)
    }

    /// Removes deleted conversations' directories from disk (their bytes left the quota at commit; the
    /// sweep at start catches a crash between).
    func run() async throws {
        await withGracefulShutdownHandler {
            for await removal in removals {
                await files.removeDirectory(accountId: removal.accountId, conversationId: removal.conversationId)
            }
        } onGracefulShutdown: {
            self.removalInput.finish()
        }
    }
}
