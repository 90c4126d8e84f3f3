import CollabCore
import CollabWire
import Crypto
import Foundation
import Metrics
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
    }

    private let sessions = Mutex<[String: SessionState]>([:])
    /// Outcomes since start per account, kept after sessions end (for `/_mock/v1/stats`).
    private let totals = Mutex<[String: StateStats.FrameCounts]>([:])
    private let nextViewer = Mutex(0)
    /// The largest image accepted, in bytes.
    let maxFrameBytes: Int

    private let acceptedCounter = Counter(label: "mockcollab_cobrowsing_frames_accepted_total")
    private let throttledCounter = Counter(label: "mockcollab_cobrowsing_frames_throttled_total")
    private let duplicateCounter = Counter(label: "mockcollab_cobrowsing_frames_duplicate_total")
    private let rejectedCounter = Counter(label: "mockcollab_cobrowsing_frames_rejected_total")
    private let bytesCounter = Counter(label: "mockcollab_cobrowsing_frame_bytes_total")

    init(maxFrameBytes: Int) {
        self.maxFrameBytes = maxFrameBytes
    }

    /// Takes one frame of an active session whose rate limit is `maxFps` right now.
    func ingest(sessionId: String, accountId: String, header: FrameHeader, image: Data, maxFps: Int, now: Timestamp) -> FrameAck {
        func reject(_ reason: String) -> FrameAck {
            sessions.withLock { $0[sessionId, default: SessionState()].rejected += 1 }
            totals.withLock { $0[accountId, default: .init()].rejected += 1 }
            rejectedCounter.increment()
            return FrameAck(type: "frame.rejected", sessionId: sessionId, sequence: header.sequence, reason: reason)
        }
        guard image.count <= maxFrameBytes else { return reject("the image is larger than \(maxFrameBytes) bytes") }
        guard let format = FrameImageFormat(signatureOf: image) else { return reject("the image is neither JPEG nor PNG") }
        guard (1...16_384).contains(header.width), (1...16_384).contains(header.height) else { return reject("width and height must be 1 to 16384") }
        let hash = SHA256.hash(data: image)
        let ack: FrameAck = sessions.withLock { sessions in
            var state = sessions[sessionId, default: SessionState()]
            defer { sessions[sessionId] = state }
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
            let frame = Frame(header: header, image: image, format: format, receivedAt: now)
            state.latest = frame
            for viewer in state.viewers.values { viewer.yield(frame) }
            return FrameAck(type: "frame.accepted", sessionId: sessionId, sequence: header.sequence)
        }
        switch ack.type {
        case "frame.accepted":
            acceptedCounter.increment()
            bytesCounter.increment(by: image.count)
            totals.withLock { $0[accountId, default: .init()].accepted += 1 }
        case "frame.throttled":
            throttledCounter.increment()
            totals.withLock { $0[accountId, default: .init()].throttled += 1 }
        default:
            duplicateCounter.increment()
            totals.withLock { $0[accountId, default: .init()].duplicates += 1 }
        }
        return ack
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
        sessions.withLock { $0[sessionId]?.latest }
    }

    /// Live frames for a viewer, newest only (drop-to-latest), starting with the latest frame.
    func view(sessionId: String) -> (id: Int, frames: AsyncStream<Frame>) {
        let (stream, continuation) = AsyncStream.makeStream(of: Frame.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextViewer.withLock { value in
            defer { value += 1 }
            return value
        }
        sessions.withLock { sessions in
            var state = sessions[sessionId, default: SessionState()]
            if let latest = state.latest { continuation.yield(latest) }
            state.viewers[id] = continuation
            sessions[sessionId] = state
        }
        return (id, stream)
    }

    /// Stops a viewer.
    func stopViewing(sessionId: String, viewer: Int) {
        sessions.withLock { $0[sessionId]?.viewers.removeValue(forKey: viewer) }?.finish()
    }

    /// Ends every viewer of a session (it ended).
    func end(sessionId: String) {
        let viewers = sessions.withLock { sessions -> [AsyncStream<Frame>.Continuation] in
            guard var state = sessions[sessionId] else { return [] }
            defer {
                state.viewers = [:]
                sessions[sessionId] = state
            }
            return Array(state.viewers.values)
        }
        for viewer in viewers { viewer.finish() }
    }

    /// Statistics of a session.
    func stats(sessionId: String) -> CoBrowsingStats {
        sessions.withLock { sessions in
            let state = sessions[sessionId] ?? SessionState()
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
}
