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
    private let store: PostgresStore
    private let frames: FrameIngest
    private let clock: AdjustableClock
    private let logger: Logger
    /// This process's name on the frames it stores, so it ignores its own announcements.
    private let origin = UUID().uuidString
    /// Sessions whose latest frame to fetch for this replica's viewers, and ended ones to forget.
    private let fetches: AsyncStream<String>
    private let fetchInput: AsyncStream<String>.Continuation
    private let endings: AsyncStream<String>
    private let endingInput: AsyncStream<String>.Continuation

    init(store: PostgresStore, frames: FrameIngest, clock: AdjustableClock, logger: Logger) {
        self.store = store
        self.frames = frames
        self.clock = clock
        self.logger = logger
        (fetches, fetchInput) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(256))
        (endings, endingInput) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(1_024))
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.publishAll() }
                group.addTask { await self.store.followFrames { sessionId in self.fetchInput.yield(sessionId) } }
                group.addTask { for await sessionId in self.fetches { await self.fetch(sessionId) } }
                group.addTask { for await sessionId in self.endings { try? await self.store.removeFrame(sessionId: sessionId) } }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Asks for a session's latest frame for this replica's viewers (one starts watching). Never blocks.
    func requestFetch(sessionId: String) {
        fetchInput.yield(sessionId)
    }

    /// Forgets an ended session's frame. Never blocks.
    func forget(sessionId: String) {
        endingInput.yield(sessionId)
    }

    /// Fetches a session's latest frame for this replica's viewers (when it starts watching, and when
    /// another replica announced one).
    private func fetch(_ sessionId: String) async {
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

    private func publishAll() async {
        guard let accepted = frames.accepted else { return }
        for await accepted in accepted {
            do {
                try await store.publishFrame(
                    sessionId: accepted.sessionId, accountId: accepted.accountId, sequence: Int64(accepted.frame.header.sequence), origin: origin,
                    wire: accepted.frame.wire
                )
            } catch {
                // Frames are not durable: a viewer elsewhere simply gets the next one.
                logger.debug("a frame could not be relayed", metadata: ["session": "\(accepted.sessionId)", "error": "\(error)"])
            }
        }
    }
}
