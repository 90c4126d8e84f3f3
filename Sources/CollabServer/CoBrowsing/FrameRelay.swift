import CollabCore
import CollabStore
import CollabWire
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import ServiceLifecycle

/// Co-browsing frames across the replicas of a cluster (see ``PostgresStore/publishFrame(sessionId:accountId:sequence:origin:wire:)``):
/// every frame this replica accepts is stored as its session's latest and announced; a frame another
/// replica announced is fetched when someone here watches that session.
///
/// Publishing runs in the background, newest first when it falls behind, so an upload's answer never
/// waits for the database; a viewer on another replica is drop-to-latest, like one on this replica.
final class FrameRelay: Service {
    private struct Pending: Sendable {
        var sessionId: String
        var accountId: String
        var sequence: Int64
        var wire: ByteBuffer
    }

    private let store: PostgresStore
    private let frames: FrameIngest
    private let clock: AdjustableClock
    private let logger: Logger
    /// This process's name on the frames it stores, so it ignores its own announcements.
    private let origin = UUID().uuidString
    private let pending: AsyncStream<Pending>
    private let pendingInput: AsyncStream<Pending>.Continuation

    init(store: PostgresStore, frames: FrameIngest, clock: AdjustableClock, logger: Logger) {
        self.store = store
        self.frames = frames
        self.clock = clock
        self.logger = logger
        (pending, pendingInput) = AsyncStream.makeStream(of: Pending.self, bufferingPolicy: .bufferingNewest(256))
        frames.onAccepted { [pendingInput] sessionId, accountId, frame in
            pendingInput.yield(Pending(sessionId: sessionId, accountId: accountId, sequence: Int64(frame.header.sequence), wire: frame.wire))
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.publishAll() }
                group.addTask { await self.store.followFrames { sessionId in Task { await self.fetch(sessionId) } } }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Fetches a session's latest frame for this replica's viewers (when it starts watching, and when
    /// another replica announced one).
    func fetch(_ sessionId: String) async {
        guard frames.hasViewers(sessionId: sessionId) else { return }
        do {
            guard let stored = try await store.latestFrame(sessionId: sessionId), stored.origin != origin else { return }
            let (header, image) = try FrameHeader.decode(stored.wire.readableBytesView)
            guard let format = FrameImageFormat(signatureOf: image) else { return }
            frames.relayed(sessionId: sessionId, accountId: stored.accountId, header: header, image: image, format: format, now: clock.now())
        } catch {
            logger.debug("a relayed frame could not be read", metadata: ["session": "\(sessionId)", "error": "\(error)"])
        }
    }

    /// Forgets an ended session's frame.
    func remove(_ sessionId: String) async {
        try? await store.removeFrame(sessionId: sessionId)
    }

    private func publishAll() async {
        for await frame in pending {
            do {
                try await store.publishFrame(
                    sessionId: frame.sessionId, accountId: frame.accountId, sequence: frame.sequence, origin: origin, wire: frame.wire
                )
            } catch {
                // Frames are not durable: a viewer elsewhere simply gets the next one.
                logger.debug("a frame could not be relayed", metadata: ["session": "\(frame.sessionId)", "error": "\(error)"])
            }
        }
    }
}
