import Foundation
import Logging
public import NIOCore
import PostgresNIO

/// Co-browsing frames between the replicas of a cluster: a device uploads to one replica, its viewers
/// may watch on another.
///
/// Each accepted frame replaces its session's row in the UNLOGGED `mock_collab_frames` table (a frame
/// older than the stored one is ignored) and notifies `mock_collab_frames` with the session id, in one
/// statement. A replica with viewers of that session reads the row and hands the frame to them. Only
/// the latest frame is kept, matching the viewers' drop-to-latest delivery.
extension PostgresStore {
    static let framesChannel = "mock_collab_frames"

    /// A relayed frame.
    public struct RelayedFrame: Sendable {
        public var accountId: String
        public var origin: String
        /// The MCF1 message (header and image).
        public var wire: ByteBuffer
    }

    /// Stores `wire` as the session's latest frame (unless a newer one is stored) and wakes the replicas.
    public func publishFrame(sessionId: String, accountId: String, sequence: Int64, origin: String, wire: ByteBuffer) async throws {
        try await client.query(
            """
            WITH stored AS (
                INSERT INTO mock_collab_frames (session_id, account_id, seq, origin, frame)
                VALUES (\(sessionId), \(accountId), \(sequence), \(origin), \(wire))
                ON CONFLICT (session_id) DO UPDATE SET seq = EXCLUDED.seq, origin = EXCLUDED.origin, frame = EXCLUDED.frame
                WHERE mock_collab_frames.seq < EXCLUDED.seq
                RETURNING session_id
            )
            SELECT pg_notify(\(Self.framesChannel), session_id) FROM stored
            """,
            logger: logger
        )
    }

    /// The latest frame stored for a session.
    public func latestFrame(sessionId: String) async throws -> RelayedFrame? {
        let rows = try await client.query(
            "SELECT account_id, origin, frame FROM mock_collab_frames WHERE session_id = \(sessionId)", logger: logger
        )
        for try await (accountId, origin, frame) in rows.decode((String, String, ByteBuffer).self) {
            return RelayedFrame(accountId: accountId, origin: origin, wire: frame)
        }
        return nil
    }

    /// Forgets a session's frame (it ended).
    public func removeFrame(sessionId: String) async throws {
        try await client.query("DELETE FROM mock_collab_frames WHERE session_id = \(sessionId)", logger: logger)
    }

    /// Calls `frameArrived` with the session id of every frame a replica stores; runs until cancelled.
    public func followFrames(_ frameArrived: @escaping @Sendable (String) -> Void) async {
        await listen(on: Self.framesChannel, name: "frame relay", connectionId: 3, frameArrived)
    }
}
