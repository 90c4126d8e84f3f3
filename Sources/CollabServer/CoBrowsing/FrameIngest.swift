import CollabCore
import CollabWire
import Crypto
import Foundation
import Metrics
import NIOCore
import NIOFoundationCompat
import Synchronization

/// Frames of live co-browsing sessions: decode header → validate → throttle → detect duplicates →
/// keep the latest → fan out to viewers. State lives in memory (frames are not durable).
///
/// Viewers get drop-to-latest delivery: each viewer holds at most one pending frame, so a slow viewer
/// sees fewer frames but never slows the uploader or other viewers.
final class FrameIngest: Sendable {
    /// A frame as kept and shown to viewers.
    struct Frame: Sendable {
        var header: FrameHeader
        var image: Data
        var format: FrameImageFormat
        var receivedAt: Timestamp
        /// The MCF1 message viewers receive, encoded once when the frame arrives: every viewer gets the
        /// same bytes, however many watch.
        var wire: ByteBuffer

        /// What holding the frame costs: the image and the viewers' encoded copy.
        var heldBytes: Int { image.count + wire.readableBytes }

        init(header: FrameHeader, image: Data, format: FrameImageFormat, receivedAt: Timestamp) {
            self.header = header
            self.image = image
            self.format = format
            self.receivedAt = receivedAt
            self.wire = ByteBuffer(data: header.encode(image: image))
        }
    }

    private struct SessionState {
        var limiter = FrameRateLimiter()
        var accepted = 0
        var throttled = 0
        var duplicates = 0
        var rejected = 0
        var bytes = 0
        var firstAccepted: Timestamp?
        var lastAcceptedAt: Timestamp?
        var lastHash: SHA256.Digest?
        var latest: Frame?
        /// The most recent gaps between accepted frames (bounded), for percentiles.
        var gaps: [Int64] = []
        var viewers: [Int: AsyncStream<Frame>.Continuation] = [:]
        var maxFps = CoBrowsingConfiguration.defaultFps

        /// Bytes this session holds: the latest image and the gap buffer.
        var heldBytes: Int { (latest?.image.count ?? 0) + gaps.count * MemoryLayout<Int64>.size }
    }

    /// One account's sessions: live ones, the final statistics of its recently ended ones (oldest
    /// first in `endedOrder`), the bytes its latest frames hold and its outcomes since start. Each
    /// account has its own lock, so one account's frames never wait on another's.
    private struct AccountSessions {
        var live: [String: SessionState] = [:]
        var ended: [String: CoBrowsingStats] = [:]
        var endedOrder: [String] = []
        /// Bytes of the latest frames the account's live sessions hold (image and viewers' copy).
        var heldBytes = 0
        /// Outcomes since start, kept after sessions end (for `/_mock/v1/stats`).
        var totals = StateStats.FrameCounts()

        /// Makes `frame` the session's latest, keeping the account's held bytes.
        mutating func hold(_ frame: Frame, in state: inout SessionState) {
            heldBytes += frame.heldBytes - (state.latest?.heldBytes ?? 0)
            state.latest = frame
        }

        /// The session ends: its frame state is freed and only its final statistics stay, for the
        /// account's last ``FrameIngest/endedCapacity`` sessions. Returns the session's viewers.
        mutating func end(_ sessionId: String) -> [AsyncStream<Frame>.Continuation] {
            guard ended[sessionId] == nil else { return [] }
            let state = live.removeValue(forKey: sessionId)
            heldBytes -= state?.latest?.heldBytes ?? 0
            ended[sessionId] = FrameIngest.stats(of: state, sessionId: sessionId)
            endedOrder.append(sessionId)
            if endedOrder.count > FrameIngest.endedCapacity {
                let overflow = endedOrder.count - FrameIngest.endedCapacity
                for id in endedOrder.prefix(overflow) { ended[id] = nil }
                endedOrder.removeFirst(overflow)
            }
            return state.map { Array($0.viewers.values) } ?? []
        }

        /// What the account holds now.
        var held: StateStats.FramesHeld {
            var held = StateStats.FramesHeld()
            for state in live.values {
                held.sessions += 1
                held.viewers += state.viewers.count
                held.bytes += state.heldBytes
            }
            held.endedSessions = ended.count
            return held
        }

        var viewers: [AsyncStream<Frame>.Continuation] { live.values.flatMap { $0.viewers.values } }
    }

