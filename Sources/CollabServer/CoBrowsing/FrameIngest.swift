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
        var accountId: String
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

    /// The final figures of an ended session, kept (bounded) so its statistics stay readable.
    private struct EndedSession {
        var accountId: String
        var stats: CoBrowsingStats
    }

    /// Live sessions, and the final statistics of recently ended ones (oldest first in `endedOrder`).
    private struct Sessions {
        var live: [String: SessionState] = [:]
        var ended: [String: EndedSession] = [:]
        var endedOrder: [String] = []
        /// Bytes of the latest frames the account's live sessions hold (image and viewers' copy).
        var heldByAccount: [String: Int] = [:]

        /// Makes `frame` the session's latest, keeping the account's held bytes.
        mutating func hold(_ frame: Frame, in state: inout SessionState) {
            heldByAccount[state.accountId, default: 0] += frame.heldBytes - (state.latest?.heldBytes ?? 0)
            state.latest = frame
        }

        /// The session's latest frame is let go (it ended).
        mutating func release(_ state: SessionState) {
            guard let latest = state.latest else { return }
            heldByAccount[state.accountId, default: 0] -= latest.heldBytes
            if heldByAccount[state.accountId] == 0 { heldByAccount[state.accountId] = nil }
        }
    }

    private let sessions = Mutex(Sessions())
    /// Outcomes since start per account, kept after sessions end (for `/_mock/v1/stats`).
    private let totals = Mutex<[String: StateStats.FrameCounts]>([:])
    private let nextViewer = Mutex(0)
    /// The largest image accepted, in bytes.
    let maxFrameBytes: Int
    /// The most the latest frames of one account's live sessions may hold together, in bytes
    /// (`--max-frame-memory-per-account`): a frame beyond it is refused, so no account can grow the
    /// process without end.
    let maxHeldBytesPerAccount: Int
    /// How many ended sessions keep their final statistics.
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
        sessions.withLock { !($0.live[sessionId]?.viewers.isEmpty ?? true) }
    }

    /// Hands a frame another replica accepted to this replica's viewers (it counts there, not here).
    /// An older frame than the one held is ignored.
    func relayed(sessionId: String, accountId: String, header: FrameHeader, image: Data, format: FrameImageFormat, now: Timestamp) {
        sessions.withLock { sessions in
            guard sessions.ended[sessionId] == nil, var state = sessions.live[sessionId] else { return }
            if let latest = state.latest, latest.header.sequence >= header.sequence { return }
            let frame = Frame(header: header, image: image, format: format, receivedAt: now)
            sessions.hold(frame, in: &state)
            for viewer in state.viewers.values { viewer.yield(frame) }
            sessions.live[sessionId] = state
        }
    }

    /// Takes one frame of an active session whose rate limit is `maxFps` right now.
    func ingest(sessionId: String, accountId: String, header: FrameHeader, image: Data, maxFps: Int, now: Timestamp) -> FrameAck {
        func reject(_ reason: String) -> FrameAck {
            sessions.withLock { sessions in
                guard sessions.ended[sessionId] == nil else { return }
                sessions.live[sessionId, default: SessionState(accountId: accountId)].rejected += 1
            }
            totals.withLock { $0[accountId, default: .init()].rejected += 1 }
            rejectedCounter.increment()
            return FrameAck(type: "frame.rejected", sessionId: sessionId, sequence: header.sequence, reason: reason)
        }
        let format: FrameImageFormat
        do {
            format = try header.validate(image: image, maxImageBytes: maxFrameBytes)
        } catch {
            return reject(error.description)
        }
        let hash = SHA256.hash(data: image)
        let ack: FrameAck = sessions.withLock { sessions in
            // A frame racing the session's end must not bring its state back.
            guard sessions.ended[sessionId] == nil else {
                return FrameAck(type: "frame.rejected", sessionId: sessionId, sequence: header.sequence, reason: "the session has ended")
            }
            var state = sessions.live[sessionId] ?? SessionState(accountId: accountId)
            defer { sessions.live[sessionId] = state }
            state.maxFps = maxFps
            let wait = state.limiter.wait(at: now, fps: maxFps)
            if wait > 0 {
                state.throttled += 1
                return FrameAck(type: "frame.throttled", sessionId: sessionId, sequence: header.sequence, retryAfterMs: wait)
            }
            if state.lastHash == hash {
                // The SDK sends only changed screens: an identical frame is counted, not forwarded.
                state.duplicates += 1
                return FrameAck(type: "frame.duplicate", sessionId: sessionId, sequence: header.sequence)
            }
            let frame = Frame(header: header, image: image, format: format, receivedAt: now)
            let held = sessions.heldByAccount[accountId, default: 0] + frame.heldBytes - (state.latest?.heldBytes ?? 0)
            if held > maxHeldBytesPerAccount {
                state.rejected += 1
                return FrameAck(
                    type: "frame.rejected", sessionId: sessionId, sequence: header.sequence, retryAfterMs: 5_000,
                    reason: "the account's co-browsing sessions would hold more than \(maxHeldBytesPerAccount) bytes of frames"
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
            state.bytes += image.count
            sessions.hold(frame, in: &state)
            for viewer in state.viewers.values { viewer.yield(frame) }
            return FrameAck(type: "frame.accepted", sessionId: sessionId, sequence: header.sequence)
        }
        switch ack.type {
        case "frame.accepted":
            if let acceptedInput, let frame = latest(sessionId: sessionId), frame.header.sequence == header.sequence {
                acceptedInput.yield(Accepted(sessionId: sessionId, accountId: accountId, frame: frame))
            }
            acceptedCounter.increment()
            bytesCounter.increment(by: image.count)
            totals.withLock { $0[accountId, default: .init()].accepted += 1 }
        case "frame.throttled":
            throttledCounter.increment()
            totals.withLock { $0[accountId, default: .init()].throttled += 1 }
        case "frame.rejected":
            rejectedCounter.increment()
            totals.withLock { $0[accountId, default: .init()].rejected += 1 }
        default:
            duplicateCounter.increment()
            totals.withLock { $0[accountId, default: .init()].duplicates += 1 }
        }
        return ack
    }

    /// Counts a frame of `accountId` refused before it reached a session: a header that does not decode,
    /// or a session that is unknown, another visitor's or not active. It shows in the account's
    /// `rejected` count (no session's), as every other refused frame does.
    func countRejected(accountId: String) {
        rejectedCounter.increment()
        totals.withLock { $0[accountId, default: .init()].rejected += 1 }
    }

    /// Frame outcomes since start, for one account or all.
    func counts(accountId: String?) -> StateStats.FrameCounts {
        totals.withLock { totals in
            if let accountId { return totals[accountId] ?? .init() }
            return totals.values.reduce(into: StateStats.FrameCounts()) { sum, counts in
                sum.accepted += counts.accepted
                sum.throttled += counts.throttled
                sum.duplicates += counts.duplicates
                sum.rejected += counts.rejected
            }
        }
    }

    /// The latest accepted frame.
    func latest(sessionId: String) -> Frame? {
        sessions.withLock { $0.live[sessionId]?.latest }
    }

    /// Live frames for a viewer, newest only (drop-to-latest), starting with the latest frame. The
    /// stream of an ended session finishes at once.
    func view(sessionId: String, accountId: String) -> (id: Int, frames: AsyncStream<Frame>) {
        let (stream, continuation) = AsyncStream.makeStream(of: Frame.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextViewer.withLock { value in
            defer { value += 1 }
            return value
        }
        let open = sessions.withLock { sessions -> Bool in
            guard sessions.ended[sessionId] == nil else { return false }
            var state = sessions.live[sessionId] ?? SessionState(accountId: accountId)
            if let latest = state.latest { continuation.yield(latest) }
            state.viewers[id] = continuation
            sessions.live[sessionId] = state
            return true
        }
        if !open { continuation.finish() }
        return (id, stream)
    }

    /// Stops a viewer.
    func stopViewing(sessionId: String, viewer: Int) {
        sessions.withLock { $0.live[sessionId]?.viewers.removeValue(forKey: viewer) }?.finish()
    }

    /// A session ended: its viewers finish and its frame state (latest frame, throttle, hashes, gaps)
    /// is freed; only its final statistics stay, for the last ``endedCapacity`` sessions.
    func end(sessionId: String) {
        let viewers = sessions.withLock { sessions -> [AsyncStream<Frame>.Continuation] in
            guard sessions.ended[sessionId] == nil else { return [] }
            let state = sessions.live.removeValue(forKey: sessionId)
            if let state { sessions.release(state) }
            let accountId = state?.accountId ?? ""
            sessions.ended[sessionId] = EndedSession(accountId: accountId, stats: Self.stats(of: state, sessionId: sessionId))
            sessions.endedOrder.append(sessionId)
            if sessions.endedOrder.count > Self.endedCapacity {
                let overflow = sessions.endedOrder.count - Self.endedCapacity
                for id in sessions.endedOrder.prefix(overflow) { sessions.ended[id] = nil }
                sessions.endedOrder.removeFirst(overflow)
            }
            return state.map { Array($0.viewers.values) } ?? []
        }
        for viewer in viewers { viewer.finish() }
    }

    /// Forgets every session of an account (it was reset or deleted), ended ones included, and its totals.
    func removeAll(accountId: String) {
        let viewers = sessions.withLock { sessions -> [AsyncStream<Frame>.Continuation] in
            let removed = sessions.live.filter { $0.value.accountId == accountId }
            for id in removed.keys { sessions.live[id] = nil }
            sessions.heldByAccount[accountId] = nil
            sessions.endedOrder.removeAll { sessions.ended[$0]?.accountId == accountId }
            sessions.ended = sessions.ended.filter { $0.value.accountId != accountId }
            return removed.values.flatMap { $0.viewers.values }
        }
        totals.withLock { $0[accountId] = nil }
        for viewer in viewers { viewer.finish() }
    }

    /// Forgets every session and every total (a full reset).
    func removeAll() {
        let viewers = sessions.withLock { sessions -> [AsyncStream<Frame>.Continuation] in
            defer { sessions = Sessions() }
            return sessions.live.values.flatMap { $0.viewers.values }
        }
        totals.withLock { $0 = [:] }
        for viewer in viewers { viewer.finish() }
    }

    /// What the ingest holds now, for one account or all: live sessions, their viewers and bytes.
    func held(accountId: String?) -> StateStats.FramesHeld {
        sessions.withLock { sessions in
            var held = StateStats.FramesHeld()
            for state in sessions.live.values where accountId == nil || state.accountId == accountId {
                held.sessions += 1
                held.viewers += state.viewers.count
                held.bytes += state.heldBytes
            }
            held.endedSessions = sessions.ended.values.reduce(0) { $0 + (accountId == nil || $1.accountId == accountId ? 1 : 0) }
            return held
        }
    }

    /// Statistics of a session, live or recently ended.
    func stats(sessionId: String) -> CoBrowsingStats {
        sessions.withLock { sessions in
            if let ended = sessions.ended[sessionId] { return ended.stats }
            return Self.stats(of: sessions.live[sessionId], sessionId: sessionId)
        }
    }

    private static func stats(of state: SessionState?, sessionId: String) -> CoBrowsingStats {
        let state = state ?? SessionState(accountId: "")
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