    /// An account's sessions behind its own lock.
    private final class AccountFrames: Sendable {
        let sessions = Mutex(AccountSessions())
    }

    /// Every account with frame state.
    private let accounts = AccountShards { AccountFrames() }
    /// How many viewers each watched session has on this replica (for the cluster relay, which
    /// learns of a frame by its session id alone).
    private let watched = Mutex<[String: Int]>([:])
    private let nextViewer = Mutex(0)
    /// The largest image accepted, in bytes.
    let maxFrameBytes: Int
    /// The most the latest frames of one account's live sessions may hold together, in bytes
    /// (`--max-frame-memory-per-account`): a frame beyond it is refused, so no account can grow the
    /// process without end.
    let maxHeldBytesPerAccount: Int
    /// How many ended sessions of one account keep their final statistics.
    static let endedCapacity = 1_024

    private let acceptedCounter = Counter(label: "mockcollab_cobrowsing_frames_accepted_total")
    private let throttledCounter = Counter(label: "mockcollab_cobrowsing_frames_throttled_total")
    private let duplicateCounter = Counter(label: "mockcollab_cobrowsing_frames_duplicate_total")
    private let rejectedCounter = Counter(label: "mockcollab_cobrowsing_frames_rejected_total")
    private let bytesCounter = Counter(label: "mockcollab_cobrowsing_frame_bytes_total")

    /// A frame this process accepted, for the other replicas of a cluster.
    struct Accepted: Sendable {
        var sessionId: String
        var accountId: String
        var frame: Frame
    }

    /// Every accepted frame, newest first when the reader falls behind (`nil` outside a cluster: the
    /// frame relay reads it).
    let accepted: AsyncStream<Accepted>?
    private let acceptedInput: AsyncStream<Accepted>.Continuation?

    /// - Parameter relaying: Whether accepted frames go out on ``accepted`` (a cluster replica).
    init(maxFrameBytes: Int, maxHeldBytesPerAccount: Int = 256 * 1024 * 1024, relaying: Bool = false) {
        self.maxFrameBytes = maxFrameBytes
        self.maxHeldBytesPerAccount = maxHeldBytesPerAccount
        if relaying {
            let (stream, input) = AsyncStream.makeStream(of: Accepted.self, bufferingPolicy: .bufferingNewest(256))
            (accepted, acceptedInput) = (stream, input)
        } else {
            (accepted, acceptedInput) = (nil, nil)
        }
    }

    /// Whether anyone on this replica watches the session.
    func hasViewers(sessionId: String) -> Bool {
        watched.withLock { $0[sessionId] != nil }
    }

    /// Hands a frame another replica accepted to this replica's viewers (it counts there, not here).
    /// An older frame than the one held is ignored.
    func relayed(sessionId: String, accountId: String, header: FrameHeader, image: Data, format: FrameImageFormat, now: Timestamp) {
        guard let frames = accounts.existing(accountId) else { return }
        let frame = Frame(header: header, image: image, format: format, receivedAt: now)
        frames.sessions.withLock { sessions in
            guard sessions.ended[sessionId] == nil, var state = sessions.live[sessionId] else { return }
            if let latest = state.latest, latest.header.sequence >= header.sequence { return }
            sessions.hold(frame, in: &state)
            for viewer in state.viewers.values { viewer.yield(frame) }
            sessions.live[sessionId] = state
        }
    }

    /// Takes one frame of an active session whose rate limit is `maxFps` right now.
    func ingest(sessionId: String, accountId: String, header: FrameHeader, image: Data, maxFps: Int, now: Timestamp) -> FrameAck {
        let frames = accounts.shard(accountId)
        let format: FrameImageFormat
        do {
            format = try header.validate(image: image, maxImageBytes: maxFrameBytes)
        } catch {
            frames.sessions.withLock { sessions in
                sessions.totals.rejected += 1
                guard sessions.ended[sessionId] == nil else { return }
                sessions.live[sessionId, default: SessionState()].rejected += 1
            }
            rejectedCounter.increment()
            return FrameAck(type: "frame.rejected", sessionId: sessionId, sequence: header.sequence, reason: error.description)
        }
        // Hashing and encoding copy the image: both happen before the account's lock is taken.
        let hash = SHA256.hash(data: image)
        let frame = Frame(header: header, image: image, format: format, receivedAt: now)
        let ack: FrameAck = frames.sessions.withLock { sessions in
            let ack = Self.admit(
                frame, hash: hash, sessionId: sessionId, accountId: accountId, maxFps: maxFps, into: &sessions, limit: maxHeldBytesPerAccount)
            switch ack.type {
            case "frame.accepted": sessions.totals.accepted += 1
            case "frame.throttled": sessions.totals.throttled += 1
            case "frame.rejected": sessions.totals.rejected += 1
            default: sessions.totals.duplicates += 1
            }
            return ack
        }
        switch ack.type {
        case "frame.accepted":
            acceptedInput?.yield(Accepted(sessionId: sessionId, accountId: accountId, frame: frame))
            acceptedCounter.increment()
            bytesCounter.increment(by: image.count)
        case "frame.throttled": throttledCounter.increment()
        case "frame.rejected": rejectedCounter.increment()
        default: duplicateCounter.increment()
        }
        return ack
    }

    /// Throttle, duplicate check and the account's memory bound, under the account's lock: the frame
    /// becomes the session's latest and goes to its viewers, or the answer says why not.
    private static func admit(
        _ frame: Frame, hash: SHA256.Digest, sessionId: String, accountId: String, maxFps: Int, into sessions: inout AccountSessions, limit: Int
    ) -> FrameAck {
        let sequence = frame.header.sequence
        // A frame racing the session's end must not bring its state back.
        guard sessions.ended[sessionId] == nil else {
            return FrameAck(type: "frame.rejected", sessionId: sessionId, sequence: sequence, reason: "the session has ended")
        }
        var state = sessions.live[sessionId] ?? SessionState()
        defer { sessions.live[sessionId] = state }
        state.maxFps = maxFps
        let now = frame.receivedAt
        let wait = state.limiter.wait(at: now, fps: maxFps)
        if wait > 0 {
            state.throttled += 1
            return FrameAck(type: "frame.throttled", sessionId: sessionId, sequence: sequence, retryAfterMs: wait)
        }
        if state.lastHash == hash {
            // The SDK sends only changed screens: an identical frame is counted, not forwarded.
            state.duplicates += 1
            return FrameAck(type: "frame.duplicate", sessionId: sessionId, sequence: sequence)
        }
        if sessions.heldBytes + frame.heldBytes - (state.latest?.heldBytes ?? 0) > limit {
            state.rejected += 1
            return FrameAck(
                type: "frame.rejected", sessionId: sessionId, sequence: sequence, retryAfterMs: 5_000,
                reason: "the account's co-browsing sessions would hold more than \(limit) bytes of frames"
                    + " (--max-frame-memory-per-account): end a session, or send smaller frames")
        }
        _ = state.limiter.admit(at: now, fps: maxFps)
        if let last = state.lastAcceptedAt {
            state.gaps.append(now - last)
            if state.gaps.count > 2_048 { state.gaps.removeFirst(state.gaps.count - 2_048) }
        }
        state.firstAccepted = state.firstAccepted ?? now
        state.lastAcceptedAt = now
        state.lastHash = hash
        state.accepted += 1
        state.bytes += frame.image.count
        sessions.hold(frame, in: &state)
        for viewer in state.viewers.values { viewer.yield(frame) }
        return FrameAck(type: "frame.accepted", sessionId: sessionId, sequence: sequence)
    }

    /// Counts a frame of `accountId` refused before it reached a session: a header that does not decode,
    /// or a session that is unknown, another visitor's or not active. It shows in the account's
    /// `rejected` count (no session's), as every other refused frame does.
    func countRejected(accountId: String) {
        rejectedCounter.increment()
        accounts.shard(accountId).sessions.withLock { $0.totals.rejected += 1 }
    }

    /// Frame outcomes since start, for one account or all.
    func counts(accountId: String?) -> StateStats.FrameCounts {
        accounts.shards(for: accountId).reduce(StateStats.FrameCounts()) { sum, frames in sum + frames.sessions.withLock { $0.totals } }
    }

    /// The latest accepted frame.
    func latest(sessionId: String, accountId: String) -> Frame? {
        accounts.existing(accountId)?.sessions.withLock { $0.live[sessionId]?.latest }
    }

    /// Live frames for a viewer, newest only (drop-to-latest), starting with the latest frame. The
    /// stream of an ended session finishes at once.
    func view(sessionId: String, accountId: String) -> (id: Int, frames: AsyncStream<Frame>) {
        let (stream, continuation) = AsyncStream.makeStream(of: Frame.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextViewer.withLock { value in
            defer { value += 1 }
            return value
        }
        let open = accounts.shard(accountId).sessions.withLock { sessions -> Bool in
            guard sessions.ended[sessionId] == nil else { return false }
            var state = sessions.live[sessionId] ?? SessionState()
            if let latest = state.latest { continuation.yield(latest) }
            state.viewers[id] = continuation
            sessions.live[sessionId] = state
            return true
        }
        if open {
            watched.withLock { $0[sessionId, default: 0] += 1 }
        } else {
            continuation.finish()
        }
        return (id, stream)
    }

    /// Stops a viewer.
    func stopViewing(sessionId: String, accountId: String, viewer: Int) {
        guard let continuation = accounts.existing(accountId)?.sessions.withLock({ $0.live[sessionId]?.viewers.removeValue(forKey: viewer) }) else {
            return
        }
        unwatch([sessionId: 1])
        continuation.finish()
    }

    /// Takes viewers off the watched sessions.
    private func unwatch(_ stopped: [String: Int]) {
        guard !stopped.isEmpty else { return }
        watched.withLock { watched in
            for (sessionId, count) in stopped {
                let left = (watched[sessionId] ?? 0) - count
                watched[sessionId] = left > 0 ? left : nil
            }
        }
    }

    /// A session ended: its viewers finish and its frame state (latest frame, throttle, hashes, gaps)
    /// is freed; only its final statistics stay, for the account's last ``endedCapacity`` sessions.
    func end(sessionId: String, accountId: String) {
        let viewers = accounts.shard(accountId).sessions.withLock { $0.end(sessionId) }
        unwatch(viewers.isEmpty ? [:] : [sessionId: viewers.count])
        for viewer in viewers { viewer.finish() }
    }

    /// Forgets every session of an account (it was reset or deleted), ended ones included, and its
    /// totals. It touches that account's sessions alone.
    func removeAll(accountId: String) {
        guard let frames = accounts.remove(accountId) else { return }
        let live = frames.sessions.withLock { sessions in
            defer { sessions = AccountSessions() }
            return sessions.live
        }
        unwatch(live.compactMapValues { $0.viewers.isEmpty ? nil : $0.viewers.count })
        for viewer in live.values.flatMap(\.viewers.values) { viewer.finish() }
    }

    /// Forgets every session and every total (a full reset).
    func removeAll() {
        let removed = accounts.removeAll()
        watched.withLock { $0 = [:] }
        for frames in removed {
            for viewer in frames.sessions.withLock({ $0.viewers }) { viewer.finish() }
        }
    }

    /// What the ingest holds now, for one account or all: live sessions, their viewers and bytes.
    func held(accountId: String?) -> StateStats.FramesHeld {
        accounts.shards(for: accountId).reduce(StateStats.FramesHeld()) { sum, frames in sum + frames.sessions.withLock { $0.held } }
    }

    /// Statistics of a session, live or recently ended.
    func stats(sessionId: String, accountId: String) -> CoBrowsingStats {
        guard let frames = accounts.existing(accountId) else { return Self.stats(of: nil, sessionId: sessionId) }
        return frames.sessions.withLock { sessions in
            if let ended = sessions.ended[sessionId] { return ended }
            return Self.stats(of: sessions.live[sessionId], sessionId: sessionId)
        }
    }

    private static func stats(of state: SessionState?, sessionId: String) -> CoBrowsingStats {
        let state = state ?? SessionState()
        let sorted = state.gaps.sorted()
        func percentile(_ p: Double) -> Int64? {
            guard !sorted.isEmpty else { return nil }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
        var fps = 0.0
        if let first = state.firstAccepted, let last = state.lastAcceptedAt, last > first {
            fps = Double(state.accepted - 1) / (Double(last - first) / 1000)
        }
        return CoBrowsingStats(
            sessionId: sessionId, accepted: state.accepted, throttled: state.throttled, duplicates: state.duplicates, rejected: state.rejected,
            bytes: state.bytes, effectiveFps: fps, gapP50: percentile(0.5), gapP99: percentile(0.99), maxFps: state.maxFps,
            privateAreas: state.latest?.header.privateAreas ?? []
        )
    }
}
